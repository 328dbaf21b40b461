// Building, unifying and writing the runtime profile.
//
// Unification: every rank names each of its call paths by the concatenated identity bytes of
// the regions on the path (regionKey), and the binomial-tree set union of the definitions
// gives every path a global index. A parent's name is a prefix of its children's, so in the
// sorted union parents come before children. Each rank then sends one dense row per metric
// (indexed by global path) and location (its main thread, then its sampled threads) to rank 0,
// which builds the report and writes it.
#include "profile_builder.h"

#include "unification.h"
#include "waitscope/measure/event_buffer.h"
#include "waitscope/measure/runtime.h"

#include <algorithm>
#include <map>
#include <waitscope/experiment/attribute_keys.h>
#include <waitscope/metrics/metric_registry.h>
#include <waitscope/report/cubex_writer.h>
#include <waitscope/report/report.h>

namespace waitscope::measure {

namespace {

constexpr std::uint32_t kRootRegion = ~0u;
constexpr int kProfileTag = 7303;

// The profile's metrics, as the metric registry lists them (WAITSCOPE_PROFILE_METRICS).
using ProfileMetric = metrics::ProfileMetricId;
constexpr int kMetricCount = static_cast<int>(metrics::kProfileMetricCount);
constexpr size_t kVisits = static_cast<size_t>(ProfileMetric::Visits);
constexpr size_t kTime = static_cast<size_t>(ProfileMetric::Time);
constexpr size_t kMinTime = static_cast<size_t>(ProfileMetric::MinTime);
constexpr size_t kMaxTime = static_cast<size_t>(ProfileMetric::MaxTime);
constexpr size_t kBytesSent = static_cast<size_t>(ProfileMetric::BytesSent);
constexpr size_t kBytesRcvd = static_cast<size_t>(ProfileMetric::BytesRcvd);
constexpr size_t kCommsSend = static_cast<size_t>(ProfileMetric::CommsSend);
constexpr size_t kCommsRecv = static_cast<size_t>(ProfileMetric::CommsRecv);

std::string pathKey(const std::vector<std::uint32_t>& regions,
                    const std::vector<RegionDefinition>& defs) {
    std::string key;
    for (std::uint32_t r : regions) {
        std::string one = regionKey(defs[r]);
        std::uint32_t n = static_cast<std::uint32_t>(one.size());
        key.append(reinterpret_cast<const char*>(&n), 4);
        key += one;
    }
    return key;
}

/// Splits a path key back into its regions' keys.
std::vector<std::string> splitPathKey(const std::string& key) {
    std::vector<std::string> parts;
    for (size_t at = 0; at + 4 <= key.size();) {
        std::uint32_t n = 0;
        std::copy_n(key.data() + at, 4, reinterpret_cast<char*>(&n));
        parts.push_back(key.substr(at + 4, n));
        at += 4 + n;
    }
    return parts;
}

report::DataType dataType(metrics::ValueType type) {
    switch (type) {
    case metrics::ValueType::Uint64:
        return report::DataType::Uint64;
    case metrics::ValueType::MinDouble:
        return report::DataType::MinDouble;
    case metrics::ValueType::MaxDouble:
        return report::DataType::MaxDouble;
    case metrics::ValueType::Double:
        break;
    }
    return report::DataType::Double;
}

std::string regionParadigm(Paradigm p) {
    switch (p) {
    case Paradigm::Mpi:
        return "mpi";
    case Paradigm::Compiler:
        return "compiler";
    case Paradigm::Sampling:
        return "sampling";
    case Paradigm::MeasurementSystem:
        return "measurement";
    default:
        return "user";
    }
}

} // namespace

ProfileBuilder::ProfileBuilder() {
    Node root;
    root.parent = kRootRegion;
    root.region = kRootRegion;
    m_nodes.push_back(root);
    m_stack.push_back({0, 0});
}

std::uint32_t ProfileBuilder::child(std::uint32_t parent, std::uint32_t region) {
    for (std::uint32_t c : m_nodes[parent].children)
        if (m_nodes[c].region == region)
            return c;
    Node node;
    node.parent = parent;
    node.region = region;
    m_nodes.push_back(node);
    std::uint32_t id = static_cast<std::uint32_t>(m_nodes.size() - 1);
    m_nodes[parent].children.push_back(id);
    return id;
}

void ProfileBuilder::popFrame(std::uint64_t time) noexcept {
    Frame f = m_stack.back();
    m_stack.pop_back();
    Node& n = m_nodes[f.node];
    std::uint64_t d = time - f.enter;
    ++n.visits;
    n.inclusiveTicks += d;
    n.minTicks = std::min(n.minTicks, d);
    n.maxTicks = std::max(n.maxTicks, d);
}

void ProfileBuilder::syncContext(std::uint32_t context, std::uint64_t time) noexcept {
    // The context frames on top of the stack are made equal to the context's path, keeping
    // the common prefix (as the analyzer does; see call_path_rules.h).
    const std::vector<CallingContextDefinition>& contexts = definitions().callingContexts();
    m_path.clear();
    for (std::uint32_t c = context; c < contexts.size() && m_path.size() < 4096;
         c = contexts[c].parent)
        m_path.push_back(contexts[c].region);
    std::reverse(m_path.begin(), m_path.end());
    size_t base = m_stack.size();
    while (base > 1 && m_stack[base - 1].context)
        --base;
    size_t common = 0;
    while (base + common < m_stack.size() && common < m_path.size() &&
           m_nodes[m_stack[base + common].node].region == m_path[common])
        ++common;
    while (m_stack.size() > base + common)
        popFrame(time);
    for (size_t k = common; k < m_path.size(); ++k)
        m_stack.push_back({child(m_stack.back().node, m_path[k]), time, true});
}

void ProfileBuilder::consume(const std::uint64_t* begin, const std::uint64_t* end) noexcept {
    RecordCursor cursor(begin, end, m_time);
    RecordHeader h;
    const std::uint64_t* x = nullptr;
    while (cursor.next(h, x)) {
        const std::uint64_t previous = m_previousTime;
        m_previousTime = h.time;
        Node& current = m_nodes[m_stack.back().node];
        switch (static_cast<EventKind>(h.kind)) {
        case EventKind::Enter:
            m_stack.push_back({child(m_stack.back().node, h.a), h.time});
            break;
        case EventKind::CallingContextEnter:
            syncContext(h.a, h.time);
            break;
        case EventKind::CallingContextSample:
            // A sample names the path that ran since the previous record (its weight).
            syncContext(h.a, previous);
            break;
        case EventKind::CallingContextLeave: {
            const auto& contexts = definitions().callingContexts();
            syncContext(h.a < contexts.size() ? contexts[h.a].parent : kNoContext, h.time);
            break;
        }
        case EventKind::Leave: {
            // A sampled thread's last sample path ends at its start routine's Leave (the main
            // thread leaves its paths with CallingContextLeave first).
            while (m_stack.size() > 1 && m_stack.back().context)
                popFrame(h.time);
            if (m_stack.size() <= 1 || m_stack.back().context ||
                m_nodes[m_stack.back().node].region != h.a) {
                ++m_unbalanced;
                break;
            }
            popFrame(h.time);
            break;
        }
        case EventKind::ProgramBegin:
            m_stack.front().enter = h.time; // the program (root) runs from here
            break;
        case EventKind::ProgramEnd: {
            Node& root = m_nodes.front();
            root.visits = 1;
            root.inclusiveTicks = root.minTicks = root.maxTicks = h.time - m_stack.front().enter;
            break;
        }
        case EventKind::MpiSend:
        case EventKind::MpiIsend:
            current.bytesSent += x[1];
            ++current.messagesSent;
            break;
        case EventKind::MpiRecv:
        case EventKind::MpiIrecv:
            current.bytesReceived += x[1];
            ++current.messagesReceived;
            break;
        case EventKind::MpiCollectiveEnd:
            current.bytesSent += static_cast<std::uint32_t>(x[1]);
            current.bytesReceived += x[1] >> 32;
            break;
        case EventKind::MpiCollectiveEndLarge:
        case EventKind::NbCollComplete:
            current.bytesSent += x[1];
            current.bytesReceived += x[2];
            break;
        default:
            break;
        }
    }
}

void ProfileBuilder::closeOpenRegions(std::uint64_t time) noexcept {
    while (m_stack.size() > 1)
        popFrame(time);
}

std::vector<std::string>
ProfileBuilder::nodeKeys(const std::vector<RegionDefinition>& regions) const {
    std::vector<std::string> keys(m_nodes.size());
    std::vector<std::uint32_t> regionPath;
    for (size_t i = 1; i < m_nodes.size(); ++i) {
        regionPath.clear();
        for (std::uint32_t n = static_cast<std::uint32_t>(i); n != 0; n = m_nodes[n].parent)
            regionPath.push_back(m_nodes[n].region);
        std::reverse(regionPath.begin(), regionPath.end());
        keys[i] = pathKey(regionPath, regions);
    }
    return keys;
}

void ProfileBuilder::appendRows(const std::vector<std::string>& keys, const DefinitionSet& paths,
                                double ticksPerSecond, std::vector<double>& out) const {
    const size_t count = paths.entries.size();
    const size_t first = out.size();
    out.resize(first + static_cast<size_t>(kMetricCount) * (count + 1), 0.0);
    double* mine = out.data() + first;
    for (size_t i = 1; i < m_nodes.size(); ++i) {
        long g = paths.find(keys[i]);
        if (g < 0)
            continue;
        const Node& n = m_nodes[i];
        std::uint64_t childTicks = 0;
        for (std::uint32_t c : n.children)
            childTicks += m_nodes[c].inclusiveTicks;
        auto at = [&](size_t m) -> double& { return mine[m * count + static_cast<size_t>(g)]; };
        at(kVisits) = static_cast<double>(n.visits);
        at(kTime) = static_cast<double>(n.inclusiveTicks - std::min(childTicks, n.inclusiveTicks)) /
                    ticksPerSecond;
        at(kMinTime) = n.visits ? static_cast<double>(n.minTicks) / ticksPerSecond : 0.0;
        at(kMaxTime) = static_cast<double>(n.maxTicks) / ticksPerSecond;
        at(kBytesSent) = static_cast<double>(n.bytesSent);
        at(kBytesRcvd) = static_cast<double>(n.bytesReceived);
        at(kCommsSend) = static_cast<double>(n.messagesSent);
        at(kCommsRecv) = static_cast<double>(n.messagesReceived);
    }
    // The program itself (the root): its time outside every region it called (a sampled
    // thread's root has none: its records start with its start routine).
    double* rootRow = mine + static_cast<size_t>(kMetricCount) * count;
    const Node& r = m_nodes.front();
    std::uint64_t childTicks = 0;
    for (std::uint32_t c : r.children)
        childTicks += m_nodes[c].inclusiveTicks;
    rootRow[kVisits] = static_cast<double>(r.visits);
    rootRow[kTime] =
        static_cast<double>(r.inclusiveTicks - std::min(childTicks, r.inclusiveTicks)) /
        ticksPerSecond;
    rootRow[kMinTime] = r.visits ? static_cast<double>(r.minTicks) / ticksPerSecond : 0.0;
    rootRow[kMaxTime] = static_cast<double>(r.maxTicks) / ticksPerSecond;
}

Status ProfileBuilder::write(const std::string& path, const std::vector<RegionDefinition>& regions,
                             double ticksPerSecond, MPI_Comm comm,
                             const std::vector<std::string>& hosts, const std::string& programName,
                             const std::vector<ThreadProfile>& threads) {
    int rank = 0, size = 1;
    if (comm != MPI_COMM_NULL) {
        PMPI_Comm_rank(comm, &rank);
        PMPI_Comm_size(comm, &size);
    }

    // Name every node of every location by its path of region identities (the root has none).
    std::vector<const ProfileBuilder*> builders = {this};
    for (const ThreadProfile& t : threads)
        builders.push_back(t.profile);
    std::vector<std::vector<std::string>> keys;
    DefinitionSet paths;
    for (const ProfileBuilder* b : builders) {
        keys.push_back(b->nodeKeys(regions));
        for (size_t i = 1; i < keys.back().size(); ++i)
            paths.add(keys.back()[i], {});
    }
    bool unified = unifyDefinitionSet(paths, comm, kProfileTag);
    const size_t count = paths.entries.size();

    // Per location, one dense row per metric indexed by global path, then the root's values;
    // times in seconds.
    const size_t block = static_cast<size_t>(kMetricCount) * (count + 1);
    std::vector<double> mine;
    for (size_t b = 0; b < builders.size(); ++b)
        builders[b]->appendRows(keys[b], paths, ticksPerSecond, mine);
    std::vector<unsigned long long> myThreads;
    for (const ThreadProfile& t : threads)
        myThreads.push_back(t.number);
    std::vector<std::vector<unsigned long long>> allThreads = gatherVariableToRoot(myThreads, comm);
    std::vector<std::vector<double>> all = gatherVariableToRoot(mine, comm);
    // Hybrid measurement writes calling-context records a trace would hold too (for score).
    double contextRecords = static_cast<double>(g_diagnostics.contextRecords);
    std::vector<double> allContextRecords(rank == 0 ? static_cast<size_t>(size) : 0);
    gatherToRoot(&contextRecords, allContextRecords.data(), 1, MPI_DOUBLE, sizeof(double), comm);
    if (rank != 0)
        return unified ? Status::success()
                       : Status(Error("profile call paths could not be unified"));
    if (!unified)
        return Error("profile call paths could not be unified");

    using namespace waitscope::report;
    Report report;
    report.setAttribute("Creator", "Waitscope");
    report.setAttribute("CUBE_CT_AGGR", "SUM");
    for (int r = 0; r < size; ++r)
        if (allContextRecords[static_cast<size_t>(r)] > 0)
            report.setAttribute(
                experiment::measurementRankAttribute(r, experiment::kContextRecordsKey),
                std::to_string(
                    static_cast<std::uint64_t>(allContextRecords[static_cast<size_t>(r)])));
    MetricId ids[kMetricCount] = {};
    for (const metrics::ProfileMetricDefinition& d : metrics::profileMetricDefinitions()) {
        Metric m;
        m.uniqueName = d.uniqueName;
        m.displayName = d.displayName;
        m.dataType = dataType(d.valueType);
        m.unit = metrics::unitName(d.unit);
        m.description = d.description;
        ids[static_cast<size_t>(d.id)] = *report.addMetric(std::move(m));
    }
    // Call tree: the program as the root, then every unified path in order (parents first).
    RegionId programRegion = *report.addRegion(
        {.name = programName, .mangledName = programName, .paradigm = "measurement"});
    CallNodeId root = *report.addCallNode(programRegion, std::nullopt);
    std::map<std::string, RegionId> regionIds;
    std::map<std::string, CallNodeId> nodeByKey;
    std::vector<CallNodeId> nodeOfPath(count);
    for (size_t i = 0; i < count; ++i) {
        const std::string& key = paths.entries[i].first;
        std::vector<std::string> parts = splitPathKey(key);
        if (parts.empty())
            return Error("profile: damaged call path");
        auto [it, fresh] = regionIds.emplace(parts.back(), 0);
        if (fresh) {
            RegionDefinition def = regionFromKey(parts.back());
            Region r;
            r.name = def.name;
            r.mangledName = def.canonicalName;
            r.file = def.file;
            r.beginLine = static_cast<int>(def.beginLine);
            r.endLine = static_cast<int>(def.endLine);
            r.paradigm = regionParadigm(def.paradigm);
            it->second = *report.addRegion(std::move(r));
        }
        std::string parentKey = key.substr(0, key.size() - 4 - parts.back().size());
        CallNodeId parent = root;
        if (!parentKey.empty())
            parent = nodeByKey.at(parentKey);
        nodeOfPath[i] = *report.addCallNode(it->second, parent);
        nodeByKey[key] = nodeOfPath[i];
    }
    // System tree: one machine, a node per host, one process per rank with its main thread
    // and its sampled threads. Locations (columns) in that order.
    SystemNodeId machine = *report.addMachine("Linux");
    std::map<std::string, SystemNodeId> nodes;
    std::vector<const double*> columns; // each location's block
    for (int r = 0; r < size; ++r) {
        const std::string host =
            r < static_cast<int>(hosts.size()) ? hosts[static_cast<size_t>(r)] : "node";
        auto [it, fresh] = nodes.emplace(host, 0);
        if (fresh)
            it->second = *report.addNode(machine, host);
        SystemNodeId process = *report.addProcess(it->second, "MPI Rank " + std::to_string(r), r);
        const std::vector<double>& blocks = all[static_cast<size_t>(r)];
        const std::vector<unsigned long long>& numbers = allThreads[static_cast<size_t>(r)];
        if (blocks.size() != block * (1 + numbers.size()))
            return Error("profile: rank " + std::to_string(r) + " sent damaged values");
        (void)report.addThread(process, "Master thread", 0);
        columns.push_back(blocks.data());
        for (size_t k = 0; k < numbers.size(); ++k) {
            (void)report.addThread(process, "thread " + std::to_string(numbers[k]),
                                   static_cast<std::int64_t>(numbers[k]));
            columns.push_back(blocks.data() + block * (k + 1));
        }
    }
    std::vector<double> row(columns.size());
    const size_t rootAt = static_cast<size_t>(kMetricCount) * count;
    for (int m = 0; m < kMetricCount; ++m) {
        for (size_t l = 0; l < columns.size(); ++l)
            row[l] = columns[l][rootAt + static_cast<size_t>(m)];
        if (Status s = report.setSeverityRow(ids[m], root, row); !s.ok())
            return s;
        for (size_t i = 0; i < count; ++i) {
            for (size_t l = 0; l < columns.size(); ++l)
                row[l] = columns[l][static_cast<size_t>(m) * count + i];
            if (Status s = report.setSeverityRow(ids[m], nodeOfPath[i], row); !s.ok())
                return s;
        }
    }
    return writeCubex(report, path);
}

} // namespace waitscope::measure
