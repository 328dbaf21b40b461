// Region filters in the Score-P filter-file syntax: which functions the measurement records.
//
//   SCOREP_REGION_NAMES_BEGIN            SCOREP_FILE_NAMES_BEGIN
//     EXCLUDE *                            EXCLUDE */third_party/*
//     INCLUDE main solve*                  INCLUDE */src/*
//     EXCLUDE MANGLED _ZN6detail*        SCOREP_FILE_NAMES_END
//   SCOREP_REGION_NAMES_END
//
// Within a block the rules apply in order and the last one that matches decides; what no rule
// matches is included. A region is recorded only if both its name and its file are included.
// Patterns are shell wildcards (*, ?, [...]); `\` escapes; `#` starts a comment.
#pragma once

#include "waitscope/base/result.h"

#include <string>
#include <vector>

namespace waitscope::measure {

class Filter {
public:
    struct Rule {
        bool exclude = false;
        bool mangled = false; ///< match the mangled name instead of the demangled one
        std::vector<std::string> patterns;
    };

    /// Parses filter text; `source` names it in errors ("file:line: what is wrong").
    static Result<Filter> parse(const std::string& text, const std::string& source);
    /// Reads and parses a filter file; fails with a message naming the file (and line).
    static Result<Filter> load(const std::string& path);

    /// True when the region is excluded by its name or by its file.
    bool excludes(const std::string& name, const std::string& mangledName,
                  const std::string& file) const;
    bool excludesName(const std::string& name, const std::string& mangledName) const;
    bool excludesFile(const std::string& file) const;

    /// Region names a compiler may exclude by exact name: literal EXCLUDE patterns (not
    /// MANGLED) that no later INCLUDE rule can bring back.
    std::vector<std::string> literalNameExclusions() const;

    bool empty() const { return m_regionRules.empty() && m_fileRules.empty(); }
    const std::vector<Rule>& regionRules() const { return m_regionRules; }
    const std::vector<Rule>& fileRules() const { return m_fileRules; }

private:
    std::vector<Rule> m_regionRules;
    std::vector<Rule> m_fileRules;
};

} // namespace waitscope::measure
