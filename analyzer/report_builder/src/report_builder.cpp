// Report building: metrics, regions, call nodes, system tree, severities, attributes.
#include "waitscope/analysis/report_builder.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <waitscope/experiment/attribute_keys.h>
#include <waitscope/experiment/diagnostics.h>

namespace waitscope::analysis {
namespace {

std::string paradigmName(trace::Paradigm paradigm) {
    switch (paradigm) {
    case trace::Paradigm::User:
        return "user";
    case trace::Paradigm::Compiler:
        return "compiler";
    case trace::Paradigm::Mpi:
        return "mpi";
    case trace::Paradigm::MeasurementSystem:
        return "measurement";
    case trace::Paradigm::Sampling:
        return "sampling";
    default:
        return "unknown";
    }
}

std::string roleName(trace::RegionRole role) {
    using R = trace::RegionRole;
    switch (role) {
    case R::Function:
        return "function";
    case R::Wrapper:
        return "wrapper";
    case R::Loop:
        return "loop";
    case R::Code:
        return "code";
    case R::Artificial:
        return "artificial";
    case R::PointToPoint:
        return "point2point";
    case R::Barrier:
        return "barrier";
    case R::CollectiveOneToAll:
        return "one2all";
    case R::CollectiveAllToOne:
        return "all2one";
    case R::CollectiveAllToAll:
        return "all2all";
    case R::CollectiveOther:
        return "other collective";
    case R::FileIo:
        return "file io";
    case R::FileIoMetadata:
        return "file io metadata";
    case R::Rma:
        return "rma";
    case R::Atomic:
        return "atomic";
    default:
        return "unknown";
    }
}

// Builds the report's machines and nodes from the trace's system tree on demand; ranks
// without one (or traces without a system tree) go below a plain "machine" / "node".
class SystemTreeBuilder {
public:
    SystemTreeBuilder(report::Report& out, const std::vector<trace::SystemTreeNode>& nodes)
        : m_out(out), m_nodes(nodes), m_built(nodes.size()) {}

    /// The report node for trace system tree node `node` (kUndefined: the fallback node).
    Result<report::SystemNodeId> nodeOf(uint32_t node) {
        if (node >= m_nodes.size()) {
            return fallback();
        }
        // The chain up to an already built node or a root, then built top-down. The length
        // bound guards against parent cycles in a damaged trace.
        std::vector<uint32_t> chain;
        for (uint32_t n = node; n < m_nodes.size() && !m_built[n]; n = m_nodes[n].parent) {
            if (chain.size() > m_nodes.size()) {
                return Error("system tree node " + std::to_string(node) +
                             ": its parents form a cycle");
            }
            chain.push_back(n);
        }
        for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
            const trace::SystemTreeNode& def = m_nodes[*it];
            const uint32_t parent = def.parent;
            auto built = parent < m_nodes.size() && m_built[parent]
                             ? m_out.addNode(*m_built[parent], def.name, def.className)
                             : m_out.addMachine(def.name);
            if (!built) {
                return built.error();
            }
            m_built[*it] = *built;
        }
        return *m_built[node];
    }

private:
    Result<report::SystemNodeId> fallback() {
        if (!m_fallback) {
            auto machine = m_out.addMachine("machine");
            if (!machine) {
                return machine.error();
            }
            auto node = m_out.addNode(*machine, "node");
            if (!node) {
                return node.error();
            }
            m_fallback = *node;
        }
        return *m_fallback;
    }

    report::Report& m_out;
    const std::vector<trace::SystemTreeNode>& m_nodes;
    std::vector<std::optional<report::SystemNodeId>> m_built;
    std::optional<report::SystemNodeId> m_fallback;
};

// Which blocks of the metric registry the trace has (metrics::Block): OpenMP when it defines
// OpenMP regions, MPI file I/O when the run read or wrote files (a file operation counted),
// one-sided communication when it defines RMA windows.
std::array<bool, metrics::kBlockCount> blocksPresent(const AnalysisResult& result,
                                                     const trace::Definitions& definitions) {
    std::array<bool, metrics::kBlockCount> present{};
    present[static_cast<size_t>(metrics::Block::Always)] = true;
    bool& openmp = present[static_cast<size_t>(metrics::Block::OpenMp)];
    bool& pthread = present[static_cast<size_t>(metrics::Block::Pthread)];
    for (const trace::Region& region : definitions.regions) {
        openmp = openmp || region.paradigm == trace::Paradigm::OpenMp;
        pthread = pthread || region.paradigm == trace::Paradigm::Pthread;
    }
    present[static_cast<size_t>(metrics::Block::Rma)] = !definitions.rmaWindows.empty();
    bool& fileIo = present[static_cast<size_t>(metrics::Block::MpiFileIo)];
    for (NodeId n = 0; n < result.tree().size() && !fileIo; ++n) {
        for (uint32_t rank = 0; rank < result.ranks() && !fileIo; ++rank) {
            fileIo = result.value(Metric::MpiFileOps, n, rank) != 0.0;
        }
    }
    return present;
}

} // namespace

Result<report::Report>
buildReport(const AnalysisResult& result, const trace::Definitions& definitions,
            const std::vector<std::pair<std::string, std::string>>& extraAttributes) {
    report::Report out;
    // Metrics: parents come before children in metric.h's order. A block of the registry only
    // when the trace has it, so that the reports of other programs stay as they were.
    const std::array<bool, metrics::kBlockCount> present = blocksPresent(result, definitions);
    const auto carried = [&present](size_t m) {
        return present[static_cast<size_t>(metricBlock(static_cast<Metric>(m)))];
    };
    std::vector<report::MetricId> metricIds(kMetricCount);
    for (size_t m = 0; m < kMetricCount; ++m) {
        if (!carried(m)) {
            continue;
        }
        const MetricInfo& info = metricInfo(static_cast<Metric>(m));
        std::optional<report::MetricId> parent;
        if (info.parent) {
            parent = metricIds[static_cast<size_t>(*info.parent)];
        }
        const auto type =
            info.unit == MetricUnit::Seconds ? report::DataType::Double : report::DataType::Uint64;
        auto id = out.addMetric(std::string(info.uniqueName), parent, type,
                                report::MetricKind::Exclusive);
        if (!id) {
            return id.error().withContext("report metric " + std::string(info.uniqueName));
        }
        metricIds[m] = *id;
    }
    // Regions on first use by the call tree.
    std::map<uint32_t, report::RegionId> regionIds;
    const auto regionOf = [&](uint32_t region) -> Result<report::RegionId> {
        if (const auto it = regionIds.find(region); it != regionIds.end()) {
            return it->second;
        }
        report::Region r;
        if (region < definitions.regions.size()) {
            const trace::Region& source = definitions.regions[region];
            r.name = source.name.empty() ? definitions.regionName(region) : source.name;
            r.mangledName = source.canonicalName;
            r.file = source.file;
            r.beginLine = source.file.empty() ? -1 : static_cast<int>(source.beginLine);
            r.endLine = source.file.empty() ? -1 : static_cast<int>(source.endLine);
            r.paradigm = paradigmName(source.paradigm);
            r.role = roleName(source.role);
        } else {
            r.name = definitions.regionName(region);
            r.paradigm = "measurement";
            r.role = "artificial";
        }
        auto id = out.addRegion(std::move(r));
        if (id) {
            regionIds[region] = *id;
        }
        return id;
    };
    const CallTree& tree = result.tree();
    for (NodeId n = 0; n < tree.size(); ++n) {
        auto region = regionOf(tree.node(n).region);
        if (!region) {
            return region.error();
        }
        std::optional<report::CallNodeId> parent;
        if (tree.node(n).parent != kNoNode) {
            parent = tree.node(n).parent; // call node ids equal our node ids
        }
        if (auto id = out.addCallNode(*region, parent); !id || *id != n) {
            return Error("report: call node " + std::to_string(n) + " could not be added");
        }
    }
    // System tree: the trace's machines and nodes, one process per rank, its main thread first
    // and then its further threads (numbered 1, 2, ... in the order the trace defines them).
    SystemTreeBuilder system(out, definitions.systemTreeNodes);
    std::vector<report::LocationId> locations;
    std::vector<report::LocationId> threadLocations;
    const std::vector<ThreadValues>& threads = result.threads();
    size_t nextThread = 0;
    for (uint32_t rank = 0; rank < result.ranks(); ++rank) {
        const bool known = rank < definitions.locationGroups.size();
        const std::string name =
            known ? definitions.locationGroups[rank].name : "MPI Rank " + std::to_string(rank);
        auto parent = system.nodeOf(known ? definitions.locationGroups[rank].systemTreeParent
                                          : trace::kUndefined);
        if (!parent) {
            return parent.error();
        }
        auto process = out.addProcess(*parent, name, rank);
        if (!process) {
            return process.error();
        }
        auto thread = out.addThread(*process, "Master thread", 0);
        if (!thread) {
            return thread.error();
        }
        locations.push_back(out.systemNodes()[*thread].location);
        for (int64_t number = 1; nextThread < threads.size() && threads[nextThread].rank == rank;
             ++nextThread, ++number) {
            const ThreadValues& values = threads[nextThread];
            auto worker = out.addThread(
                *process, values.name.empty() ? "thread " + std::to_string(number) : values.name,
                number);
            if (!worker) {
                return worker.error();
            }
            threadLocations.push_back(out.systemNodes()[*worker].location);
        }
    }
    // Severities.
    const auto set = [&](size_t m, NodeId n, report::LocationId location, double v) -> Status {
        if (metricInfo(static_cast<Metric>(m)).unit == MetricUnit::Seconds) {
            return out.setSeverity(metricIds[m], n, location, v);
        }
        return out.setSeverityUint64(metricIds[m], n, location, static_cast<uint64_t>(v));
    };
    for (size_t m = 0; m < kMetricCount; ++m) {
        if (!carried(m)) {
            continue;
        }
        for (NodeId n = 0; n < tree.size(); ++n) {
            for (uint32_t rank = 0; rank < result.ranks(); ++rank) {
                const double v = result.value(static_cast<Metric>(m), n, rank);
                if (v == 0.0) {
                    continue;
                }
                if (const Status status = set(m, n, locations[rank], v); !status) {
                    return status.error();
                }
            }
        }
        for (size_t t = 0; t < threadLocations.size(); ++t) {
            const std::vector<double>& row = threads[t].severities.row(static_cast<Metric>(m));
            for (NodeId n = 0; n < row.size(); ++n) {
                if (row[n] == 0.0) {
                    continue;
                }
                if (const Status status = set(m, n, threadLocations[t], row[n]); !status) {
                    return status.error();
                }
            }
        }
    }
    out.setAttribute("creator", "waitscope-replay");
    experiment::DiagnosticCounts totals;
    for (uint32_t rank = 0; rank < result.diagnostics().size(); ++rank) {
        result.diagnostics()[rank].forEachCounted([&](experiment::Diagnostic diagnostic,
                                                      uint64_t count) {
            // Maxima (such as clock_correction_max_shift_ns) combine by maximum, counts by
            // sum.
            uint64_t& total = totals[diagnostic];
            total =
                experiment::combinesByMaximum(diagnostic) ? std::max(total, count) : total + count;
            out.setAttribute(
                experiment::diagnosticRankAttribute(experiment::diagnosticName(diagnostic), rank),
                std::to_string(count));
        });
    }
    totals.forEachCounted([&out](experiment::Diagnostic diagnostic, uint64_t count) {
        out.setAttribute(experiment::diagnosticAttribute(experiment::diagnosticName(diagnostic)),
                         std::to_string(count));
    });
    for (const auto& [key, value] : extraAttributes) {
        out.setAttribute(key, value);
    }
    return out;
}

} // namespace waitscope::analysis
