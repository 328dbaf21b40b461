// Building the timeline from the analysis's own read: each location's events become encoded
// visits per depth and message and collective ends as Timeline::load() reads them; at the end
// the ends are paired (the n-th send of a channel with its n-th receive) and the collectives
// merged across their members in the same order as there, so that the caches are the same bytes.
#include "timeline_collector.h"

#include "timeline_store.h"
#include "timeline_summary.h"
#include "waitscope/analysis/wait_instances.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <tuple>

namespace waitscope::timeline {
namespace {

constexpr char kPartMagic[] = "waitscope timeline part 1\n";

// The partner's world rank, or the communicator rank itself where the definitions do not say.
uint32_t worldRank(const trace::Definitions& definitions, uint32_t comm, uint32_t partner,
                   uint32_t self) {
    const uint32_t world = definitions.worldRank(comm, partner, self);
    return world == trace::kUndefined ? partner : world;
}

// Reads and writes the part file; the first failure is kept.
class PartFile {
public:
    PartFile(const std::string& path, const char* mode)
        : m_file(std::fopen(path.c_str(), mode), &std::fclose) {}
    bool opened() const { return m_file != nullptr; }
    bool ok() const { return m_ok && m_file != nullptr && std::ferror(m_file.get()) == 0; }
    template <typename T> void put(const T& value) { write(&value, sizeof value); }
    template <typename T> void putVector(const std::vector<T>& values) {
        put(static_cast<uint64_t>(values.size()));
        write(values.data(), values.size() * sizeof(T));
    }
    template <typename T> T get() {
        T value{};
        read(&value, sizeof value);
        return value;
    }
    template <typename T> void getVector(std::vector<T>& values) {
        const auto count = get<uint64_t>();
        if (!m_ok || count > (uint64_t{1} << 40) / sizeof(T)) {
            m_ok = false;
            return;
        }
        values.resize(count);
        read(values.data(), count * sizeof(T));
    }
    void write(const void* data, size_t bytes) {
        if (m_ok && bytes > 0 && std::fwrite(data, 1, bytes, m_file.get()) != bytes) {
            m_ok = false;
        }
    }
    void read(void* data, size_t bytes) {
        if (m_ok && bytes > 0 && std::fread(data, 1, bytes, m_file.get()) != bytes) {
            m_ok = false;
        }
    }
    bool close() {
        const bool closed = std::fclose(m_file.release()) == 0;
        return closed && m_ok;
    }

private:
    std::unique_ptr<FILE, int (*)(FILE*)> m_file;
    bool m_ok = true;
};

} // namespace

void TimelineCollector::makeRows(const trace::Definitions& definitions) {
    for (uint32_t rank = 0; rank < definitions.rankCount(); ++rank) {
        const std::vector<const trace::Location*> locations = definitions.locationsOfRank(rank);
        for (uint32_t t = 0; t < locations.size(); ++t) {
            m_rowOfLocation.emplace(locations[t]->id, static_cast<uint32_t>(m_rows.size()));
            RowData& row = m_rows.emplace_back();
            row.rank = rank;
            row.thread = t;
        }
    }
}

void TimelineCollector::observe(const trace::Definitions& definitions,
                                const trace::Location& location, const trace::EventStream& events,
                                size_t first, size_t last) {
    std::call_once(m_rowsMade, [&] { makeRows(definitions); });
    const auto found = m_rowOfLocation.find(location.id);
    if (found == m_rowOfLocation.end()) {
        return;
    }
    const uint32_t rowIndex = found->second;
    RowData& row = m_rows[rowIndex];
    const size_t regions = definitions.regions.size();
    const bool main = row.thread == 0;
    row.seen = true;
    row.events += last - first;
    for (size_t e = first; e < last; ++e) {
        const double time = definitions.seconds(events.time(e));
        if (!row.anyTime || time < row.begin) {
            row.begin = time;
        }
        if (!row.anyTime || time > row.end) {
            row.end = time;
        }
        row.anyTime = true;
        switch (events.kind(e)) {
        case trace::EventKind::Enter:
            row.open.emplace_back(events.ref(e), time);
            break;
        case trace::EventKind::Leave:
            if (!row.open.empty()) {
                const size_t depth = row.open.size() - 1;
                if (row.depths.size() <= depth) {
                    row.depths.resize(depth + 1);
                }
                const auto [region, start] = row.open.back();
                const uint32_t stored = region < regions ? region : 0;
                std::vector<char>& out = row.depths[depth];
                const size_t at = out.size();
                out.resize(at + TimelineStore::kVisitBytes);
                std::memcpy(out.data() + at, &start, 8);
                std::memcpy(out.data() + at + 8, &time, 8);
                std::memcpy(out.data() + at + 16, &stored, 4);
                row.open.pop_back();
            }
            break;
        case trace::EventKind::MpiCollectiveBegin:
            row.collectiveBegin = time;
            break;
        case trace::EventKind::MpiCollectiveEnd: {
            const trace::CollectiveRecord& c = events.collective(e);
            if (!main || (c.comm < definitions.communicators.size() &&
                          definitions.communicators[c.comm].isSelf)) {
                break;
            }
            row.collectives.push_back({c.comm, row.open.empty() ? 0u : row.open.back().first,
                                       row.sequence[c.comm]++, row.collectiveBegin, time});
            break;
        }
        case trace::EventKind::MpiSend:
        case trace::EventKind::MpiIsend: {
            const trace::MessageRecord m = events.message(e);
            row.sends.push_back({row.rank, worldRank(definitions, m.comm, m.partner, row.rank),
                                 m.comm, m.tag, time, m.length});
            break;
        }
        case trace::EventKind::MpiRecv:
        case trace::EventKind::MpiIrecv: {
            const trace::MessageRecord m = events.message(e);
            row.receives.push_back({worldRank(definitions, m.comm, m.partner, row.rank), row.rank,
                                    m.comm, m.tag, time, m.length});
            break;
        }
        default:
            break;
        }
    }
}

bool TimelineCollector::complete() const {
    return !m_rows.empty() &&
           std::all_of(m_rows.begin(), m_rows.end(), [](const RowData& row) { return row.seen; });
}

Status TimelineCollector::savePart(const std::string& path) const {
    PartFile out(path, "wb");
    if (!out.opened()) {
        return Error(path + ": cannot write");
    }
    out.write(kPartMagic, sizeof(kPartMagic) - 1);
    out.put(static_cast<uint32_t>(m_rows.size()));
    for (uint32_t r = 0; r < m_rows.size(); ++r) {
        const RowData& row = m_rows[r];
        if (!row.seen) {
            continue;
        }
        out.put(r);
        out.put(static_cast<uint8_t>(row.anyTime));
        out.put(row.begin);
        out.put(row.end);
        out.put(row.events);
        out.put(static_cast<uint32_t>(row.depths.size()));
        for (const std::vector<char>& depth : row.depths) {
            out.putVector(depth);
        }
        out.putVector(row.sends);
        out.putVector(row.receives);
        out.putVector(row.collectives);
    }
    if (!out.close()) {
        std::error_code ignored;
        std::filesystem::remove(path, ignored);
        return Error(path + ": cannot write");
    }
    return Status::success();
}

Status TimelineCollector::loadPart(const std::string& path) {
    PartFile in(path, "rb");
    if (!in.opened()) {
        return Error(path + ": cannot open");
    }
    char magic[sizeof(kPartMagic) - 1];
    in.read(magic, sizeof magic);
    const auto rows = in.get<uint32_t>();
    const auto damaged = [&path] { return Error(path + ": not a timeline part (damaged)"); };
    if (!in.ok() || std::memcmp(magic, kPartMagic, sizeof magic) != 0 || rows != m_rows.size() ||
        m_rows.empty()) {
        return damaged();
    }
    for (;;) {
        const auto r = in.get<uint32_t>();
        if (!in.ok()) {
            break; // the end of the file
        }
        if (r >= m_rows.size() || m_rows[r].seen) {
            return damaged();
        }
        RowData& row = m_rows[r];
        row.anyTime = in.get<uint8_t>() != 0;
        row.begin = in.get<double>();
        row.end = in.get<double>();
        row.events = in.get<uint64_t>();
        const auto depths = in.get<uint32_t>();
        if (!in.ok() || depths > (1u << 16)) {
            return damaged();
        }
        row.depths.resize(depths);
        for (std::vector<char>& depth : row.depths) {
            in.getVector(depth);
        }
        in.getVector(row.sends);
        in.getVector(row.receives);
        in.getVector(row.collectives);
        if (!in.ok()) {
            return damaged();
        }
        row.seen = true;
    }
    return Status::success();
}

double TimelineCollector::asStored(double seconds) {
    // The nearest multiple of 1e-9 to the exact value of `seconds` (ties to even, as printf
    // rounds), then the double nearest to it (as from_chars reads it): x * 1e9 = p + error
    // exactly, and the rounding of p is corrected where the error crosses a half.
    if (!std::isfinite(seconds) || std::abs(seconds) >= 4e6) {
        char text[64];
        std::snprintf(text, sizeof text, "%.9f", seconds);
        return std::strtod(text, nullptr);
    }
    const double p = seconds * 1e9;
    const double error = std::fma(seconds, 1e9, -p);
    double n = std::nearbyint(p);
    const double fraction = p - n; // exact
    if (fraction == 0.5 && error > 0.0) {
        n += 1.0;
    } else if (fraction == -0.5 && error < 0.0) {
        n -= 1.0;
    }
    return n / 1e9;
}

Status TimelineCollector::write(const std::string& anchor, const trace::Definitions& definitions,
                                const std::vector<analysis::PatternInstance>& instances) const {
    namespace fs = std::filesystem;
    if (!complete()) {
        return Error(anchor + ": the timeline's caches need every location's events");
    }
    Timeline timeline;
    timeline.setAnchor(anchor);
    for (const trace::Region& region : definitions.regions) {
        timeline.addRegion(region.name, kindOfRegion(region));
    }
    // Rows, the range and the events as Timeline::load() reads them.
    bool anyTime = false;
    double begin = 0.0;
    double end = 0.0;
    uint64_t events = 0;
    std::vector<std::vector<TimelineStore::EncodedVisits>> visits(m_rows.size());
    for (uint32_t r = 0; r < m_rows.size(); ++r) {
        const RowData& data = m_rows[r];
        const std::vector<const trace::Location*> locations =
            definitions.locationsOfRank(data.rank);
        const trace::Location& location = *locations[data.thread];
        Row row{data.rank, data.thread, location.name, {}, {}};
        if (location.group < definitions.locationGroups.size()) {
            const uint32_t node = definitions.locationGroups[location.group].systemTreeParent;
            if (node < definitions.systemTreeNodes.size()) {
                row.node = definitions.systemTreeNodes[node].name;
            }
        }
        row.depths.resize(data.depths.size());
        timeline.addRow(std::move(row));
        for (const std::vector<char>& depth : data.depths) {
            visits[r].push_back({depth.data(), depth.size() / TimelineStore::kVisitBytes});
        }
        if (data.anyTime) {
            begin = anyTime ? std::min(begin, data.begin) : data.begin;
            end = anyTime ? std::max(end, data.end) : data.end;
            anyTime = true;
        }
        events += data.events;
    }
    timeline.setRange(begin, end);
    timeline.setEvents(events);

    // Messages: the n-th send of a channel (sender, receiver, communicator, tag) with its n-th
    // receive, channels in order, then by send time.
    using Channel = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>;
    struct End {
        const MessageEnd* end;
        uint32_t row;
        Channel channel() const { return {end->from, end->to, end->comm, end->tag}; }
    };
    std::vector<End> sends;
    std::vector<End> receives;
    for (uint32_t r = 0; r < m_rows.size(); ++r) {
        for (const MessageEnd& send : m_rows[r].sends) {
            sends.push_back({&send, r});
        }
        for (const MessageEnd& receive : m_rows[r].receives) {
            receives.push_back({&receive, r});
        }
    }
    const auto byChannel = [](const End& a, const End& b) { return a.channel() < b.channel(); };
    std::stable_sort(sends.begin(), sends.end(), byChannel);
    std::stable_sort(receives.begin(), receives.end(), byChannel);
    std::vector<Message> messages;
    messages.reserve(std::min(sends.size(), receives.size()));
    for (size_t s = 0, v = 0; s < sends.size() && v < receives.size();) {
        const Channel channel = std::min(sends[s].channel(), receives[v].channel());
        size_t sendEnd = s;
        while (sendEnd < sends.size() && sends[sendEnd].channel() == channel) {
            ++sendEnd;
        }
        size_t receiveEnd = v;
        while (receiveEnd < receives.size() && receives[receiveEnd].channel() == channel) {
            ++receiveEnd;
        }
        for (size_t k = 0; s + k < sendEnd && v + k < receiveEnd; ++k) {
            const End& send = sends[s + k];
            const End& receive = receives[v + k];
            messages.push_back(
                {send.row, receive.row, send.end->time, receive.end->time, send.end->bytes});
        }
        s = sendEnd;
        v = receiveEnd;
    }
    std::sort(messages.begin(), messages.end(),
              [](const Message& a, const Message& b) { return a.sendTime < b.sendTime; });
    for (const Message& message : messages) {
        timeline.addMessage(message);
    }

    // Collectives by (communicator, sequence number on it), in the order first seen.
    std::vector<Collective> collectives;
    std::map<std::pair<uint32_t, uint64_t>, size_t> collectiveOf;
    for (uint32_t r = 0; r < m_rows.size(); ++r) {
        for (const CollectiveEnd& c : m_rows[r].collectives) {
            const auto [it, fresh] =
                collectiveOf.try_emplace({c.comm, c.sequence}, collectives.size());
            if (fresh) {
                collectives.push_back({c.begin, c.begin, c.end, c.region, {}});
            }
            Collective& collective = collectives[it->second];
            collective.start = std::min(collective.start, c.begin);
            collective.lastBegin = std::max(collective.lastBegin, c.begin);
            collective.end = std::max(collective.end, c.end);
            collective.rows.push_back(r);
        }
    }
    for (Collective& collective : collectives) {
        std::sort(collective.rows.begin(), collective.rows.end());
        if (collective.region >= definitions.regions.size()) {
            collective.region = 0;
        }
    }
    std::stable_sort(collectives.begin(), collectives.end(),
                     [](const Collective& a, const Collective& b) { return a.start < b.start; });
    for (Collective& collective : collectives) {
        timeline.addCollective(std::move(collective));
    }

    const fs::path dir = fs::path(anchor).parent_path();
    const std::string signature = TimelineSummary::signatureOf(anchor);
    const std::string eventsPath = (dir / TimelineStore::kCacheFile).string();
    if (Status written = TimelineStore::write(eventsPath, signature, timeline, visits); !written) {
        return written;
    }

    // The overview, its waiting time from the instances as instances.txt holds them: in its
    // order (by pattern, rank and enter) and rounded as it stores them.
    std::vector<const analysis::PatternInstance*> order;
    order.reserve(instances.size());
    for (const analysis::PatternInstance& instance : instances) {
        order.push_back(&instance);
    }
    std::stable_sort(order.begin(), order.end(),
                     [](const analysis::PatternInstance* a, const analysis::PatternInstance* b) {
                         if (a->metric != b->metric) {
                             return a->metric < b->metric;
                         }
                         return a->rank != b->rank ? a->rank < b->rank : a->enter < b->enter;
                     });
    std::vector<analysis::PatternInstance> stored;
    stored.reserve(order.size());
    for (const analysis::PatternInstance* instance : order) {
        analysis::PatternInstance copy = *instance;
        copy.enter = asStored(copy.enter);
        copy.exit = asStored(copy.exit);
        copy.severity = asStored(copy.severity);
        stored.push_back(copy);
    }
    timeline.setInstances(std::move(stored));
    const auto rowAt = [&](uint32_t r) -> Result<Row> {
        Row row = timeline.rows()[r];
        for (size_t d = 0; d < row.depths.size(); ++d) {
            const TimelineStore::EncodedVisits& depth = visits[r][d];
            std::vector<Visit>& out = row.depths[d];
            out.resize(depth.count);
            for (size_t k = 0; k < depth.count; ++k) {
                const char* at = depth.records + k * TimelineStore::kVisitBytes;
                std::memcpy(&out[k].start, at, 8);
                std::memcpy(&out[k].end, at + 8, 8);
                std::memcpy(&out[k].region, at + 16, 4);
            }
        }
        return row;
    };
    auto summary = TimelineSummary::build(timeline, rowAt);
    if (!summary) {
        return summary.error();
    }
    return summary->save((dir / TimelineSummary::kCacheFile).string(), signature);
}

} // namespace waitscope::timeline
