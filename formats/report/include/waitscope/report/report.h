// Report: the in-memory CUBE4 report model (metric, call and system trees, severities, queries).
//
// Build a report, write it, read it back and query it:
//
//     #include <waitscope/report/cubex_reader.h>
//     #include <waitscope/report/cubex_writer.h>
//     #include <waitscope/report/report.h>
//     using namespace waitscope::report;
//
//     Report report;
//     MetricId time = *report.addMetric("time");                 // names, units, descriptions
//     MetricId late = *report.addMetric("mpi_latesender", time); // come from share/metrics
//     RegionId mainRegion = *report.addRegion({.name = "main", .paradigm = "user"});
//     RegionId recv = *report.addRegion({.name = "MPI_Recv", .file = "MPI", .paradigm = "mpi"});
//     CallNodeId root = *report.addCallNode(mainRegion, std::nullopt);
//     CallNodeId call = *report.addCallNode(recv, root, 42);
//     SystemNodeId machine = *report.addMachine("cluster");
//     SystemNodeId node = *report.addNode(machine, "node0");
//     SystemNodeId rank0 = *report.addProcess(node, "MPI Rank 0", 0);
//     SystemNodeId thread = *report.addThread(rank0, "Master thread", 0);
//     LocationId loc = report.systemNodes()[thread].location;
//     (void)report.setSeverity(time, call, loc, 2.5); // time includes its child metrics
//     (void)report.setSeverity(late, call, loc, 2.0);
//     if (waitscope::Status s = writeCubex(report, "out.cubex"); !s) { /* s.error().message() */ }
//
//     waitscope::Result<Report> back = readCubex("out.cubex"); // data load on first use
//     waitscope::Result<double> v = back->value(late, root, machine, CallTreeMode::Inclusive,
//                                               SystemMode::Inclusive); // 2.0
//
// The writer numbers call nodes, metrics and locations in tree pre-order: a report built in
// pre-order (as above) reads back with the same ids; otherwise find nodes again by unique name
// (findMetric), call path (findCallPath) or rank (findProcess).
//
// Value semantics follow CUBE: a metric's stored values are exclusive or inclusive along the
// call tree according to its kind, and the other view is computed; a parent metric's value
// includes its children's; process, node and machine values aggregate their locations (sum,
// or min/max for MINDOUBLE/MAXDOUBLE). Queries are safe to call from several threads.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include <waitscope/base/result.h>
#include <waitscope/report/call_tree.h>
#include <waitscope/report/metric.h>
#include <waitscope/report/system_tree.h>

namespace waitscope::report {

/// Along the call tree: a call node with its callees (Inclusive) or without (Exclusive).
enum class CallTreeMode { Inclusive, Exclusive };
/// Along the system tree: a node with everything below it (Inclusive) or only its own data
/// (Exclusive; only locations hold data, so this is 0 for machines, nodes and processes).
enum class SystemMode { Inclusive, Exclusive };
/// Along the metric tree: a metric with its child metrics (Inclusive, the stored value) or
/// without them (Exclusive: own value minus the children's).
enum class MetricMode { Inclusive, Exclusive };

namespace detail {
class ReportAssembly;
class SeverityStorage;
} // namespace detail

/// A complete report. Movable, not copyable. Structure (trees) is built first, then severities
/// are set; a report read from a file loads a metric's data on first use.
class Report {
public:
    Report();
    ~Report();
    Report(Report&&) noexcept;
    Report& operator=(Report&&) noexcept;
    Report(const Report&) = delete;
    Report& operator=(const Report&) = delete;

    // ---- Building ---------------------------------------------------------------------------

    /// Adds a metric by Scalasca unique name below `parent` (a root if nullopt). Display name,
    /// unit, description and URL come from the shipped metric catalog (metric_catalog.h) when
    /// the name is known there, else the display name is the unique name and the unit "sec".
    /// The catalog's URLs point to documentationMirrors(), which become the report's mirrors
    /// if it has none yet.
    /// Fails if the name is empty or already used, or if `parent` does not exist.
    Result<MetricId> addMetric(const std::string& uniqueName,
                               std::optional<MetricId> parent = std::nullopt,
                               DataType type = DataType::Double,
                               MetricKind kind = MetricKind::Exclusive);
    /// Adds a fully described metric below `metric.parent`; `metric.children` is ignored.
    /// Fails like the overload above.
    Result<MetricId> addMetric(Metric metric);
    /// Adds a region. Fails if the name is empty.
    Result<RegionId> addRegion(Region region);
    /// Adds a call node calling `region` from `parent` (a root if nullopt) at call-site `line`.
    /// Fails if the region or parent does not exist.
    Result<CallNodeId> addCallNode(RegionId region, std::optional<CallNodeId> parent,
                                   int line = -1);
    /// Adds a machine (a root of the system tree).
    Result<SystemNodeId> addMachine(const std::string& name);
    /// Adds a node below a machine or node. Fails if `parent` is not a machine or node.
    Result<SystemNodeId> addNode(SystemNodeId parent, const std::string& name,
                                 const std::string& className = "node");
    /// Adds a process (MPI rank) below a machine or node. Fails if `parent` is not one.
    Result<SystemNodeId> addProcess(SystemNodeId parent, const std::string& name, std::int64_t rank,
                                    const std::string& type = "process");
    /// Adds a thread (a location, which holds values) below a process; its LocationId is the
    /// next free column. Fails if `process` is not a process, after severities were set, or
    /// for a report read from a file.
    Result<SystemNodeId> addThread(SystemNodeId process, const std::string& name,
                                   std::int64_t threadRank, const std::string& type = "thread");
    /// Sets (or replaces) a report attribute, kept in first-set order.
    void setAttribute(const std::string& key, const std::string& value);
    /// Adds a documentation mirror URL (CUBE replaces "@mirror@" in metric URLs with it).
    void addMirror(const std::string& url);
    /// Adds a Cartesian topology. Fails if a coordinate names a missing location or has the
    /// wrong number of dimensions.
    Status addTopology(CartTopology topology);

    /// Sets the stored value of (metric, call node, location), in the metric's convention
    /// (exclusive or inclusive along the call tree, per its kind). Integer metrics round.
    /// Fails on an id out of range or a derived metric.
    Status setSeverity(MetricId metric, CallNodeId cnode, LocationId location, double value);
    /// Adds to the stored value; fails like setSeverity.
    Status addSeverity(MetricId metric, CallNodeId cnode, LocationId location, double value);
    /// Sets an exact integer value (for INT64/UINT64 metrics); fails like setSeverity.
    Status setSeverityUint64(MetricId metric, CallNodeId cnode, LocationId location,
                             std::uint64_t value);
    /// Adds an exact integer value; fails like setSeverity.
    Status addSeverityUint64(MetricId metric, CallNodeId cnode, LocationId location,
                             std::uint64_t value);
    /// Sets an exact signed integer value; fails like setSeverity.
    Status setSeverityInt64(MetricId metric, CallNodeId cnode, LocationId location,
                            std::int64_t value);

    /// Sets the stored values of (metric, call node) for every location at once (`values`
    /// indexed by LocationId, size locations().size()); much faster than one call per value.
    /// Fails like setSeverity, or if `values` has the wrong size.
    Status setSeverityRow(MetricId metric, CallNodeId cnode, std::span<const double> values);
    /// Same for exact integer values (bit patterns for double metrics are not accepted: the
    /// values are converted). Fails like setSeverityRow.
    Status setSeverityRowUint64(MetricId metric, CallNodeId cnode,
                                std::span<const std::uint64_t> values);

    // ---- Structure --------------------------------------------------------------------------

    const std::vector<Metric>& metrics() const { return m_metrics; }
    const std::vector<Region>& regions() const { return m_regions; }
    const std::vector<CallNode>& callNodes() const { return m_callNodes; }
    const std::vector<SystemNode>& systemNodes() const { return m_systemNodes; }
    /// System node of each location, indexed by LocationId.
    const std::vector<SystemNodeId>& locations() const { return m_locations; }
    const std::vector<CartTopology>& topologies() const { return m_topologies; }
    const std::vector<std::pair<std::string, std::string>>& attributes() const {
        return m_attributes;
    }
    const std::vector<std::string>& mirrors() const { return m_mirrors; }

    /// Metrics without a parent, in order.
    std::vector<MetricId> rootMetrics() const;
    /// Call nodes without a parent, in order.
    std::vector<CallNodeId> rootCallNodes() const;
    /// System nodes without a parent, in order.
    std::vector<SystemNodeId> rootSystemNodes() const;

    /// The attribute's value, or nullopt if not set.
    std::optional<std::string> attribute(std::string_view key) const;
    /// The metric with this unique name, or nullopt.
    std::optional<MetricId> findMetric(std::string_view uniqueName) const;
    /// Region names from the root to `cnode` joined by '/', e.g. "prog/main/MPI_Recv".
    std::string callPath(CallNodeId cnode) const;
    /// The first call node whose callPath() equals `path`, or nullopt.
    std::optional<CallNodeId> findCallPath(std::string_view path) const;
    /// The process with this MPI rank, or nullopt.
    std::optional<SystemNodeId> findProcess(std::int64_t rank) const;

    // ---- Values -----------------------------------------------------------------------------

    /// The value of `metric` at `cnode` and `systemNode` in the given views. Loads the metric
    /// (and, for a derived metric, its operands) on first use. Fails on an id out of range, an
    /// unavailable metric, or data that turns out to be corrupt when loaded (the message names
    /// the file and member). Each call does work proportional to the locations (and, for an
    /// inclusive view of exclusively stored data, to the subtree): to fill a whole tree view,
    /// prefer callNodeValues() and locationValues().
    Result<double> value(MetricId metric, CallNodeId cnode, SystemNodeId systemNode,
                         CallTreeMode callMode, SystemMode systemMode,
                         MetricMode metricMode = MetricMode::Inclusive) const;
    /// Per-location values of `metric` at `cnode` (indexed by LocationId). Fails like value().
    Result<std::vector<double>> locationValues(MetricId metric, CallNodeId cnode,
                                               CallTreeMode callMode,
                                               MetricMode metricMode = MetricMode::Inclusive) const;
    /// Values of `metric` for every call node (indexed by CallNodeId), aggregated over all
    /// locations. Fails like value().
    Result<std::vector<double>> callNodeValues(MetricId metric, CallTreeMode callMode,
                                               MetricMode metricMode = MetricMode::Inclusive) const;
    /// The metric over the whole run: all call paths and all locations (for a summing metric
    /// the sum of exclusive values, which equals the roots' inclusive values). Reads only the
    /// root rows of an inclusive metric. Fails like value().
    Result<double> total(MetricId metric, MetricMode metricMode = MetricMode::Inclusive) const;
    /// The stored (not computed) value as its 8-byte integer bit pattern: the IEEE bits for
    /// double types, the two's complement for INT64. Fails like value() and for derived
    /// metrics. Used by the writer; most callers want value().
    Result<std::uint64_t> storedBits(MetricId metric, CallNodeId cnode, LocationId location) const;
    /// Reads the stored row of (metric, call node) as bit patterns (see storedBits) into `out`,
    /// which must hold locations().size() values; an absent row reads as zeros. Fails like
    /// storedBits().
    Status readStoredRow(MetricId metric, CallNodeId cnode, std::uint64_t* out) const;
    /// Loads the metric's data now (e.g. on a worker thread). Fails like value().
    Status load(MetricId metric) const;
    /// Whether any stored value of the metric's row at `cnode` is nonzero (rows absent from a
    /// sparse file are zero). Fails like load().
    Result<bool> hasStoredRow(MetricId metric, CallNodeId cnode) const;

private:
    // A reader assembles a report through detail::ReportAssembly, the writer reads the rows
    // through detail::SeverityStorage::of(): neither goes through the checks above.
    friend class detail::ReportAssembly;
    friend class detail::SeverityStorage;

    Status checkSeverityTarget(MetricId metric, CallNodeId cnode, LocationId location) const;
    /// The stored row of (metric, cnode) to write into, loaded and copied from a mapped table
    /// first; the target is checked.
    Result<std::uint64_t*> writableRow(MetricId metric, CallNodeId cnode);
    /// Stores a whole row of `values` (one per location), each encoded for the metric's type.
    template <class Value>
    Status setWholeRow(MetricId metric, CallNodeId cnode, std::span<const Value> values);
    /// Appends a metric/region/call node/system node without the checks (ids valid).
    MetricId appendMetricUnchecked(Metric metric);
    CallNodeId appendCallNodeUnchecked(CallNode node);
    RegionId appendRegionUnchecked(Region region);
    SystemNodeId appendSystemNodeUnchecked(SystemNode node);

    std::vector<Metric> m_metrics;
    std::map<std::string, MetricId, std::less<>> m_metricByName; ///< first metric of each name
    std::vector<Region> m_regions;
    std::vector<CallNode> m_callNodes;
    std::vector<SystemNode> m_systemNodes;
    std::vector<SystemNodeId> m_locations;
    std::vector<CartTopology> m_topologies;
    std::vector<std::pair<std::string, std::string>> m_attributes;
    std::vector<std::string> m_mirrors;
    std::unique_ptr<detail::SeverityStorage> m_storage;
};

} // namespace waitscope::report
