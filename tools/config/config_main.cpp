// waitscope-config ("waitscope config"): lists every WAITSCOPE_* variable with its default,
// its value in this environment, the values it takes, and what it does.
#include "waitscope/measure/config.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <waitscope/cli/command_line.h>
#include <waitscope/cli/guarded_main.h>

// The command itself; main() only guards it.
static int runCommand(int argc, char** argv) {
    using namespace waitscope::measure;
    bool valuesOnly = false;
    waitscope::cli::CommandLine commandLine("config");
    commandLine
        .description("Lists the measurement's WAITSCOPE_* variables: default, current value, "
                     "valid values and meaning; checks the current environment's values.")
        .flag("--values", "print only NAME=VALUE lines of the effective values", valuesOnly);
    if (auto exit = commandLine.parse(argc, argv))
        return *exit;
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

int main(int argc, char** argv) {
    return waitscope::cli::guardedMain("waitscope config", [&] { return runCommand(argc, argv); });
}
