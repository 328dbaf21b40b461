// Report algebra: the difference, mean and merge of reports, as Cube's cube_diff, cube_mean and
// cube_merge compute them, with the trees of the inputs unified by name and call path.
//
//     Result<AlgebraResult> d = diffReports(after, before); // after − before, per value
//     if (d && !d->ranksAligned) { /* values are whole-program sums in one location */ }
//     (void)writeCubex(d->report, "diff.cubex");
//
// Unification: metrics by unique name (a metric's parent by its parent's unique name), regions
// by name, call nodes by the path of region names from the root (call-site lines are kept from
// the first report holding the path), locations by (MPI rank, thread number). Derived metrics
// are left out (their operands are combined; a derived value of a difference is not the
// difference of derived values in general).
//
// When the inputs do not have the same locations (different rank counts), per-rank values do
// not align: the result then has one location, "whole program", holding each input's value
// over all its locations (sum, or min/max for MINDOUBLE/MAXDOUBLE), and `ranksAligned` is false.
#pragma once

#include <span>
#include <string>
#include <vector>
#include <waitscope/base/result.h>
#include <waitscope/report/report.h>

namespace waitscope::report {

/// The combined report and what the caller should tell the user about it.
struct AlgebraResult {
    Report report;
    /// True when every input had the same locations, so that per-rank values correspond.
    bool ranksAligned = true;
    /// Sentences for the user, e.g. why per-rank values do not align.
    std::vector<std::string> notes;
};

/// `minuend` − `subtrahend` for every metric, call path and location (a value missing on one
/// side counts as 0). Every metric of the result has data type DOUBLE (a difference of counts
/// may be negative). Fails only if a metric's data cannot be loaded.
Result<AlgebraResult> diffReports(const Report& minuend, const Report& subtrahend);

/// The arithmetic mean of the reports' values (a value missing in a report counts as 0);
/// integer metrics become DOUBLE. Fails on an empty list or unloadable data.
Result<AlgebraResult> meanReports(std::span<const Report* const> reports);

/// Each of `minuend` and `subtrahend` on the trees of their difference: `first` is the minuend's
/// values, `second` the subtrahend's, and `difference` what diffReports gives; metric, call node
/// and system node ids are the same in all three, so that a viewer can show a node's value in
/// each report next to its difference. With different rank counts all three hold whole-program
/// values in the one location.
struct AlignedPair {
    Report first;
    Report second;
    Report difference;
    bool ranksAligned = true;
    std::vector<std::string> notes; ///< as in AlgebraResult
};
/// Computes the AlignedPair of two reports (data types DOUBLE as in diffReports). Fails only if
/// a metric's data cannot be loaded.
Result<AlignedPair> alignReports(const Report& minuend, const Report& subtrahend);

/// One report with the metrics of all: a metric present in several reports takes its values
/// from the first report holding it (metric data types are kept). Use it to put the metrics of
/// several experiments of one program (say a profile and a trace analysis) side by side.
/// Fails on an empty list or unloadable data.
Result<AlgebraResult> mergeReports(std::span<const Report* const> reports);

} // namespace waitscope::report
