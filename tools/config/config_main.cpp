// waitscope-config ("waitscope config"): lists every WAITSCOPE_* variable with its default,
// its value in this environment, the values it takes, and what it does.
#include "waitscope/measure/config.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

void usage(FILE* out) {
    std::fprintf(out, "usage: waitscope config [--values]\n"
                      "  lists the measurement's WAITSCOPE_* variables: default, current value,\n"
                      "  valid values and meaning; checks the current environment's values\n"
                      "  --values  print only NAME=VALUE lines of the effective values\n");
}

} // namespace

int main(int argc, char** argv) {
    using namespace waitscope::measure;
    bool valuesOnly = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--values") == 0) {
            valuesOnly = true;
        } else if (std::strcmp(argv[i], "-h") == 0 || std::strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else {
            std::fprintf(stderr, "waitscope config: error: unknown argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    Config config = configFromEnvironment();
    for (const ConfigVariable& v : configVariables()) {
        const char* set = std::getenv(v.name);
        std::string current = set && *set ? set : v.defaultValue;
        if (valuesOnly) {
            std::printf("%s=%s\n", v.name, current.c_str());
            continue;
        }
        std::printf("%s\n  current:  %s%s\n  default:  %s\n  values:   %s\n  %s\n\n", v.name,
                    current.c_str(), set && *set ? "" : " (default)", v.defaultValue, v.validValues,
                    v.description);
    }
    for (const std::string& w : config.warnings)
        std::fprintf(stderr, "waitscope config: warning: %s\n", w.c_str());
    return config.warnings.empty() ? 0 : 1;
}
