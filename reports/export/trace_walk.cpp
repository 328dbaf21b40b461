// The exports' walk over a trace: each location is read on its own (the next one on a second
// thread while this one is handed on) and its events handed on as they come; messages are
// paired through per-channel queues of flow ids, so memory holds two locations' events and the
// messages whose other end has not been read yet.
#include "trace_walk.h"

#include "waitscope/analysis/clock_correction.h"
#include "waitscope/analysis/in_process_transport.h"
#include "waitscope/analysis/region_class.h"
#include "waitscope/analysis/wait_instances.h"
#include "waitscope/trace/otf2_archive.h"

#include <cmath>
#include <deque>
#include <future>
#include <map>
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

    void location(uint32_t rank, uint32_t tid, const trace::EventStream& stream) {
        counts.events += stream.size();
        std::vector<std::pair<uint32_t, int64_t>> open; // region, enter time
        for (size_t e = 0; e < stream.size(); ++e) {
            switch (stream.kind(e)) {
            case EventKind::Enter: {
                const int64_t time = nanoseconds(stream.time(e));
                open.emplace_back(stream.ref(e), time);
                sink.enter(rank, tid, stream.ref(e), time);
                break;
            }
            case EventKind::Leave: {
                if (open.empty()) {
                    break;
                }
                const auto [region, enter] = open.back();
                open.pop_back();
                sink.leave(rank, tid, region, enter, nanoseconds(stream.time(e)));
                ++counts.slices;
                break;
            }
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
    // Each location's events are read on a second thread while the one before is written.
    struct Job {
        uint32_t rank;
        uint32_t tid;
        const trace::Location* where;
        const trace::EventStream* given; ///< corrected events, or read from the trace
    };
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
    const auto read = [&anchor, &jobs](size_t job) {
        return std::async(std::launch::async, [&anchor, &jobs, job] {
            return jobs[job].given != nullptr ? Result<trace::EventStream>(trace::EventStream{})
                                              : trace::readLocationEvents(anchor, *jobs[job].where);
        });
    };
    std::future<Result<trace::EventStream>> next;
    if (!jobs.empty()) {
        next = read(0);
    }
    size_t job = 0;
    for (uint32_t rank = 0; rank < ranks; ++rank) {
        sink.process(rank, "rank " + std::to_string(rank));
        const std::vector<const trace::Location*> locations = definitions.locationsOfRank(rank);
        for (uint32_t t = 0; t < locations.size(); ++t, ++job) {
            sink.thread(rank, t, locations[t]->name);
            Result<trace::EventStream> events = next.get();
            if (job + 1 < jobs.size()) {
                next = read(job + 1);
            }
            if (!events) {
                if (next.valid()) {
                    next.wait();
                }
                return events.error();
            }
            walk.location(rank, t, jobs[job].given != nullptr ? *jobs[job].given : *events);
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
