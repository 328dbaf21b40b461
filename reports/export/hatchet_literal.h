// Hatchet literal export: a report's call tree with every metric as the JSON list of nested
// nodes that Hatchet's GraphFrame.from_literal (and Thicket through it) reads into pandas.
#pragma once

#include <ostream>
#include <waitscope/base/result.h>
#include <waitscope/report/report.h>

namespace waitscope::exporter {

/// What goes into the export besides the call tree.
struct HatchetOptions {
    /// Also one exclusive column per metric and MPI rank, "METRIC [rank R]".
    bool perRank = false;
};

/// Writes `report` as a Hatchet literal: a JSON list with one object per call-tree root, each
/// node {"frame": {"name": REGION, "type": "function"}, "metrics": {...}, "children": [...]}.
/// Every node has the same metric keys: per stored metric (derived ones are left out) its
/// unique name with the value exclusive along the call tree and "NAME (inc)" inclusive, both
/// summed over all locations and including child metrics (as Cube shows a metric). Hatchet
/// takes the keys with "(inc)" as its inclusive metrics. Fails on unloadable metric data.
Status writeHatchetLiteral(const report::Report& report, std::ostream& out,
                           const HatchetOptions& options = {});

} // namespace waitscope::exporter
