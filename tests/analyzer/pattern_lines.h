// The diff tests' expected lines: the canonical text of a tiny trace's in-process analysis,
// restricted to the metrics under test, and the lines a test expects of it
// (pattern_diff_test.cpp, rma_pattern_test.cpp).
#pragma once

#include "tiny_trace.h"
#include "waitscope/analysis/canonical_text.h"
#include "waitscope/analysis/serial_analysis.h"

#include <cstdint>
#include <cstdio>
#include <set>
#include <sstream>
#include <string>

namespace waitscope::testing {

/// The canonical lines of the given metrics (and diagnostics when asked for "diagnostic").
inline std::string linesOf(const TinyTrace& trace, const std::set<std::string>& metrics,
                           const analysis::ReplayOptions& options = {}) {
    auto result = analysis::analyzeInProcess(trace.defs, trace.streams(), options);
    if (!result) {
        return "error: " + result.error().message() + "\n";
    }
    std::istringstream all(analysis::canonicalText(*result, trace.defs));
    std::string out, line;
    while (std::getline(all, line)) {
        if (metrics.count(line.substr(0, line.find('\t'))) != 0) {
            out += line + "\n";
        }
    }
    return out;
}

/// One expected line; the value is the difference of two millisecond timestamps in seconds,
/// computed as the analysis does.
inline std::string line(const std::string& metric, const std::string& path, uint32_t rank,
                        double later, double earlier) {
    char value[64];
    std::snprintf(value, sizeof value, "%.17g", later / 1000.0 - earlier / 1000.0);
    return metric + "\t" + path + "\t" + std::to_string(rank) + "\t" + value + "\n";
}

/// One expected line of a count.
inline std::string count(const std::string& metric, const std::string& path, uint32_t rank, int n) {
    return metric + "\t" + path + "\t" + std::to_string(rank) + "\t" + std::to_string(n) + "\n";
}

} // namespace waitscope::testing
