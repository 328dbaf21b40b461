// Running the launcher as a child process, with a progress line that ticks on a terminal.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace waitscope::analysis {

/// Runs `args` (searched in PATH) with extra environment `variables` and waits for it; returns
/// its exit code, 128 + the signal that ended it, or 127 when it cannot be started. With a
/// `label` and a terminal on stderr, a line "<prefix>: <label>... 12 s" ticks each second while
/// the child runs; the child's output then passes through this process (stdout to stdout,
/// stderr to stderr), line by line, so that it never lands in the middle of the ticking line.
int runChild(const std::vector<std::string>& args,
             const std::vector<std::pair<std::string, std::string>>& variables,
             const std::string& prefix, const std::string& label);

} // namespace waitscope::analysis
