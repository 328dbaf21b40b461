// Profiling of the further threads of a rank on the rank's call tree.
//
// A thread location (a sampled worker thread, or an OpenMP/pthread location in Score-P's hybrid
// traces) is walked once like the profile pass of the main location: Enter/Leave push and pop
// call tree frames, calling-context records make the context frames on top of the stack equal
// to their path, and the time between two events goes to the innermost open frame, in the
// metric its region's class names (exclusive time). Threads carry no MPI replay: their
// communication events, and event kinds the reader does not keep (ThreadFork, ThreadTeamBegin,
// ...), are skipped.
#include "waitscope/analysis/thread_profile.h"

#include "call_path_rules.h"
#include "openmp_timeline.h"
#include "waitscope/analysis/region_class.h"
#include "waitscope/trace/otf2_archive.h"

#include <algorithm>

namespace waitscope::analysis {
namespace {

using trace::EventKind;

struct Frame {
    NodeId node;
    uint32_t region;
    bool context; ///< pushed for a calling-context record rather than an Enter
};

} // namespace

ThreadResult profileThread(const trace::Definitions& defs, const trace::Location& location,
                           const trace::EventStream& events, CallTree& tree,
                           Diagnostics& diagnostics, NodeId root, OpenmpTimeline* openmp) {
    ThreadResult thread;
    thread.location = location.id;
    thread.name = location.name;
    thread.events = events.size();
    std::vector<Frame> stack;
    uint64_t last = events.size() > 0 ? events.time(0) : 0;
    std::vector<RegionClass> classes;
    classes.reserve(defs.regions.size());
    for (const trace::Region& region : defs.regions) {
        classes.push_back(classifyRegion(region));
    }
    const auto classOf = [&classes](uint32_t region) {
        return region < classes.size() ? classes[region] : RegionClass::Computation;
    };
    const auto charge = [&](uint64_t now) {
        // A thread's time after the join of its parallel region is idle, not its own.
        const double until = openmp != nullptr ? std::min(defs.seconds(now), openmp->chargeLimit())
                                               : defs.seconds(now);
        if (!stack.empty() && now > last && until > defs.seconds(last)) {
            addTimeSeverities(thread.severities, classOf(stack.back().region), stack.back().node,
                              until - defs.seconds(last));
            if (openmp != nullptr) {
                openmp->charge(stack.back().node, defs.seconds(last), until);
            }
        }
        last = std::max(last, now);
    };
    const auto push = [&](uint32_t region, uint64_t now) {
        charge(now);
        NodeId parent = stack.empty() ? root : stack.back().node;
        // A thread's part of a parallel region hangs below the master's path to it.
        if (openmp != nullptr) {
            if (const NodeId anchor = openmp->anchorOf(region, defs.seconds(now), tree);
                anchor != kNoNode) {
                parent = anchor;
            }
        }
        const NodeId node = tree.child(parent, region);
        thread.severities.add(Metric::Visits, node, 1);
        stack.push_back(Frame{node, region, false});
        if (openmp != nullptr) {
            openmp->enter(region, node, defs.seconds(now));
        }
    };
    const auto pop = [&](uint64_t now) {
        charge(now);
        stack.pop_back();
        if (openmp != nullptr) {
            openmp->leave(defs.seconds(now));
        }
    };
    const auto diagnose = [&](experiment::Diagnostic d) { ++diagnostics[d]; };
    for (size_t i = 0; i < events.size(); ++i) {
        if (applyCallPathEvent(defs, events, i, stack, push, pop, diagnose)) {
            continue;
        }
        switch (events.kind(i)) {
        case EventKind::MpiSend:
        case EventKind::MpiIsend:
        case EventKind::MpiRecv:
        case EventKind::MpiIrecv:
        case EventKind::MpiCollectiveEnd:
            ++diagnostics[experiment::Diagnostic::ThreadMpiEvents];
            break;
        default:
            break;
        }
    }
    if (!stack.empty()) {
        diagnostics[experiment::Diagnostic::RegionsLeftOpen] += stack.size();
        while (!stack.empty()) {
            pop(last);
        }
    }
    return thread;
}

void addThreadProfiles(const std::string& anchorFile, const trace::Definitions& definitions,
                       RankResult& result, std::vector<OpenmpTimeline>* openmp,
                       const OpenmpTimeline* master, const std::vector<uint64_t>& profiled,
                       EventObserver* observer) {
    std::vector<RegionClass> classes;
    if (openmp != nullptr) {
        for (const trace::Region& region : definitions.regions) {
            classes.push_back(classifyRegion(region));
        }
    }
    const std::vector<const trace::Location*> locations = definitions.locationsOfRank(result.rank);
    // The main location's one outermost region (the program) holds the threads' paths too.
    // With several, the threads' paths are roots of their own.
    NodeId root = kNoNode;
    size_t roots = 0;
    for (NodeId n = 0; n < result.tree.size(); ++n) {
        if (result.tree.node(n).parent == kNoNode && roots++ == 0) {
            root = n;
        }
    }
    if (roots != 1) {
        root = kNoNode;
    }
    for (size_t k = 1; k < locations.size(); ++k) {
        // Metric and accelerator locations hold no call paths of this process's CPU threads.
        if (locations[k]->type != trace::LocationType::CpuThread ||
            std::find(profiled.begin(), profiled.end(), locations[k]->id) != profiled.end()) {
            continue;
        }
        auto events = trace::readLocationEvents(anchorFile, *locations[k], &definitions);
        if (!events) {
            result.warnings.push_back(events.error().message());
            ++result.diagnostics[experiment::Diagnostic::UnreadableThreadLocations];
            continue;
        }
        if (observer != nullptr) {
            observer->observe(definitions, *locations[k], *events, 0, events->size());
        }
        OpenmpTimeline* timeline = nullptr;
        if (openmp != nullptr) {
            timeline = &openmp->emplace_back(definitions, classes);
            timeline->master = master;
        }
        result.threads.push_back(profileThread(definitions, *locations[k], *events, result.tree,
                                               result.diagnostics, root, timeline));
    }
}

} // namespace waitscope::analysis
