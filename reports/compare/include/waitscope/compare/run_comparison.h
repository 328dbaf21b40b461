// Run comparison: per metric and call path, the change from repeated runs before a change to
// repeated runs after it, and whether it exceeds the run-to-run noise (Welch's t-test).
#pragma once

#include <cstddef>
#include <ostream>
#include <span>
#include <string>
#include <vector>
#include <waitscope/base/result.h>
#include <waitscope/compare/welch_test.h>
#include <waitscope/report/report.h>

namespace waitscope::compare {

/// The change of one metric at one call path: exclusive along the call tree and along the
/// metric tree (so that a wait counted by a child metric is not repeated by its parents),
/// summed over all ranks.
struct Change {
    std::string metric; ///< unique name, e.g. "mpi_latesender"
    /// e.g. "Late Sender"; outside the first metric hierarchy followed by the hierarchy's
    /// name, e.g. "Late Sender (Terminal wait states)"
    std::string displayName;
    std::string unit;     ///< "sec", "occ", "bytes", ...
    std::string callPath; ///< e.g. "main/exchange_halo/MPI_Waitall"
    WelchResult test;
    bool significant = false; ///< tested and p < the chosen level
    /// A time changed by less than Comparison::negligibleSeconds: even if significant, it is
    /// too small to matter and is not listed.
    bool negligible = false;
    double change() const { return test.meanAfter - test.meanBefore; }
    /// Change relative to before, in percent (infinite if before is 0).
    double percent() const;
};

/// All changes of a comparison: times (unit "sec") first, then the other units, each the
/// largest absolute change first.
struct Comparison {
    std::size_t runsBefore = 0;
    std::size_t runsAfter = 0;
    double level = 0.05; ///< significance level of the test
    /// 0.1 % of the mean run time before (the total of the first metric hierarchy, when it
    /// is a time): smaller changes of times are negligible.
    double negligibleSeconds = 0;
    std::vector<Change> changes;
};

/// Compares the reports of the runs before and after. Metrics and call paths are matched by
/// unique name and path; a path missing in a run counts as 0. Derived metrics are skipped.
/// Fails on no reports on a side or unloadable data.
Result<Comparison> compareRuns(std::span<const report::Report* const> before,
                               std::span<const report::Report* const> after, double level = 0.05);

/// Prints the significant changes that are not negligible (at most `limit`), then the
/// largest changes within noise.
void printComparison(const Comparison& comparison, std::ostream& out, std::size_t limit = 20);
/// Writes the same as a standalone HTML page.
void writeComparisonHtml(const Comparison& comparison, std::ostream& out, std::size_t limit = 20);
/// One line for a change, e.g. "Late Sender at main/MPI_Recv: -0.84 s (-71 %), significant
/// over 5 runs each (p = 0.0001)"; a long call path is shortened (shortCallPath).
std::string describeChange(const Change& change, const Comparison& comparison);
/// A call path of more than six regions as its first region, "...", and its last four
/// ("python3.11/.../PyEval_EvalCode/_PyEval_EvalFrameDefault/PyObject_Free"): an interpreter's
/// or a sampled path is dozens of frames deep, and the last ones say where. Shorter paths are
/// returned as they are.
std::string shortCallPath(const std::string& path);

} // namespace waitscope::compare
