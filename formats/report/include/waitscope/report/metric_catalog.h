// MetricInfo: the descriptions of Scalasca's metrics that ship in share/waitscope/metrics.
#pragma once

#include <string>
#include <string_view>
#include <vector>
#include <waitscope/report/metric.h>

namespace waitscope::report {

/// What Waitscope says about one metric of the Scalasca metric tree.
struct MetricInfo {
    std::string uniqueName;  ///< e.g. "mpi_latesender"
    std::string displayName; ///< e.g. "Late Sender"
    std::string parent;      ///< unique name of the parent metric, empty for a root
    std::string unit;        ///< "sec", "occ", "bytes"
    DataType dataType = DataType::Double;
    bool derived = false; ///< a sum of its children in Scalasca's tree
    std::string description;
};

/// All metric descriptions, in metric-tree pre-order. Compiled into the library from the files
/// in share/metrics (the same files are installed to share/waitscope/metrics).
const std::vector<MetricInfo>& metricCatalog();

/// The description of `uniqueName`, or nullptr if the catalog does not know it.
const MetricInfo* findMetricInfo(std::string_view uniqueName);

/// The documentation mirrors that resolve the catalog's metric URLs
/// ("@mirror@scalasca_patterns.html#<name>"), first the preferred one.
const std::vector<std::string>& documentationMirrors();

} // namespace waitscope::report
