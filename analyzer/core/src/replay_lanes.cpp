// Reading the rank's further threads that call MPI, and appending them to the rank's events.
#include "replay_lanes.h"

#include "location_profile.h"
#include "waitscope/trace/otf2_archive.h"

namespace waitscope::analysis {
namespace {

using trace::EventKind;

// The events whose payload is a message record.
bool isMessageOrRequest(EventKind kind) {
    return (isCommunicationEvent(kind) && kind != EventKind::MpiCollectiveEnd) ||
           kind == EventKind::MpiRequestTest || kind == EventKind::MpiRequestCancelled;
}

} // namespace

bool mayCallMpiFromThreads(const trace::Definitions& definitions,
                           const trace::EventStream& events) {
    std::vector<uint8_t> initThread(definitions.regions.size(), 0);
    bool any = false;
    for (size_t r = 0; r < definitions.regions.size(); ++r) {
        if (definitions.regions[r].name == "MPI_Init_thread") {
            initThread[r] = 1;
            any = true;
        }
    }
    if (!any) {
        return false;
    }
    for (size_t i = 0; i < events.size(); ++i) {
        if (events.kind(i) == EventKind::Enter && events.ref(i) < initThread.size() &&
            initThread[events.ref(i)] != 0) {
            return true;
        }
    }
    return false;
}

std::vector<ReplayLane> appendReplayLanes(const std::string& anchorFile,
                                          const trace::Definitions& definitions, uint32_t rank,
                                          trace::EventStream& events, EventObserver* observer) {
    std::vector<ReplayLane> lanes;
    const std::vector<const trace::Location*> locations = definitions.locationsOfRank(rank);
    for (size_t k = 1; k < locations.size(); ++k) {
        if (locations[k]->type != trace::LocationType::CpuThread) {
            continue;
        }
        auto thread = trace::readLocationEvents(anchorFile, *locations[k], &definitions);
        if (!thread) {
            continue; // the thread-profile stage reads it again and reports the error
        }
        bool communicates = false;
        for (size_t i = 0; i < thread->size() && !communicates; ++i) {
            communicates = isCommunicationEvent(thread->kind(i));
        }
        if (!communicates) {
            continue; // the thread-profile stage reads it (and shows it the observer)
        }
        if (observer != nullptr) {
            observer->observe(definitions, *locations[k], *thread, 0, thread->size());
        }
        ReplayLane lane{locations[k], events.size(), events.size()};
        for (size_t i = 0; i < thread->size(); ++i) {
            const EventKind kind = thread->kind(i);
            const uint64_t time = thread->time(i);
            if (kind == EventKind::MpiCollectiveEnd) {
                events.appendCollective(time, thread->collective(i));
            } else if (isMessageOrRequest(kind)) {
                events.appendMessage(kind, time, thread->message(i));
            } else {
                events.append(kind, time, thread->ref(i));
            }
        }
        lane.end = events.size();
        lanes.push_back(lane);
    }
    return lanes;
}

} // namespace waitscope::analysis
