// Chrome trace export: each location is read on its own and its events written as they come;
// messages are paired through per-channel queues of flow ids, so memory holds one location's
// events and the messages whose other end has not been read yet.
#include "chrome_trace.h"

#include "waitscope/analysis/metric.h"
#include "waitscope/analysis/region_class.h"
#include "waitscope/analysis/wait_instances.h"
#include "waitscope/trace/otf2_archive.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

namespace waitscope::exporter {
namespace {

using trace::EventKind;

// The category of a region's kind (Perfetto and chrome://tracing filter by it).
const char* categoryOf(const trace::Region& region) {
    using analysis::RegionClass;
    switch (analysis::classifyRegion(region)) {
    case RegionClass::Computation:
        return "computation";
    case RegionClass::Overhead:
        return "measurement";
    case RegionClass::MpiPointToPoint:
        return "mpi point-to-point";
    case RegionClass::MpiCollective:
        return "mpi collective";
    case RegionClass::MpiBarrier:
    case RegionClass::MpiRmaSync:
        return "mpi synchronization";
    case RegionClass::MpiIoIndividual:
    case RegionClass::MpiIoCollective:
        return "mpi i/o";
    case RegionClass::MpiRmaCommunication:
        return "mpi one-sided";
    default:
        return "mpi management";
    }
}

// `text` as the inside of a JSON string.
std::string escaped(const std::string& text) {
    std::string out;
    for (const char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char code[8];
            std::snprintf(code, sizeof code, "\\u%04x", static_cast<unsigned>(c));
            out += code;
        } else {
            out += c;
        }
    }
    return out;
}

// Buffered output with fast number formatting.
class JsonOut {
public:
    explicit JsonOut(FILE* file) : m_file(file) { m_buffer.reserve(kFlush + 4096); }
    ~JsonOut() { flush(); }
    JsonOut(const JsonOut&) = delete;
    JsonOut& operator=(const JsonOut&) = delete;

    JsonOut& text(std::string_view s) {
        m_buffer.append(s);
        return *this;
    }
    JsonOut& number(uint64_t value) {
        char digits[24];
        const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
        m_buffer.append(digits, end);
        return *this;
    }
    /// Nanoseconds as microseconds with three decimals (negative values allowed).
    JsonOut& micros(int64_t nanoseconds) {
        if (nanoseconds < 0) {
            m_buffer += '-';
            nanoseconds = -nanoseconds;
        }
        const auto ns = static_cast<uint64_t>(nanoseconds);
        number(ns / 1000);
        const auto fraction = static_cast<unsigned>(ns % 1000);
        const char decimals[4] = {'.', static_cast<char>('0' + fraction / 100),
                                  static_cast<char>('0' + fraction / 10 % 10),
                                  static_cast<char>('0' + fraction % 10)};
        m_buffer.append(decimals, 4);
        return *this;
    }
    /// Starts the next element of the event array.
    JsonOut& next() {
        m_buffer.append(m_first ? "\n" : ",\n");
        m_first = false;
        if (m_buffer.size() >= kFlush) {
            flush();
        }
        return *this;
    }
    void flush() {
        if (!m_buffer.empty()) {
            std::fwrite(m_buffer.data(), 1, m_buffer.size(), m_file);
            m_buffer.clear();
        }
    }

private:
    static constexpr size_t kFlush = size_t{1} << 20;
    FILE* m_file;
    std::string m_buffer;
    bool m_first = true;
};

// A message channel: sender and receiver (world ranks), communicator and tag. MPI delivers
// the messages of one channel in order, so the n-th send pairs with the n-th receive.
using Channel = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>;

// Flow ids of the messages whose other end is not read yet, per channel: whichever end is
// read first takes a new id and queues it; the other end takes the oldest queued id.
class FlowPairs {
public:
    /// The flow id of the next message of `channel` seen from its send (or receive) end, and
    /// whether the other end was seen already.
    std::pair<uint64_t, bool> take(const Channel& channel, bool sendEnd) {
        Queue& queue = m_queues[channel];
        if (!queue.ids.empty() && queue.sendEnd != sendEnd) {
            const uint64_t id = queue.ids.front();
            queue.ids.pop_front();
            return {id, true};
        }
        queue.sendEnd = sendEnd;
        queue.ids.push_back(++m_lastId);
        return {m_lastId, false};
    }
    /// Ends still waiting for their other end.
    uint64_t pending() const {
        uint64_t count = 0;
        for (const auto& [channel, queue] : m_queues) {
            count += queue.ids.size();
        }
        return count;
    }

private:
    struct Queue {
        bool sendEnd = true;
        std::deque<uint64_t> ids;
    };
    std::map<Channel, Queue> m_queues;
    uint64_t m_lastId = 0;
};

struct Exporter {
    const trace::Definitions& definitions;
    std::string anchor;
    JsonOut& out;
    ChromeTraceCounts counts;
    FlowPairs flows;
    std::vector<std::string> names;      // escaped region names
    std::vector<const char*> categories; // per region

    int64_t nanoseconds(uint64_t ticks) const {
        const auto since = static_cast<int64_t>(ticks - definitions.clock.globalOffset);
        const uint64_t perSecond = definitions.clock.ticksPerSecond;
        if (perSecond == 1000000000u) {
            return since;
        }
        // Whole seconds and the rest apart, so that nothing overflows for clocks up to 9 GHz.
        const auto ps = static_cast<int64_t>(perSecond);
        return since / ps * 1000000000 + since % ps * 1000000000 / ps;
    }

    void prepareRegions() {
        const size_t count = definitions.regions.size();
        names.reserve(count);
        categories.reserve(count);
        for (size_t r = 0; r < count; ++r) {
            names.push_back(escaped(definitions.regions[r].name));
            categories.push_back(categoryOf(definitions.regions[r]));
        }
    }

    void metadata(const char* what, uint32_t pid, const uint32_t* tid, const std::string& name) {
        out.next().text("{\"ph\":\"M\",\"name\":\"").text(what).text("\",\"pid\":").number(pid);
        if (tid != nullptr) {
            out.text(",\"tid\":").number(*tid);
        }
        out.text(",\"args\":{\"name\":\"").text(escaped(name)).text("\"}}");
    }

    // The partner's world rank, or the communicator rank itself where the definitions do not
    // say (a damaged trace still shows its arrows).
    uint32_t worldRank(uint32_t comm, uint32_t partner, uint32_t self) const {
        const uint32_t world = definitions.worldRank(comm, partner, self);
        return world == trace::kUndefined ? partner : world;
    }

    void flow(bool sendEnd, uint32_t rank, uint32_t tid, int64_t ns,
              const trace::MessageRecord& message) {
        const uint32_t partner = worldRank(message.comm, message.partner, rank);
        const Channel channel = sendEnd ? Channel{rank, partner, message.comm, message.tag}
                                        : Channel{partner, rank, message.comm, message.tag};
        const auto [id, paired] = flows.take(channel, sendEnd);
        if (paired) {
            ++counts.flows;
        }
        out.next()
            .text(sendEnd ? "{\"ph\":\"s\"" : "{\"ph\":\"f\",\"bp\":\"e\"")
            .text(",\"name\":\"message\",\"cat\":\"message\",\"id\":")
            .number(id)
            .text(",\"pid\":")
            .number(rank)
            .text(",\"tid\":")
            .number(tid)
            .text(",\"ts\":")
            .micros(ns)
            .text("}");
    }

    Status location(uint32_t rank, uint32_t tid, const trace::Location& where) {
        auto events = trace::readLocationEvents(anchor, where);
        if (!events) {
            return events.error();
        }
        const trace::EventStream& stream = *events;
        counts.events += stream.size();
        std::vector<std::pair<uint32_t, int64_t>> open; // region, enter time
        for (size_t e = 0; e < stream.size(); ++e) {
            switch (stream.kind(e)) {
            case EventKind::Enter:
                open.emplace_back(stream.ref(e), nanoseconds(stream.time(e)));
                break;
            case EventKind::Leave: {
                if (open.empty()) {
                    break;
                }
                const auto [region, enter] = open.back();
                open.pop_back();
                const int64_t leave = nanoseconds(stream.time(e));
                const bool known = region < names.size();
                out.next().text("{\"ph\":\"X\",\"name\":\"");
                if (known) {
                    out.text(names[region]);
                } else {
                    out.text(escaped(definitions.regionName(region)));
                }
                out.text("\",\"cat\":\"")
                    .text(known ? categories[region] : "computation")
                    .text("\",\"pid\":")
                    .number(rank)
                    .text(",\"tid\":")
                    .number(tid)
                    .text(",\"ts\":")
                    .micros(enter)
                    .text(",\"dur\":")
                    .micros(leave - enter)
                    .text("}");
                ++counts.slices;
                break;
            }
            case EventKind::MpiSend:
            case EventKind::MpiIsend:
                flow(true, rank, tid, nanoseconds(stream.time(e)), stream.message(e));
                break;
            case EventKind::MpiRecv:
            case EventKind::MpiIrecv:
                flow(false, rank, tid, nanoseconds(stream.time(e)), stream.message(e));
                break;
            default:
                break;
            }
        }
        return Status::success();
    }

    void waitStates(const std::vector<analysis::PatternInstance>& instances,
                    const std::vector<uint32_t>& waitTid) {
        for (const analysis::PatternInstance& i : instances) {
            if (i.rank >= waitTid.size()) {
                continue;
            }
            const auto [from, to] = analysis::waitingInterval(i);
            const auto enter = static_cast<int64_t>(from * 1e9 + 0.5);
            const int64_t waited = static_cast<int64_t>(to * 1e9 + 0.5) - enter;
            const std::string_view name = analysis::metricInfo(i.metric).displayName;
            out.next()
                .text("{\"ph\":\"X\",\"name\":\"")
                .text(name)
                .text("\",\"cat\":\"wait state\",\"cname\":\"terrible\",\"pid\":")
                .number(i.rank)
                .text(",\"tid\":")
                .number(waitTid[i.rank])
                .text(",\"ts\":")
                .micros(enter)
                .text(",\"dur\":")
                .micros(waited)
                .text(",\"args\":{\"pattern\":\"")
                .text(analysis::metricInfo(i.metric).uniqueName)
                .text("\",\"cnode\":")
                .number(i.node)
                .text("}}");
            ++counts.waitStates;
        }
    }
};

} // namespace

Result<ChromeTraceCounts> writeChromeTrace(const std::string& experiment,
                                           const std::string& instancesFile,
                                           const std::string& output) {
    auto anchor = trace::findAnchorFile(experiment);
    if (!anchor) {
        return anchor.error();
    }
    auto definitions = trace::readDefinitions(*anchor);
    if (!definitions) {
        return definitions.error();
    }
    std::vector<analysis::PatternInstance> instances;
    if (!instancesFile.empty()) {
        auto read = analysis::readWaitInstances(instancesFile);
        if (!read) {
            return read.error();
        }
        instances = std::move(*read);
    }
    const std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(output.c_str(), "w"), &std::fclose);
    if (!file) {
        return Error(output + ": cannot write");
    }
    std::fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", file.get());
    ChromeTraceCounts counts;
    {
        JsonOut out(file.get());
        Exporter exporter{*definitions, *anchor, out, {}, {}, {}, {}};
        exporter.prepareRegions();
        const uint32_t ranks = definitions->rankCount();
        std::vector<uint32_t> waitTid(ranks, 0);
        for (uint32_t rank = 0; rank < ranks; ++rank) {
            exporter.metadata("process_name", rank, nullptr, "rank " + std::to_string(rank));
            const std::vector<const trace::Location*> locations =
                definitions->locationsOfRank(rank);
            for (uint32_t t = 0; t < locations.size(); ++t) {
                exporter.metadata("thread_name", rank, &t, locations[t]->name);
                if (Status status = exporter.location(rank, t, *locations[t]); !status) {
                    return status.error();
                }
            }
            waitTid[rank] = static_cast<uint32_t>(locations.size());
            if (!instancesFile.empty()) {
                exporter.metadata("thread_name", rank, &waitTid[rank], "wait states");
            }
        }
        exporter.waitStates(instances, waitTid);
        counts = exporter.counts;
        counts.unmatched = exporter.flows.pending();
    }
    std::fputs("\n]}\n", file.get());
    if (std::ferror(file.get()) != 0) {
        return Error(output + ": cannot write");
    }
    return counts;
}

} // namespace waitscope::exporter
