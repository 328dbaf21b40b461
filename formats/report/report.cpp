// Report: building the trees, storing severities and answering value queries.
#include "cubepl_evaluator.h"
#include "severity_storage.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <waitscope/report/metric_catalog.h>
#include <waitscope/report/report.h>

namespace waitscope::report {

using detail::Aggregate;
using detail::aggregateOf;
using detail::kNoRow;
using detail::MetricRows;
using detail::SeverityStorage;

Report::Report() : m_storage(std::make_unique<SeverityStorage>()) {}
Report::~Report() = default;
Report::Report(Report&&) noexcept = default;
Report& Report::operator=(Report&&) noexcept = default;

// ---- Building -------------------------------------------------------------------------------

Result<MetricId> Report::addMetric(const std::string& uniqueName, std::optional<MetricId> parent,
                                   DataType type, MetricKind kind) {
    Metric metric;
    metric.uniqueName = uniqueName;
    metric.displayName = uniqueName;
    metric.dataType = type;
    metric.kind = kind;
    metric.parent = parent;
    if (const MetricInfo* info = findMetricInfo(uniqueName)) {
        metric.displayName = info->displayName;
        metric.unit = info->unit;
        metric.description = info->description;
        metric.url = "@mirror@scalasca_patterns.html#" + uniqueName;
        if (m_mirrors.empty()) // so that "@mirror@" resolves in Cube and our GUI
            m_mirrors = documentationMirrors();
    }
    return addMetric(std::move(metric));
}

Result<MetricId> Report::addMetric(Metric metric) {
    if (metric.uniqueName.empty())
        return Error("metric with an empty unique name");
    if (findMetric(metric.uniqueName))
        return Error("metric '" + metric.uniqueName + "' added twice");
    if (metric.parent && *metric.parent >= m_metrics.size())
        return Error("metric '" + metric.uniqueName + "': parent id " +
                     std::to_string(*metric.parent) + " out of range");
    metric.children.clear();
    return appendMetricUnchecked(std::move(metric));
}

Result<RegionId> Report::addRegion(Region region) {
    if (region.name.empty())
        return Error("region with an empty name");
    return appendRegionUnchecked(std::move(region));
}

Result<CallNodeId> Report::addCallNode(RegionId region, std::optional<CallNodeId> parent,
                                       int line) {
    if (region >= m_regions.size())
        return Error("call node: region id " + std::to_string(region) + " out of range");
    if (parent && *parent >= m_callNodes.size())
        return Error("call node: parent id " + std::to_string(*parent) + " out of range");
    CallNode node;
    node.region = region;
    node.parent = parent;
    node.line = line;
    return appendCallNodeUnchecked(std::move(node));
}

namespace {
/// True when `id` is a machine or node, the system nodes that nodes and processes hang below.
bool holdsNodes(const std::vector<SystemNode>& nodes, SystemNodeId id) {
    return id < nodes.size() &&
           (nodes[id].kind == SystemKind::Machine || nodes[id].kind == SystemKind::Node);
}

/// A system node of `kind` named `name` below `parent` (a machine has none).
SystemNode systemNode(SystemKind kind, const std::string& name,
                      std::optional<SystemNodeId> parent) {
    SystemNode node;
    node.kind = kind;
    node.name = name;
    node.parent = parent;
    return node;
}

/// The error for the system node `what` named `name` whose `parent` is not `expected`.
Error wrongParent(const char* what, const std::string& name, SystemNodeId parent,
                  const char* expected) {
    return Error(std::string(what) + " '" + name + "': parent " + std::to_string(parent) +
                 " is not " + expected);
}
} // namespace

Result<SystemNodeId> Report::addMachine(const std::string& name) {
    SystemNode node = systemNode(SystemKind::Machine, name, std::nullopt);
    node.className = "machine";
    return appendSystemNodeUnchecked(std::move(node));
}

Result<SystemNodeId> Report::addNode(SystemNodeId parent, const std::string& name,
                                     const std::string& className) {
    if (!holdsNodes(m_systemNodes, parent))
        return wrongParent("system node", name, parent, "a machine or node");
    SystemNode node = systemNode(SystemKind::Node, name, parent);
    node.className = className;
    return appendSystemNodeUnchecked(std::move(node));
}

Result<SystemNodeId> Report::addProcess(SystemNodeId parent, const std::string& name,
                                        std::int64_t rank, const std::string& type) {
    if (!holdsNodes(m_systemNodes, parent))
        return wrongParent("process", name, parent, "a machine or node");
    SystemNode node = systemNode(SystemKind::Process, name, parent);
    node.type = type;
    node.rank = rank;
    return appendSystemNodeUnchecked(std::move(node));
}

Result<SystemNodeId> Report::addThread(SystemNodeId process, const std::string& name,
                                       std::int64_t threadRank, const std::string& type) {
    if (process >= m_systemNodes.size() || m_systemNodes[process].kind != SystemKind::Process)
        return wrongParent("thread", name, process, "a process");
    if (m_storage->anyValueSet() || m_storage->fileBacked())
        return Error("thread '" + name +
                     "': locations cannot be added after severities are set or read");
    SystemNode node = systemNode(SystemKind::Location, name, process);
    node.type = type;
    node.rank = threadRank;
    return appendSystemNodeUnchecked(std::move(node));
}

void Report::setAttribute(const std::string& key, const std::string& value) {
    for (auto& [k, v] : m_attributes) {
        if (k == key) {
            v = value;
            return;
        }
    }
    m_attributes.emplace_back(key, value);
}

void Report::addMirror(const std::string& url) {
    m_mirrors.push_back(url);
}

Status Report::addTopology(CartTopology topology) {
    for (const auto& [location, coords] : topology.coordinates) {
        if (location >= m_locations.size())
            return Error("topology '" + topology.name + "': location " + std::to_string(location) +
                         " out of range");
        if (coords.size() != topology.dimensions.size())
            return Error("topology '" + topology.name + "': location " + std::to_string(location) +
                         " has " + std::to_string(coords.size()) + " coordinates for " +
                         std::to_string(topology.dimensions.size()) + " dimensions");
    }
    m_topologies.push_back(std::move(topology));
    return Status::success();
}

MetricId Report::appendMetricUnchecked(Metric metric) {
    auto id = static_cast<MetricId>(m_metrics.size());
    if (metric.parent)
        m_metrics[*metric.parent].children.push_back(id);
    m_metricByName.emplace(metric.uniqueName, id);
    m_metrics.push_back(std::move(metric));
    return id;
}

CallNodeId Report::appendCallNodeUnchecked(CallNode node) {
    auto id = static_cast<CallNodeId>(m_callNodes.size());
    if (node.parent)
        m_callNodes[*node.parent].children.push_back(id);
    m_callNodes.push_back(std::move(node));
    return id;
}

RegionId Report::appendRegionUnchecked(Region region) {
    m_regions.push_back(std::move(region));
    return static_cast<RegionId>(m_regions.size() - 1);
}

SystemNodeId Report::appendSystemNodeUnchecked(SystemNode node) {
    auto id = static_cast<SystemNodeId>(m_systemNodes.size());
    if (node.kind == SystemKind::Location) {
        node.location = static_cast<LocationId>(m_locations.size());
        m_locations.push_back(id);
    }
    if (node.parent)
        m_systemNodes[*node.parent].children.push_back(id);
    m_systemNodes.push_back(std::move(node));
    return id;
}

// ---- Severities -----------------------------------------------------------------------------

Status Report::checkSeverityTarget(MetricId metric, CallNodeId cnode, LocationId location) const {
    if (metric >= m_metrics.size())
        return Error("severity: metric id " + std::to_string(metric) + " out of range");
    if (isDerived(m_metrics[metric].kind))
        return Error("severity: metric '" + m_metrics[metric].uniqueName +
                     "' is derived and stores no values");
    if (cnode >= m_callNodes.size())
        return Error("severity: call node id " + std::to_string(cnode) + " out of range");
    if (location >= m_locations.size())
        return Error("severity: location id " + std::to_string(location) + " out of range");
    return Status::success();
}

namespace {

bool isFloating(DataType type) {
    return type == DataType::Double || type == DataType::MinDouble || type == DataType::MaxDouble;
}

std::uint64_t encode(DataType type, double value) {
    switch (type) {
    case DataType::Int64:
        return static_cast<std::uint64_t>(static_cast<std::int64_t>(std::llround(value)));
    case DataType::Uint64:
        return value <= 0 ? 0 : static_cast<std::uint64_t>(std::llround(value));
    default:
        return std::bit_cast<std::uint64_t>(value);
    }
}

// Makes a mapped (read-only) table writable by copying its rows into owned cells.
void materialize(MetricRows& rows, std::size_t width) {
    if (!rows.mapped)
        return;
    std::size_t rowCount = 0;
    for (std::uint32_t r : rows.rowOf)
        if (r != kNoRow)
            rowCount = std::max<std::size_t>(rowCount, r + 1);
    MetricRows copy;
    copy.rowOf = rows.rowOf;
    copy.cells.resize(rowCount * width);
    for (CallNodeId c = 0; c < rows.rowOf.size(); ++c)
        if (rows.rowOf[c] != kNoRow)
            SeverityStorage::readRow(rows, c, copy.cells.data() + rows.rowOf[c] * width, width);
    rows = std::move(copy);
}

} // namespace

Status Report::setSeverity(MetricId metric, CallNodeId cnode, LocationId location, double value) {
    if (Status s = checkSeverityTarget(metric, cnode, location); !s)
        return s;
    return setSeverityUint64(metric, cnode, location, encode(m_metrics[metric].dataType, value));
}

Result<std::uint64_t*> Report::writableRow(MetricId metric, CallNodeId cnode) {
    if (auto loaded = m_storage->rows(metric, m_locations.size()); !loaded)
        return loaded.error();
    MetricRows& rows = m_storage->mutableRows(metric);
    materialize(rows, m_locations.size());
    return SeverityStorage::writableRow(rows, cnode, m_locations.size());
}

Status Report::addSeverity(MetricId metric, CallNodeId cnode, LocationId location, double value) {
    if (Status s = checkSeverityTarget(metric, cnode, location); !s)
        return s;
    DataType type = m_metrics[metric].dataType;
    if (!isFloating(type))
        return addSeverityUint64(metric, cnode, location, encode(type, value));
    auto row = writableRow(metric, cnode);
    if (!row)
        return row.error();
    std::uint64_t& cell = (*row)[location];
    cell = std::bit_cast<std::uint64_t>(std::bit_cast<double>(cell) + value);
    return Status::success();
}

Status Report::setSeverityUint64(MetricId metric, CallNodeId cnode, LocationId location,
                                 std::uint64_t value) {
    if (Status s = checkSeverityTarget(metric, cnode, location); !s)
        return s;
    auto row = writableRow(metric, cnode);
    if (!row)
        return row.error();
    (*row)[location] = value;
    return Status::success();
}

Status Report::addSeverityUint64(MetricId metric, CallNodeId cnode, LocationId location,
                                 std::uint64_t value) {
    if (Status s = checkSeverityTarget(metric, cnode, location); !s)
        return s;
    if (isFloating(m_metrics[metric].dataType))
        return addSeverity(metric, cnode, location, static_cast<double>(value));
    auto row = writableRow(metric, cnode);
    if (!row)
        return row.error();
    (*row)[location] += value; // two's complement: also right for INT64
    return Status::success();
}

Status Report::setSeverityInt64(MetricId metric, CallNodeId cnode, LocationId location,
                                std::int64_t value) {
    if (Status s = checkSeverityTarget(metric, cnode, location); !s)
        return s;
    if (isFloating(m_metrics[metric].dataType))
        return setSeverity(metric, cnode, location, static_cast<double>(value));
    return setSeverityUint64(metric, cnode, location, static_cast<std::uint64_t>(value));
}

namespace {
// A stored cell for `value` in a metric of `type`: integers stay as they are unless the metric
// is floating.
std::uint64_t encodeCell(DataType type, double value) {
    return encode(type, value);
}
std::uint64_t encodeCell(DataType type, std::uint64_t value) {
    return isFloating(type) ? encode(type, static_cast<double>(value)) : value;
}
} // namespace

template <class Value>
Status Report::setWholeRow(MetricId metric, CallNodeId cnode, std::span<const Value> values) {
    if (Status s = checkSeverityTarget(metric, cnode, 0); !s)
        return s;
    if (values.size() != m_locations.size())
        return Error("severity row: " + std::to_string(values.size()) + " values for " +
                     std::to_string(m_locations.size()) + " locations");
    auto row = writableRow(metric, cnode);
    if (!row)
        return row.error();
    const DataType type = m_metrics[metric].dataType;
    for (std::size_t l = 0; l < values.size(); ++l)
        (*row)[l] = encodeCell(type, values[l]);
    return Status::success();
}

Status Report::setSeverityRow(MetricId metric, CallNodeId cnode, std::span<const double> values) {
    return setWholeRow(metric, cnode, values);
}

Status Report::setSeverityRowUint64(MetricId metric, CallNodeId cnode,
                                    std::span<const std::uint64_t> values) {
    return setWholeRow(metric, cnode, values);
}

// ---- Structure queries ----------------------------------------------------------------------

namespace {

// The ids of the nodes without a parent, in id order.
template <class Id, class Node> std::vector<Id> parentless(const std::vector<Node>& nodes) {
    std::vector<Id> roots;
    for (Id id = 0; id < nodes.size(); ++id)
        if (!nodes[id].parent)
            roots.push_back(id);
    return roots;
}

} // namespace

std::vector<MetricId> Report::rootMetrics() const {
    return parentless<MetricId>(m_metrics);
}

std::vector<CallNodeId> Report::rootCallNodes() const {
    return parentless<CallNodeId>(m_callNodes);
}

std::vector<SystemNodeId> Report::rootSystemNodes() const {
    return parentless<SystemNodeId>(m_systemNodes);
}

std::optional<std::string> Report::attribute(std::string_view key) const {
    for (const auto& [k, v] : m_attributes)
        if (k == key)
            return v;
    return std::nullopt;
}

std::optional<MetricId> Report::findMetric(std::string_view uniqueName) const {
    if (auto it = m_metricByName.find(uniqueName); it != m_metricByName.end())
        return it->second;
    return std::nullopt;
}

std::string Report::callPath(CallNodeId cnode) const {
    if (cnode >= m_callNodes.size())
        return {};
    std::vector<CallNodeId> chain;
    for (std::optional<CallNodeId> c = cnode; c && chain.size() <= m_callNodes.size();
         c = m_callNodes[*c].parent)
        chain.push_back(*c);
    std::string path;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        if (!path.empty())
            path += '/';
        path += m_regions[m_callNodes[*it].region].name;
    }
    return path;
}

std::optional<CallNodeId> Report::findCallPath(std::string_view path) const {
    // Descends from the roots one component at a time: linear in the nodes visited, however
    // deep the tree (building every node's path string would be quadratic).
    auto nameOf = [this](CallNodeId c) -> std::string_view {
        RegionId r = m_callNodes[c].region;
        return r < m_regions.size() ? std::string_view(m_regions[r].name) : std::string_view();
    };
    std::vector<CallNodeId> level = rootCallNodes();
    std::vector<CallNodeId> next;
    std::size_t pos = 0;
    for (;;) {
        std::size_t end = path.find('/', pos);
        std::string_view part =
            path.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
        next.clear();
        for (CallNodeId c : level)
            if (nameOf(c) == part)
                next.push_back(c);
        if (next.empty())
            return std::nullopt;
        if (end == std::string_view::npos)
            return *std::min_element(next.begin(), next.end());
        level.clear();
        for (CallNodeId c : next)
            level.insert(level.end(), m_callNodes[c].children.begin(),
                         m_callNodes[c].children.end());
        pos = end + 1;
    }
}

std::optional<SystemNodeId> Report::findProcess(std::int64_t rank) const {
    for (SystemNodeId s = 0; s < m_systemNodes.size(); ++s)
        if (m_systemNodes[s].kind == SystemKind::Process && m_systemNodes[s].rank == rank)
            return s;
    return std::nullopt;
}

// ---- Values ---------------------------------------------------------------------------------
//
// Every query reduces to one of two shapes: per-location values at one call node, or per-call
// node values summed over all locations. Each is computed for a stored metric from its rows
// (converting between the stored and the requested call-tree view), for a derived metric as a
// linear combination of its operands, and for the metric-exclusive view as the metric minus
// its child metrics.

namespace {

double aggregateValues(DataType type, const std::vector<double>& values,
                       const std::vector<LocationId>& which) {
    Aggregate agg = aggregateOf(type);
    double acc = 0.0;
    bool first = true;
    for (LocationId l : which) {
        double v = values[l];
        if (agg == Aggregate::Sum)
            acc += v;
        else if (first)
            acc = v;
        else
            acc = agg == Aggregate::Min ? std::min(acc, v) : std::max(acc, v);
        first = false;
    }
    return acc;
}

} // namespace

Result<std::vector<double>> Report::locationValues(MetricId metric, CallNodeId cnode,
                                                   CallTreeMode callMode,
                                                   MetricMode metricMode) const {
    if (cnode >= m_callNodes.size())
        return Error("call node id " + std::to_string(cnode) + " out of range");
    detail::CubePLEvaluator evaluator(*this, *m_storage);
    return evaluator.atNode(metric, cnode, callMode, metricMode);
}

Result<std::vector<double>> Report::callNodeValues(MetricId metric, CallTreeMode callMode,
                                                   MetricMode metricMode) const {
    detail::CubePLEvaluator evaluator(*this, *m_storage);
    return evaluator.perNode(metric, callMode, metricMode);
}

Result<double> Report::value(MetricId metric, CallNodeId cnode, SystemNodeId systemNode,
                             CallTreeMode callMode, SystemMode systemMode,
                             MetricMode metricMode) const {
    if (systemNode >= m_systemNodes.size())
        return Error("system node id " + std::to_string(systemNode) + " out of range");
    auto values = locationValues(metric, cnode, callMode, metricMode);
    if (!values)
        return values.error();
    std::vector<LocationId> which;
    if (systemMode == SystemMode::Exclusive) {
        if (m_systemNodes[systemNode].kind == SystemKind::Location)
            which.push_back(m_systemNodes[systemNode].location);
    } else {
        std::vector<SystemNodeId> stack{systemNode};
        while (!stack.empty()) {
            SystemNodeId s = stack.back();
            stack.pop_back();
            if (m_systemNodes[s].kind == SystemKind::Location)
                which.push_back(m_systemNodes[s].location);
            for (SystemNodeId child : m_systemNodes[s].children)
                stack.push_back(child);
        }
    }
    return aggregateValues(m_metrics[metric].dataType, *values, which);
}

Result<double> Report::total(MetricId metric, MetricMode metricMode) const {
    if (metric >= m_metrics.size())
        return Error("metric id " + std::to_string(metric) + " out of range");
    std::vector<LocationId> all(m_locations.size());
    for (LocationId l = 0; l < all.size(); ++l)
        all[l] = l;
    DataType type =
        isDerived(m_metrics[metric].kind) ? DataType::Double : m_metrics[metric].dataType;
    std::vector<double> perRoot;
    for (CallNodeId root : rootCallNodes()) {
        auto values = locationValues(metric, root, CallTreeMode::Inclusive, metricMode);
        if (!values)
            return values.error();
        perRoot.push_back(aggregateValues(type, *values, all));
    }
    std::vector<LocationId> roots(perRoot.size());
    for (LocationId i = 0; i < roots.size(); ++i)
        roots[i] = i;
    return aggregateValues(type, perRoot, roots);
}

Result<std::uint64_t> Report::storedBits(MetricId metric, CallNodeId cnode,
                                         LocationId location) const {
    if (metric >= m_metrics.size() || cnode >= m_callNodes.size() || location >= m_locations.size())
        return Error("stored value: id out of range");
    if (isDerived(m_metrics[metric].kind))
        return Error("metric '" + m_metrics[metric].uniqueName + "' is derived");
    auto rows = m_storage->rows(metric, m_locations.size());
    if (!rows)
        return rows.error();
    std::vector<std::uint64_t> buffer(m_locations.size());
    SeverityStorage::readRow(**rows, cnode, buffer.data(), buffer.size());
    return buffer[location];
}

Status Report::readStoredRow(MetricId metric, CallNodeId cnode, std::uint64_t* out) const {
    if (metric >= m_metrics.size() || cnode >= m_callNodes.size())
        return Error("stored row: id out of range");
    if (isDerived(m_metrics[metric].kind))
        return Error("metric '" + m_metrics[metric].uniqueName + "' is derived");
    auto rows = m_storage->rows(metric, m_locations.size());
    if (!rows)
        return rows.error();
    SeverityStorage::readRow(**rows, cnode, out, m_locations.size());
    return Status::success();
}

Status Report::load(MetricId metric) const {
    if (metric >= m_metrics.size())
        return Error("metric id " + std::to_string(metric) + " out of range");
    auto rows = m_storage->rows(metric, m_locations.size());
    if (!rows)
        return rows.error();
    return Status::success();
}

Result<bool> Report::hasStoredRow(MetricId metric, CallNodeId cnode) const {
    if (metric >= m_metrics.size() || cnode >= m_callNodes.size())
        return Error("stored row: id out of range");
    auto rows = m_storage->rows(metric, m_locations.size());
    if (!rows)
        return rows.error();
    const MetricRows& r = **rows;
    return cnode < r.rowOf.size() && r.rowOf[cnode] != kNoRow;
}

} // namespace waitscope::report
