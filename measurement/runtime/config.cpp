// Parses the WAITSCOPE_* environment variables into a Config, with one warning per bad value.
#include "waitscope/measure/config.h"

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace waitscope::measure {

namespace {

struct GroupName {
    const char* name;
    std::uint32_t bits;
};

constexpr GroupName kGroupNames[] = {
    {"env", kGroupEnv},   {"p2p", kGroupP2p},         {"coll", kGroupColl},
    {"cg", kGroupCg},     {"topo", kGroupTopo},       {"type", kGroupType},
    {"misc", kGroupMisc}, {"reqtest", kGroupReqTest}, {"io", kGroupIo},
    {"rma", kGroupRma},   {"default", kGroupDefault}, {"all", kGroupAll},
};

std::string lower(std::string text) {
    for (char& c : text)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
}

std::string trim(const std::string& text) {
    size_t b = text.find_first_not_of(" \t");
    size_t e = text.find_last_not_of(" \t");
    return b == std::string::npos ? std::string() : text.substr(b, e - b + 1);
}

bool parseBool(const std::string& text, bool& value) {
    std::string t = lower(trim(text));
    if (t == "1" || t == "true" || t == "yes" || t == "on") {
        value = true;
        return true;
    }
    if (t == "0" || t == "false" || t == "no" || t == "off") {
        value = false;
        return true;
    }
    return false;
}

const char* variable(const char* name) {
    const char* value = std::getenv(name);
    return value && *value ? value : nullptr;
}

void rejectValue(Config& config, const char* name, const char* value, const char* valid,
                 const char* used) {
    config.warnings.push_back(std::string(name) + "='" + value + "' is not valid (valid: " + valid +
                              "); using " + used);
}

} // namespace

const std::vector<ConfigVariable>& configVariables() {
    static const std::vector<ConfigVariable> table = {
        {"WAITSCOPE_ENABLE", "true", "true, false",
         "measure the program at all; false runs it untouched"},
        {"WAITSCOPE_TRACING", "true", "true, false", "write an OTF2 trace of every rank"},
        {"WAITSCOPE_PROFILING", "false", "true, false",
         "write a call-path profile (profile.cubex: time, visits, bytes, messages per call path "
         "and rank); cheap, with or without the trace"},
        {"WAITSCOPE_EXPERIMENT_DIRECTORY", "waitscope_<exe>_<ranks>", "a path",
         "where the experiment is written; an existing directory is never overwritten"},
        {"WAITSCOPE_OVERWRITE", "false", "true, false",
         "allow writing into an existing experiment directory (its trace is replaced)"},
        {"WAITSCOPE_TOTAL_MEMORY", "16M", "bytes with optional k, M, G suffix (at least 64k)",
         "event buffer per rank; when it fills it is flushed to disk and the flush recorded"},
        {"WAITSCOPE_MPI_GROUPS", "default",
         "comma list of env, p2p, coll, cg, topo, type, misc, reqtest, io, rma, default, all; "
         "prefix - removes a group",
         "MPI function groups to record (default = env,p2p,coll,cg,topo,io,rma)"},
        {"WAITSCOPE_CLOCK", "auto", "auto, tsc, monotonic",
         "event clock: the invariant time-stamp counter or CLOCK_MONOTONIC"},
        {"WAITSCOPE_SIGNAL_HANDLERS", "true", "true, false",
         "on SIGSEGV/SIGBUS/SIGFPE/SIGABRT/SIGTERM save what is buffered before the process goes"},
        {"WAITSCOPE_FILTER", "(none)", "a filter file in Score-P syntax",
         "user functions to leave out at run time (REGION and FILE blocks, INCLUDE/EXCLUDE)"},
        {"WAITSCOPE_SAMPLING",
         "false (true under 'waitscope analyze' for programs without "
         "compiler instrumentation)",
         "true, false",
         "hybrid call paths: unwind the stack at every recorded MPI call and sample the time "
         "outside MPI with a per-thread timer"},
        {"WAITSCOPE_SAMPLING_FREQUENCY", "100", "samples per second, 1 to 100000",
         "how often the sampling timers fire (wall-clock time, the main thread and each "
         "thread created after MPI_Init)"},
        {"WAITSCOPE_UNWIND_CACHE", "true", "true, false",
         "cache function starts by return address and regions by function start; false "
         "resolves every frame anew (only to measure what the caches save)"},
        {"WAITSCOPE_VERBOSE", "false", "true, false",
         "rank 0 prints where the experiment went and the measurement's own cost"},
    };
    return table;
}

bool parseMemorySize(const std::string& text, std::uint64_t& bytes) {
    std::string t = trim(text);
    if (t.empty() || !std::isdigit(static_cast<unsigned char>(t[0])))
        return false;
    char* end = nullptr;
    unsigned long long number = std::strtoull(t.c_str(), &end, 10);
    std::string suffix = lower(trim(end));
    std::uint64_t scale = 1;
    if (suffix == "" || suffix == "b")
        scale = 1;
    else if (suffix == "k" || suffix == "kb" || suffix == "kib")
        scale = 1ull << 10;
    else if (suffix == "m" || suffix == "mb" || suffix == "mib")
        scale = 1ull << 20;
    else if (suffix == "g" || suffix == "gb" || suffix == "gib")
        scale = 1ull << 30;
    else
        return false;
    if (number > (~0ull) / scale)
        return false;
    bytes = number * scale;
    return true;
}

bool parseMpiGroups(const std::string& text, std::uint32_t& groups, std::string& bad) {
    std::uint32_t result = 0;
    size_t start = 0;
    bool any = false;
    while (start <= text.size()) {
        size_t comma = text.find(',', start);
        std::string item = lower(trim(text.substr(start, comma - start)));
        start = comma == std::string::npos ? text.size() + 1 : comma + 1;
        if (item.empty())
            continue;
        bool remove = item[0] == '-';
        if (remove)
            item.erase(0, 1);
        const GroupName* found = nullptr;
        for (const GroupName& g : kGroupNames)
            if (item == g.name)
                found = &g;
        if (!found) {
            bad = item;
            return false;
        }
        // A list that starts with a removal applies it to the default set.
        if (!any && remove)
            result = kGroupDefault;
        result = remove ? (result & ~found->bits) : (result | found->bits);
        any = true;
    }
    if (!any) {
        bad = text;
        return false;
    }
    groups = result;
    return true;
}

std::string mpiGroupNames(std::uint32_t groups) {
    std::string names;
    for (const GroupName& g : kGroupNames)
        if (g.bits != kGroupDefault && g.bits != kGroupAll && (groups & g.bits))
            names += (names.empty() ? "" : ",") + std::string(g.name);
    return names;
}

std::string defaultExperimentDirectory(const std::string& executable, int ranks) {
    std::string base = executable;
    size_t slash = base.find_last_of('/');
    if (slash != std::string::npos)
        base = base.substr(slash + 1);
    if (base.empty())
        base = "program";
    return "waitscope_" + base + "_" + std::to_string(ranks);
}

Config configFromEnvironment() {
    Config config;
    auto readBool = [&config](const char* name, bool& target) {
        if (const char* v = variable(name)) {
            if (!parseBool(v, target))
                rejectValue(config, name, v, "true, false", target ? "true" : "false");
        }
    };
    readBool("WAITSCOPE_ENABLE", config.enabled);
    readBool("WAITSCOPE_TRACING", config.tracing);
    readBool("WAITSCOPE_PROFILING", config.profiling);
    readBool("WAITSCOPE_OVERWRITE", config.overwrite);
    readBool("WAITSCOPE_SIGNAL_HANDLERS", config.signalHandlers);
    readBool("WAITSCOPE_VERBOSE", config.verbose);
    readBool("WAITSCOPE_SAMPLING", config.sampling);
    readBool("WAITSCOPE_UNWIND_CACHE", config.unwindCache);
    if (const char* v = variable("WAITSCOPE_SAMPLING_FREQUENCY")) {
        char* end = nullptr;
        unsigned long hz = std::strtoul(v, &end, 10);
        if (end && *trim(end).c_str() == '\0' && hz >= 1 && hz <= 100000)
            config.samplingFrequency = static_cast<std::uint32_t>(hz);
        else
            rejectValue(config, "WAITSCOPE_SAMPLING_FREQUENCY", v,
                        "samples per second, 1 to 100000", "100");
    }
    if (const char* v = variable("WAITSCOPE_EXPERIMENT_DIRECTORY"))
        config.experimentDirectory = v;
    if (const char* v = variable("WAITSCOPE_TOTAL_MEMORY")) {
        std::uint64_t bytes = 0;
        if (parseMemorySize(v, bytes) && bytes >= (64u << 10))
            config.totalMemory = bytes;
        else
            rejectValue(config, "WAITSCOPE_TOTAL_MEMORY", v,
                        "bytes with optional k, M, G suffix, at least 64k", "16M");
    }
    if (const char* v = variable("WAITSCOPE_MPI_GROUPS")) {
        std::string bad;
        if (!parseMpiGroups(v, config.mpiGroups, bad))
            rejectValue(config, "WAITSCOPE_MPI_GROUPS", v,
                        "env, p2p, coll, cg, topo, type, misc, reqtest, io, rma, default, all",
                        "default");
    }
    if (const char* v = variable("WAITSCOPE_CLOCK")) {
        std::string t = lower(trim(v));
        if (t == "auto")
            config.clock = ClockKind::Auto;
        else if (t == "tsc")
            config.clock = ClockKind::Tsc;
        else if (t == "monotonic")
            config.clock = ClockKind::Monotonic;
        else
            rejectValue(config, "WAITSCOPE_CLOCK", v, "auto, tsc, monotonic", "auto");
    }
    // Every WAITSCOPE_ variable we do not know is most likely a typo the user wants to hear about.
    for (char** e = environ; e && *e; ++e) {
        if (std::strncmp(*e, "WAITSCOPE_", 10) != 0)
            continue;
        std::string name(*e, std::strcspn(*e, "="));
        bool known = false;
        for (const ConfigVariable& var : configVariables())
            known = known || name == var.name;
        if (!known)
            config.warnings.push_back(name +
                                      " is not a Waitscope variable (see 'waitscope config')");
    }
    return config;
}

} // namespace waitscope::measure
