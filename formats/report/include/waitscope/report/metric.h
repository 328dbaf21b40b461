// Metric: one node of a report's metric tree (what is measured, in which unit, stored how).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace waitscope::report {

/// Index of a metric in Report::metrics() (dense, in the order metrics were added or read).
using MetricId = std::uint32_t;

/// Value type of a metric's severities. All supported types are 8 bytes wide in memory;
/// narrower CUBE integer types are widened when read.
enum class DataType {
    Double,    ///< "DOUBLE" (also read from its alias "FLOAT")
    Int64,     ///< "INT64" (also read from its alias "INTEGER")
    Uint64,    ///< "UINT64"
    MinDouble, ///< "MINDOUBLE": aggregates by minimum instead of sum
    MaxDouble, ///< "MAXDOUBLE": aggregates by maximum instead of sum
};

/// How a metric's stored values relate to the call tree (CUBE's metric "type").
enum class MetricKind {
    Exclusive,           ///< stored per call node without its callees
    Inclusive,           ///< stored per call node including its callees
    Simple,              ///< stored per call node, no call-tree relation (rows in id order)
    PostDerived,         ///< computed from other metrics after aggregation (CubePL)
    PrederivedInclusive, ///< computed from other metrics per value, inclusive (CubePL)
    PrederivedExclusive, ///< computed from other metrics per value, exclusive (CubePL)
};

/// Returns true for the derived kinds, whose values are computed and never stored.
bool isDerived(MetricKind kind);

/// Returns the CUBE spelling ("DOUBLE", "EXCLUSIVE", ...).
std::string_view toString(DataType type);
/// Returns the CUBE spelling ("DOUBLE", "EXCLUSIVE", ...).
std::string_view toString(MetricKind kind);
/// Parses a CUBE data type name (aliases FLOAT and INTEGER included); nullopt if unknown.
std::optional<DataType> parseDataType(std::string_view text);
/// Parses a CUBE metric type name; nullopt if unknown.
std::optional<MetricKind> parseMetricKind(std::string_view text);

/// One metric. A child metric is a part of its parent: a parent's value includes its children.
struct Metric {
    std::string uniqueName;  ///< Scalasca's unique name, e.g. "mpi_latesender"
    std::string displayName; ///< e.g. "Late Sender"
    DataType dataType = DataType::Double;
    std::string unit = "sec"; ///< "sec", "occ", "bytes", ...
    MetricKind kind = MetricKind::Exclusive;
    std::string description;
    std::string url;        ///< may contain CUBE's "@mirror@" placeholder
    std::string expression; ///< CubePL expression of a derived metric, empty otherwise
    bool ghost = false;     ///< CUBE viztype GHOST: stored but hidden in the GUI
    std::optional<MetricId> parent;
    std::vector<MetricId> children;
    /// False for a derived metric whose expression Waitscope cannot evaluate, or a metric whose
    /// data type is known to CUBE but not supported here; `unavailableReason` says why.
    bool available = true;
    std::string unavailableReason;
};

} // namespace waitscope::report
