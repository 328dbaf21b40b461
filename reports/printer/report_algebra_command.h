// `waitscope report diff|mean|merge`: writes the difference, mean or merge of reports.
#pragma once

#include <string>
#include <vector>

namespace waitscope::report {

/// Whether `command` is one of diff, mean, merge.
bool isAlgebraCommand(const std::string& command);

/// Runs `command` on `inputs` (reports or experiment directories; two for diff, one or more
/// otherwise) and writes the result to `output`; prints what it wrote to stdout and notes and
/// errors to stderr. Returns the exit status.
int runAlgebraCommand(const std::string& command, const std::vector<std::string>& inputs,
                      const std::string& output);

/// The report of `path`: the file itself, or an experiment directory's report.cubex (its
/// profile.cubex when it has no analysis report).
std::string reportFileOf(const std::string& path);

} // namespace waitscope::report
