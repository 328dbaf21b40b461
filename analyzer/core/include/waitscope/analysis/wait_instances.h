// The wait-state instances file beside the report: every instance of every pattern with its
// rank, call path and interval, for the timeline and the exports to draw where waiting happened.
#pragma once

#include "waitscope/analysis/analysis_result.h"
#include "waitscope/base/result.h"

#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace waitscope::analysis {

/// The file's name in the experiment directory.
inline constexpr const char* kWaitInstancesFile = "instances.txt";

/// Writes every instance of `result` to `path` as text: two comment lines, then one line per
/// instance "pattern rank cnode enter exit severity" (pattern by its metric's unique name,
/// cnode as in report.cubex, times and severity in seconds on the analyzed trace clock), by
/// pattern in metric order, then rank, then enter time.
Status writeWaitInstances(const AnalysisResult& result, const std::string& path);

/// Whether `a` comes before `b` in the text file's order: pattern (metric order), rank, enter.
/// The file keeps the order given among instances equal in these.
bool instanceTextBefore(const PatternInstance& a, const PatternInstance& b);

/// Writes the text file from instances handed over in its order (instanceTextBefore()), a
/// line each, without holding them. Errors name the file.
class WaitInstancesWriter {
public:
    static Result<WaitInstancesWriter> create(const std::string& path);
    /// Appends the line of the next instance.
    void add(const PatternInstance& instance);
    /// Closes the file; fails when any line could not be written.
    Status finish();

private:
    WaitInstancesWriter() = default;
    struct CloseFile {
        void operator()(FILE* file) const;
    };
    std::string m_path;
    std::unique_ptr<FILE, CloseFile> m_file;
};

/// The part of the instance's call that waited: the end of the call for the completion
/// patterns (waiting for the last rank to leave), its start for all others.
std::pair<double, double> waitingInterval(const PatternInstance& instance);

/// Reads a file written by writeWaitInstances; errors name the file and line.
Result<std::vector<PatternInstance>> readWaitInstances(const std::string& path);

} // namespace waitscope::analysis
