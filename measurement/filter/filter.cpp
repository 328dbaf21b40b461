// Parsing and matching of Score-P-style filter files.
#include "waitscope/measure/filter.h"

#include <fnmatch.h>
#include <fstream>
#include <sstream>

namespace waitscope::measure {

namespace {

bool hasWildcard(const std::string& pattern) {
    return pattern.find_first_of("*?[\\") != std::string::npos;
}

bool matches(const std::string& pattern, const std::string& text) {
    return fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

bool excludedBy(const std::vector<Filter::Rule>& rules, const std::string& demangled,
                const std::string& mangled) {
    bool excluded = false;
    for (const Filter::Rule& rule : rules) {
        const std::string& subject = rule.mangled ? mangled : demangled;
        for (const std::string& p : rule.patterns)
            if (matches(p, subject)) {
                excluded = rule.exclude;
                break;
            }
    }
    return excluded;
}

} // namespace

Result<Filter> Filter::parse(const std::string& text, const std::string& source) {
    Filter filter;
    enum Block { kNone, kRegions, kFiles } block = kNone;
    std::vector<Rule>* rules = nullptr;
    std::istringstream in(text);
    std::string line;
    int number = 0;
    int blockStart = 0;
    auto error = [&](const std::string& what) {
        return Error(source + ":" + std::to_string(number) + ": " + what);
    };
    while (std::getline(in, line)) {
        ++number;
        if (size_t hash = line.find('#'); hash != std::string::npos)
            line.erase(hash);
        std::istringstream words(line);
        std::string word;
        bool ruleStartsHere = false;
        while (words >> word) {
            if (word == "SCOREP_REGION_NAMES_BEGIN" || word == "SCOREP_FILE_NAMES_BEGIN") {
                if (block != kNone)
                    return error("'" + word + "' inside another block");
                block = word == "SCOREP_REGION_NAMES_BEGIN" ? kRegions : kFiles;
                rules = block == kRegions ? &filter.m_regionRules : &filter.m_fileRules;
                blockStart = number;
                continue;
            }
            if (word == "SCOREP_REGION_NAMES_END" || word == "SCOREP_FILE_NAMES_END") {
                Block ending = word == "SCOREP_REGION_NAMES_END" ? kRegions : kFiles;
                if (block != ending)
                    return error("'" + word + "' without its BEGIN");
                if (!rules->empty() && rules->back().patterns.empty())
                    return error("rule without patterns");
                block = kNone;
                rules = nullptr;
                continue;
            }
            if (block == kNone)
                return error("'" + word +
                             "' outside a SCOREP_REGION_NAMES or SCOREP_FILE_NAMES block");
            if (word == "INCLUDE" || word == "EXCLUDE") {
                if (!rules->empty() && rules->back().patterns.empty())
                    return error("rule without patterns");
                Rule rule;
                rule.exclude = word == "EXCLUDE";
                rules->push_back(rule);
                ruleStartsHere = true;
                continue;
            }
            if (word == "MANGLED") {
                if (!ruleStartsHere || rules->back().mangled || !rules->back().patterns.empty())
                    return error("MANGLED must follow INCLUDE or EXCLUDE");
                if (block != kRegions)
                    return error("MANGLED applies to region names only");
                rules->back().mangled = true;
                continue;
            }
            if (rules->empty())
                return error("pattern '" + word + "' before any INCLUDE or EXCLUDE");
            rules->back().patterns.push_back(word);
        }
    }
    if (block != kNone)
        return Error(source + ":" + std::to_string(blockStart) + ": block is not closed");
    return filter;
}

Result<Filter> Filter::load(const std::string& path) {
    std::ifstream in(path);
    if (!in)
        return Error("cannot read filter file '" + path + "'");
    std::stringstream text;
    text << in.rdbuf();
    return parse(text.str(), path);
}

bool Filter::excludesName(const std::string& name, const std::string& mangledName) const {
    return excludedBy(m_regionRules, name, mangledName.empty() ? name : mangledName);
}

bool Filter::excludesFile(const std::string& file) const {
    return excludedBy(m_fileRules, file, file);
}

bool Filter::excludes(const std::string& name, const std::string& mangledName,
                      const std::string& file) const {
    return excludesName(name, mangledName) || (!file.empty() && excludesFile(file));
}

std::vector<std::string> Filter::literalNameExclusions() const {
    std::vector<std::string> names;
    for (size_t i = 0; i < m_regionRules.size(); ++i) {
        const Rule& rule = m_regionRules[i];
        if (!rule.exclude || rule.mangled)
            continue;
        for (const std::string& p : rule.patterns) {
            if (hasWildcard(p))
                continue;
            bool revived = false;
            for (size_t j = i + 1; j < m_regionRules.size() && !revived; ++j)
                if (!m_regionRules[j].exclude)
                    for (const std::string& q : m_regionRules[j].patterns)
                        revived = revived || m_regionRules[j].mangled || matches(q, p);
            if (!revived)
                names.push_back(p);
        }
    }
    return names;
}

} // namespace waitscope::measure
