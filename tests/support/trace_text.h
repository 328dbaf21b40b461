// Runs commands for the measurement tests and reads traces through otf2-print's text output.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace waitscope::test {

struct CommandResult {
    int exitCode = -1;
    std::string output; ///< stdout and stderr together
};

/// Runs `command` with /bin/sh and captures its output.
CommandResult runCommand(const std::string& command);

/// "mpirun -np N --oversubscribe -x VAR... [-x LD_PRELOAD=lib] program args".
std::string mpirunCommand(int ranks, const std::vector<std::string>& environment,
                          const std::string& program, const std::string& arguments = {},
                          bool preload = true);

/// A fresh, empty directory for one test's experiments.
std::string freshDirectory(const std::string& name);

struct TraceEvent {
    std::string name; ///< ENTER, MPI_SEND, ...
    int location = -1;
    std::uint64_t time = 0;
    std::string attributes;

    /// The value of `key: value` in the attributes ("Region" gives the quoted name).
    std::string attribute(const std::string& key) const;
};

/// The events of an archive, as otf2-print prints them (empty if it fails).
std::vector<TraceEvent> readEvents(const std::string& anchor);

/// The global definitions' lines of one kind (e.g. "COMM"), as otf2-print -G prints them.
std::vector<std::string> readDefinitions(const std::string& anchor, const std::string& kind);

/// Events of `name` on `location` (regions: ENTER of that region when `region` is given).
int countEvents(const std::vector<TraceEvent>& events, const std::string& name, int location,
                const std::string& region = {});

/// Reads key=value lines.
std::map<std::string, std::string> readKeyValues(const std::string& path);
std::string readFile(const std::string& path);

} // namespace waitscope::test
