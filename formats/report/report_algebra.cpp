// Report algebra: combines reports value by value after unifying their trees by name.
#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>
#include <waitscope/report/report_algebra.h>

namespace waitscope::report {
namespace {

/// How the values of several reports make one.
enum class Combine {
    Weighted, ///< sum of weight × value (difference, mean)
    First,    ///< the value of the first report holding the metric (merge)
};

/// The key of a location across reports: (MPI rank of its process, thread number).
using LocationKey = std::pair<std::int64_t, std::int64_t>;

std::vector<LocationKey> locationKeys(const Report& report) {
    std::vector<LocationKey> keys;
    keys.reserve(report.locations().size());
    for (SystemNodeId nodeId : report.locations()) {
        const SystemNode& node = report.systemNodes()[nodeId];
        const std::int64_t rank =
            node.parent ? report.systemNodes()[*node.parent].rank : std::int64_t{0};
        keys.emplace_back(rank, node.rank);
    }
    return keys;
}

/// Node ids of a tree in pre-order, given its roots and a children accessor.
template <typename Id, typename Children>
std::vector<Id> preOrder(const std::vector<Id>& roots, Children children) {
    std::vector<Id> order;
    std::vector<Id> stack(roots.rbegin(), roots.rend());
    while (!stack.empty()) {
        const Id id = stack.back();
        stack.pop_back();
        order.push_back(id);
        const auto& kids = children(id);
        stack.insert(stack.end(), kids.rbegin(), kids.rend());
    }
    return order;
}

/// Builds the combined report: the unified trees first, then the values.
class Combiner {
public:
    Combiner(std::span<const Report* const> inputs, std::vector<double> weights, Combine mode,
             bool doubleValues)
        : m_inputs(inputs), m_weights(std::move(weights)), m_mode(mode),
          m_doubleValues(doubleValues) {}

    Result<AlgebraResult> run() {
        unifyMetrics();
        unifyCallTrees();
        unifySystemTrees();
        copyAttributes();
        if (Status s = combineValues(); !s)
            return s.error();
        AlgebraResult result{std::move(m_out), m_aligned, std::move(m_notes)};
        return result;
    }

private:
    void unifyMetrics() {
        // A metric stored exclusively in one report and inclusively in another is combined
        // in the exclusive view.
        std::map<std::string, std::set<MetricKind>> kinds;
        for (const Report* in : m_inputs)
            for (const Metric& metric : in->metrics())
                kinds[metric.uniqueName].insert(metric.kind);
        m_metricMaps.resize(m_inputs.size());
        for (std::size_t r = 0; r < m_inputs.size(); ++r) {
            const Report& in = *m_inputs[r];
            m_metricMaps[r].assign(in.metrics().size(), std::nullopt);
            const auto order = preOrder<MetricId>(in.rootMetrics(),
                                                  [&](MetricId id) -> const std::vector<MetricId>& {
                                                      return in.metrics()[id].children;
                                                  });
            for (MetricId id : order) {
                const Metric& metric = in.metrics()[id];
                if (isDerived(metric.kind) || !metric.available)
                    continue;
                if (auto known = m_out.findMetric(metric.uniqueName)) {
                    m_metricMaps[r][id] = *known;
                    continue;
                }
                Metric copy = metric;
                copy.children.clear();
                copy.parent.reset();
                if (kinds[metric.uniqueName].size() > 1)
                    copy.kind = MetricKind::Exclusive;
                if (metric.parent)
                    copy.parent = m_out.findMetric(in.metrics()[*metric.parent].uniqueName);
                // A difference is DOUBLE throughout; a mean of integers is a fraction.
                const bool integer =
                    copy.dataType == DataType::Int64 || copy.dataType == DataType::Uint64;
                if (m_doubleValues || (m_mode == Combine::Weighted && integer))
                    copy.dataType = DataType::Double;
                auto added = m_out.addMetric(std::move(copy));
                if (!added)
                    continue; // cannot happen: the name is new and the parent exists
                m_metricMaps[r][id] = *added;
                m_owner.push_back(r);
            }
        }
    }

    void unifyCallTrees() {
        std::map<std::string, RegionId> regions;
        std::map<std::pair<std::int64_t, RegionId>, CallNodeId> nodes;
        m_cnodeMaps.resize(m_inputs.size());
        for (std::size_t r = 0; r < m_inputs.size(); ++r) {
            const Report& in = *m_inputs[r];
            m_cnodeMaps[r].assign(in.callNodes().size(), 0);
            const auto order = preOrder<CallNodeId>(
                in.rootCallNodes(), [&](CallNodeId id) -> const std::vector<CallNodeId>& {
                    return in.callNodes()[id].children;
                });
            for (CallNodeId id : order) {
                const CallNode& node = in.callNodes()[id];
                const Region& region = in.regions()[node.region];
                auto [regionIt, newRegion] = regions.try_emplace(region.name, 0);
                if (newRegion)
                    regionIt->second = *m_out.addRegion(region);
                const std::int64_t parent =
                    node.parent ? std::int64_t{m_cnodeMaps[r][*node.parent]} : -1;
                auto [nodeIt, newNode] = nodes.try_emplace({parent, regionIt->second}, 0);
                if (newNode) {
                    std::optional<CallNodeId> outParent;
                    if (node.parent)
                        outParent = m_cnodeMaps[r][*node.parent];
                    nodeIt->second = *m_out.addCallNode(regionIt->second, outParent, node.line);
                }
                m_cnodeMaps[r][id] = nodeIt->second;
            }
        }
    }

    void unifySystemTrees() {
        std::vector<LocationKey> first = locationKeys(*m_inputs[0]);
        std::vector<LocationKey> sortedFirst = first;
        std::sort(sortedFirst.begin(), sortedFirst.end());
        for (std::size_t r = 1; r < m_inputs.size() && m_aligned; ++r) {
            std::vector<LocationKey> keys = locationKeys(*m_inputs[r]);
            std::sort(keys.begin(), keys.end());
            m_aligned =
                keys == sortedFirst && std::adjacent_find(keys.begin(), keys.end()) == keys.end();
        }
        m_locationMaps.resize(m_inputs.size());
        if (!m_aligned) {
            const SystemNodeId machine = *m_out.addMachine("whole program");
            const SystemNodeId process = *m_out.addProcess(machine, "all ranks", 0);
            (void)m_out.addThread(process, "all locations", 0);
            std::string counts;
            for (std::size_t r = 0; r < m_inputs.size(); ++r) {
                std::set<std::int64_t> ranks;
                for (const LocationKey& key : locationKeys(*m_inputs[r]))
                    ranks.insert(key.first);
                counts += (r ? ", " : "") + std::to_string(ranks.size());
                m_locationMaps[r].assign(m_inputs[r]->locations().size(), 0);
            }
            m_notes.push_back("the reports have different locations (ranks: " + counts +
                              "): per-rank values do not align, so each call path is compared "
                              "over the whole program (one location, \"all locations\")");
            return;
        }
        // Copy the first report's system tree; map every report's locations by key.
        const Report& in = *m_inputs[0];
        std::map<LocationKey, LocationId> byKey;
        std::vector<SystemNodeId> outIds(in.systemNodes().size(), 0);
        const auto order = preOrder<SystemNodeId>(
            in.rootSystemNodes(), [&](SystemNodeId id) -> const std::vector<SystemNodeId>& {
                return in.systemNodes()[id].children;
            });
        for (SystemNodeId id : order) {
            const SystemNode& node = in.systemNodes()[id];
            const SystemNodeId parent = node.parent ? outIds[*node.parent] : 0;
            Result<SystemNodeId> added = Error("unreachable");
            switch (node.kind) {
            case SystemKind::Machine:
                added = m_out.addMachine(node.name);
                break;
            case SystemKind::Node:
                added = m_out.addNode(parent, node.name, node.className);
                break;
            case SystemKind::Process:
                added = m_out.addProcess(parent, node.name, node.rank, node.type);
                break;
            case SystemKind::Location:
                added = m_out.addThread(parent, node.name, node.rank, node.type);
                break;
            }
            outIds[id] = added ? *added : 0;
            if (added && node.kind == SystemKind::Location) {
                const std::int64_t rank = in.systemNodes()[*node.parent].rank;
                byKey[{rank, node.rank}] = m_out.systemNodes()[*added].location;
            }
        }
        for (std::size_t r = 0; r < m_inputs.size(); ++r) {
            const auto keys = locationKeys(*m_inputs[r]);
            m_locationMaps[r].resize(keys.size());
            for (std::size_t l = 0; l < keys.size(); ++l)
                m_locationMaps[r][l] = byKey[keys[l]];
        }
    }

    void copyAttributes() {
        for (const auto& [key, value] : m_inputs[0]->attributes())
            m_out.setAttribute(key, value);
        for (const std::string& mirror : m_inputs[0]->mirrors())
            m_out.addMirror(mirror);
    }

    /// Folds all locations of a row into one value by the metric's aggregation.
    static double aggregate(DataType type, const std::vector<double>& row) {
        if (row.empty())
            return 0;
        if (type == DataType::MinDouble)
            return *std::min_element(row.begin(), row.end());
        if (type == DataType::MaxDouble)
            return *std::max_element(row.begin(), row.end());
        double sum = 0;
        for (double v : row)
            sum += v;
        return sum;
    }

    Status combineValues() {
        const std::size_t columns = m_out.locations().size();
        for (MetricId out = 0; out < m_out.metrics().size(); ++out) {
            const MetricKind kind = m_out.metrics()[out].kind;
            const CallTreeMode mode =
                kind == MetricKind::Inclusive ? CallTreeMode::Inclusive : CallTreeMode::Exclusive;
            std::vector<std::vector<double>> rows(m_out.callNodes().size());
            for (std::size_t r = 0; r < m_inputs.size(); ++r) {
                if (m_mode == Combine::First && m_owner[out] != r)
                    continue;
                const Report& in = *m_inputs[r];
                std::optional<MetricId> source;
                for (MetricId id = 0; id < in.metrics().size(); ++id)
                    if (m_metricMaps[r][id] == out)
                        source = id;
                if (!source)
                    continue;
                const Metric& metric = in.metrics()[*source];
                const bool sameView = metric.kind == kind || metric.kind == MetricKind::Simple;
                for (CallNodeId cnode = 0; cnode < in.callNodes().size(); ++cnode) {
                    if (sameView) {
                        auto stored = in.hasStoredRow(*source, cnode);
                        if (!stored)
                            return stored.error();
                        if (!*stored)
                            continue;
                    }
                    auto values = in.locationValues(*source, cnode, mode);
                    if (!values)
                        return values.error();
                    std::vector<double>& row = rows[m_cnodeMaps[r][cnode]];
                    if (row.empty())
                        row.assign(columns, 0.0);
                    const double weight = m_mode == Combine::First ? 1.0 : m_weights[r];
                    if (!m_aligned) {
                        row[0] += weight * aggregate(metric.dataType, *values);
                        continue;
                    }
                    for (std::size_t l = 0; l < values->size(); ++l)
                        row[m_locationMaps[r][l]] += weight * (*values)[l];
                }
            }
            for (CallNodeId cnode = 0; cnode < rows.size(); ++cnode)
                if (!rows[cnode].empty())
                    if (Status s = m_out.setSeverityRow(out, cnode, rows[cnode]); !s)
                        return s;
        }
        return {};
    }

    std::span<const Report* const> m_inputs;
    std::vector<double> m_weights;
    Combine m_mode;
    bool m_doubleValues;
    Report m_out;
    bool m_aligned = true;
    std::vector<std::string> m_notes;
    std::vector<std::vector<std::optional<MetricId>>> m_metricMaps;
    std::vector<std::vector<CallNodeId>> m_cnodeMaps;
    std::vector<std::vector<LocationId>> m_locationMaps;
    std::vector<std::size_t> m_owner; ///< per output metric: the first report holding it
};

} // namespace

Result<AlgebraResult> diffReports(const Report& minuend, const Report& subtrahend) {
    const Report* inputs[] = {&minuend, &subtrahend};
    return Combiner(inputs, {1.0, -1.0}, Combine::Weighted, true).run();
}

Result<AlignedPair> alignReports(const Report& minuend, const Report& subtrahend) {
    // The unified trees depend on the inputs and their order only, not on the weights: the
    // three combinations of the same two inputs share every id.
    const Report* inputs[] = {&minuend, &subtrahend};
    auto first = Combiner(inputs, {1.0, 0.0}, Combine::Weighted, true).run();
    if (!first)
        return first.error();
    auto second = Combiner(inputs, {0.0, 1.0}, Combine::Weighted, true).run();
    if (!second)
        return second.error();
    auto difference = Combiner(inputs, {1.0, -1.0}, Combine::Weighted, true).run();
    if (!difference)
        return difference.error();
    return AlignedPair{std::move(first->report), std::move(second->report),
                       std::move(difference->report), difference->ranksAligned,
                       std::move(difference->notes)};
}

Result<AlgebraResult> meanReports(std::span<const Report* const> reports) {
    if (reports.empty())
        return Error("report mean: no reports given");
    std::vector<double> weights(reports.size(), 1.0 / static_cast<double>(reports.size()));
    return Combiner(reports, std::move(weights), Combine::Weighted, false).run();
}

Result<AlgebraResult> mergeReports(std::span<const Report* const> reports) {
    if (reports.empty())
        return Error("report merge: no reports given");
    return Combiner(reports, {}, Combine::First, false).run();
}

} // namespace waitscope::report
