// The exports' walk over a trace: a reader thread reads each location's events (a rank's main
// location in windows) while the walk hands the previous ones on; the region visits are the
// timeline's (analysis::VisitStack), and messages are paired through per-channel queues of flow
// ids, so memory holds a few windows of events and the messages whose other end has not been
// read yet.
#include "trace_walk.h"

#include "waitscope/analysis/clock_correction.h"
#include "waitscope/analysis/in_process_transport.h"
#include "waitscope/analysis/region_class.h"
#include "waitscope/analysis/visit_stack.h"
#include "waitscope/analysis/wait_instances.h"
#include "waitscope/trace/otf2_archive.h"

#include <cmath>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>

namespace waitscope::exporter {
namespace {

using trace::EventKind;

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

struct Walk {
    const trace::Definitions& definitions;
    const std::string& anchor;
    TraceSink& sink;
    ExportCounts counts;
    FlowPairs flows;

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

    // The partner's world rank, or the communicator rank itself where the definitions do not
    // say (a damaged trace still shows its arrows).
    uint32_t worldRank(uint32_t comm, uint32_t partner, uint32_t self) const {
        const uint32_t world = definitions.worldRank(comm, partner, self);
        return world == trace::kUndefined ? partner : world;
    }

    void messageEnd(bool sendEnd, uint32_t rank, uint32_t tid, int64_t ns,
                    const trace::MessageRecord& message) {
        const uint32_t partner = worldRank(message.comm, message.partner, rank);
        const Channel channel = sendEnd ? Channel{rank, partner, message.comm, message.tag}
                                        : Channel{partner, rank, message.comm, message.tag};
        const auto [id, paired] = flows.take(channel, sendEnd);
        if (paired) {
            ++counts.flows;
        }
        sink.messageEnd(sendEnd, rank, tid, ns, id);
    }

    /// Hands on events [first, size) of `stream`, one window of the location (rank, tid) whose
    /// open frames `open` keeps between its windows.
    void window(uint32_t rank, uint32_t tid, const trace::EventStream& stream, size_t first,
                analysis::VisitStack& open) {
        counts.events += stream.size() - first;
        const auto enter = [&](size_t, uint64_t ticks, uint32_t region) {
            sink.enter(rank, tid, region, nanoseconds(ticks));
        };
        const auto visit = [&](size_t, uint64_t start, uint64_t end, uint32_t region) {
            sink.leave(rank, tid, region, nanoseconds(start), nanoseconds(end));
            ++counts.slices;
        };
        for (size_t e = first; e < stream.size(); ++e) {
            if (open.apply(definitions, stream, e, enter, visit)) {
                continue;
            }
            switch (stream.kind(e)) {
            case EventKind::MpiSend:
            case EventKind::MpiIsend:
                messageEnd(true, rank, tid, nanoseconds(stream.time(e)), stream.message(e));
                break;
            case EventKind::MpiRecv:
            case EventKind::MpiIrecv:
                messageEnd(false, rank, tid, nanoseconds(stream.time(e)), stream.message(e));
                break;
            default:
                break;
            }
        }
    }
};

// A location to walk, in the walk's order: by rank, then the rank's locations.
struct Job {
    uint32_t rank;
    uint32_t tid;
    const trace::Location* where;
    const trace::EventStream* given; ///< corrected events, or read from the trace
};

// Events of one location as the reader hands them on: a window of a rank's main location, or a
// further location's events whole, or the job's corrected events.
struct Window {
    trace::EventStream events;
    const trace::EventStream* given = nullptr;
    size_t first = 0;  ///< events[0, first) is the previous window's last time, not walked again
    bool last = false; ///< the job's last window
    bool reusable = false; ///< a main location's window: its memory goes back to the reader
    std::optional<Error> error;
};

// The reader thread: reads the jobs' events in order into windows, at most kAhead of them ahead
// of the walk, so that reading overlaps writing and memory holds a few windows. The walk hands
// the windows' memory back, which the next windows are read into: fresh pages cost more than
// reading into them (the kernel zeroes them).
class WindowReader {
public:
    /// Events per window of a main location (a further location is read whole).
    static constexpr uint64_t kWindowEvents = uint64_t{1} << 18;
    static constexpr size_t kAhead = 4;

    WindowReader(const std::string& anchor, const trace::Definitions& definitions,
                 const std::vector<Job>& jobs)
        : m_anchor(anchor), m_definitions(definitions), m_jobs(jobs),
          m_thread([this] { readAll(); }) {}
    ~WindowReader() {
        {
            const std::lock_guard<std::mutex> lock(m_mutex);
            m_stopped = true;
        }
        m_changed.notify_all();
        m_thread.join();
    }
    WindowReader(const WindowReader&) = delete;
    WindowReader& operator=(const WindowReader&) = delete;

    /// The next window, waiting for it.
    Window next() {
        std::unique_lock<std::mutex> lock(m_mutex);
        m_changed.wait(lock, [this] { return !m_windows.empty(); });
        Window window = std::move(m_windows.front());
        m_windows.pop_front();
        lock.unlock();
        m_changed.notify_all();
        return window;
    }
    /// Gives a walked window's memory back for the next windows.
    void reuse(Window&& window) {
        if (!window.reusable) {
            return;
        }
        window.events.clear();
        const std::lock_guard<std::mutex> lock(m_mutex);
        m_spare.push_back(std::move(window.events));
    }

private:
    // Memory for the next window: one handed back, or new.
    trace::EventStream spareStream() {
        const std::lock_guard<std::mutex> lock(m_mutex);
        if (m_spare.empty()) {
            return {};
        }
        trace::EventStream events = std::move(m_spare.back());
        m_spare.pop_back();
        return events;
    }
    // Queues `window` once there is room; false when the walk has stopped.
    bool hand(Window&& window) {
        std::unique_lock<std::mutex> lock(m_mutex);
        m_changed.wait(lock, [this] { return m_stopped || m_windows.size() < kAhead; });
        if (m_stopped) {
            return false;
        }
        m_windows.push_back(std::move(window));
        lock.unlock();
        m_changed.notify_all();
        return true;
    }
    bool fail(Error error) {
        Window window;
        window.error = std::move(error);
        window.last = true;
        hand(std::move(window));
        return false;
    }
    // The windows of a rank's main location; false after an error or when the walk stopped.
    bool readMain(uint32_t rank) {
        auto opened = trace::RankEventWindows::open(m_anchor, m_definitions, rank);
        if (!opened) {
            return fail(opened.error());
        }
        trace::RankEventWindows& reader = **opened;
        bool first = true;
        uint64_t previous = 0;
        while (true) {
            Window window;
            window.events = spareStream();
            window.events.reserve(kWindowEvents + 1);
            window.reusable = true;
            if (!first) {
                // The previous window's last time: a sample's path reaches back to it.
                window.events.append(trace::EventKind::BufferFlush, previous, 0);
                window.first = 1;
            }
            first = false;
            if (Status read = reader.next(window.events, kWindowEvents); !read) {
                return fail(read.error());
            }
            const size_t size = window.events.size();
            if (size > window.first) {
                previous = window.events.time(size - 1);
            }
            window.last = reader.done() || size == window.first;
            const bool last = window.last;
            if (!hand(std::move(window))) {
                return false;
            }
            if (last) {
                return true;
            }
        }
    }
    void readAll() {
        for (const Job& job : m_jobs) {
            if (job.given != nullptr) {
                Window window;
                window.given = job.given;
                window.last = true;
                if (!hand(std::move(window))) {
                    return;
                }
            } else if (job.tid == 0) {
                if (!readMain(job.rank)) {
                    return;
                }
            } else {
                auto events = trace::readLocationEvents(m_anchor, *job.where);
                if (!events) {
                    fail(events.error());
                    return;
                }
                Window window;
                window.events = std::move(*events);
                window.last = true;
                if (!hand(std::move(window))) {
                    return;
                }
            }
        }
    }

    const std::string& m_anchor;
    const trace::Definitions& m_definitions;
    const std::vector<Job>& m_jobs;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::deque<Window> m_windows;
    std::vector<trace::EventStream> m_spare; ///< windows' memory handed back
    bool m_stopped = false;
    std::thread m_thread; ///< last: started once the rest is made
};

} // namespace

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

Result<std::vector<trace::EventStream>> correctedEvents(const std::string& anchor,
                                                        const trace::Definitions& definitions) {
    const uint32_t ranks = definitions.rankCount();
    std::vector<trace::EventStream> streams(ranks);
    for (uint32_t rank = 0; rank < ranks; ++rank) {
        const std::vector<const trace::Location*> locations = definitions.locationsOfRank(rank);
        if (locations.empty()) {
            return Error(anchor + ": rank " + std::to_string(rank) + " has no location");
        }
        auto events = trace::readLocationEvents(anchor, *locations[0]);
        if (!events) {
            return events.error();
        }
        streams[rank] = std::move(*events);
    }
    analysis::InProcessWorld world(definitions, ranks);
    std::vector<std::optional<Error>> errors(ranks);
    std::vector<std::thread> threads;
    for (uint32_t r = 0; r < ranks; ++r) {
        threads.emplace_back([&, r] {
            auto corrected =
                analysis::correctClocks(definitions, &streams[r], world.endpoint(r), {});
            if (!corrected) {
                errors[r] = corrected.error();
            }
            world.finish(r);
        });
    }
    for (std::thread& thread : threads) {
        thread.join();
    }
    for (const std::optional<Error>& error : errors) {
        if (error) {
            return *error;
        }
    }
    return streams;
}

Result<ExportCounts> walkTrace(const std::string& anchor, const trace::Definitions& definitions,
                               const analysis::InstanceFile* instances, TraceSink& sink,
                               const std::vector<trace::EventStream>* corrected) {
    Walk walk{definitions, anchor, sink, {}, {}};
    const uint32_t ranks = definitions.rankCount();
    std::vector<uint32_t> waitTid(ranks, 0);
    std::vector<Job> jobs;
    for (uint32_t rank = 0; rank < ranks; ++rank) {
        const std::vector<const trace::Location*> locations = definitions.locationsOfRank(rank);
        for (uint32_t t = 0; t < locations.size(); ++t) {
            const trace::EventStream* given =
                corrected != nullptr && t == 0 && rank < corrected->size() ? &(*corrected)[rank]
                                                                           : nullptr;
            jobs.push_back({rank, t, locations[t], given});
        }
    }
    WindowReader reader(anchor, definitions, jobs);
    for (uint32_t rank = 0; rank < ranks; ++rank) {
        sink.process(rank, "rank " + std::to_string(rank));
        const std::vector<const trace::Location*> locations = definitions.locationsOfRank(rank);
        for (uint32_t t = 0; t < locations.size(); ++t) {
            sink.thread(rank, t, locations[t]->name);
            analysis::VisitStack open;
            for (bool last = false; !last;) {
                Window window = reader.next();
                if (window.error) {
                    return *window.error;
                }
                last = window.last;
                walk.window(rank, t, window.given != nullptr ? *window.given : window.events,
                            window.first, open);
                reader.reuse(std::move(window));
            }
        }
        waitTid[rank] = static_cast<uint32_t>(locations.size());
        if (instances != nullptr) {
            sink.thread(rank, waitTid[rank], "wait states");
        }
    }
    // The instances a block at a time: an experiment of 10^8 events has millions.
    std::vector<analysis::PatternInstance> block;
    for (uint64_t first = 0; instances != nullptr && first < instances->size();
         first += analysis::InstanceFile::kBlockRecords) {
        block.clear();
        if (Status got = instances->read(first, analysis::InstanceFile::kBlockRecords, block);
            !got) {
            return got.error();
        }
        for (const analysis::PatternInstance& i : block) {
            if (i.rank >= waitTid.size()) {
                continue;
            }
            const auto [from, to] = analysis::waitingInterval(i);
            sink.waitState(i, waitTid[i.rank], std::llround(from * 1e9), std::llround(to * 1e9));
            ++walk.counts.waitStates;
        }
    }
    ExportCounts counts = walk.counts;
    counts.unmatched = walk.flows.pending();
    return counts;
}

Result<ExportInput> readExportInput(const std::string& experiment, const std::string& instancesFile,
                                    bool timeCorrect) {
    auto archive = trace::readArchiveDefinitions(experiment);
    if (!archive) {
        return archive.error();
    }
    ExportInput input{std::move(*archive), {}, std::nullopt, timeCorrect};
    if (timeCorrect) {
        auto events = correctedEvents(input.archive.anchor, input.archive.definitions);
        if (!events) {
            return events.error();
        }
        input.corrected = std::move(*events);
    }
    if (!instancesFile.empty()) {
        auto opened = analysis::openInstances(instancesFile);
        if (!opened) {
            return opened.error();
        }
        input.instances = std::move(*opened);
    }
    return input;
}

Result<ExportCounts> walkTrace(const ExportInput& input, TraceSink& sink) {
    return walkTrace(input.archive.anchor, input.archive.definitions,
                     input.instances ? &*input.instances : nullptr, sink,
                     input.timeCorrect ? &input.corrected : nullptr);
}

} // namespace waitscope::exporter
