// Profiling of the further threads of a rank on the rank's call tree.
//
// A thread location (a sampled worker thread, or an OpenMP/pthread location in Score-P's hybrid
// traces) is walked once like the profile pass of the main location: Enter/Leave push and pop
// call tree frames, calling-context records make the context frames on top of the stack equal
// to their path, and the time between two events goes to the innermost open frame, in the
// metric its region's class names (exclusive time). Threads carry no MPI replay: their
// communication events, and event kinds the reader does not keep (ThreadFork, ThreadTeamBegin,
// ...), are skipped.
//
// A compiler-instrumented program records its functions on the main thread only, so the master
// of a parallel region enters the region's outlined function (`.omp_outlined.`) and the
// workers do not: their constructs would hang one frame higher than the master's and the
// team's call paths differ (`!$omp parallel/.omp_outlined./!$omp for` against
// `!$omp parallel/!$omp for`). A construct a worker enters directly in its part of a parallel
// region therefore hangs below the master's one function called there, when there is exactly
// one (the outlined function) and the master met the construct there, so the team shares the
// construct's call path.
#include "waitscope/analysis/thread_profile.h"

#include "openmp_timeline.h"
#include "waitscope/analysis/call_path_rules.h"
#include "waitscope/analysis/region_class.h"
#include "waitscope/trace/otf2_archive.h"

#include <algorithm>
#include <unordered_map>

namespace waitscope::analysis {
namespace {

using trace::EventKind;

struct Frame {
    NodeId node;
    uint32_t region;
    bool context; ///< pushed for a calling-context record rather than an Enter
};

/// Per node of an OpenMP parallel region: the one function (compiler or user region) called
/// directly below it, kNoNode when none or several. One pass over the tree.
std::unordered_map<NodeId, NodeId> outlinedFunctions(const trace::Definitions& defs,
                                                     const CallTree& tree) {
    const auto isParallel = [&defs](uint32_t region) {
        return region < defs.regions.size() &&
               defs.regions[region].paradigm == trace::Paradigm::OpenMp &&
               defs.regions[region].role == trace::RegionRole::Parallel;
    };
    std::unordered_map<NodeId, NodeId> outlined;
    for (NodeId n = 0; n < tree.size(); ++n) {
        const CallTree::Node& node = tree.node(n);
        if (node.parent == kNoNode || !isParallel(tree.node(node.parent).region) ||
            node.region >= defs.regions.size()) {
            continue;
        }
        const trace::Region& region = defs.regions[node.region];
        if (region.role != trace::RegionRole::Function ||
            (region.paradigm != trace::Paradigm::Compiler &&
             region.paradigm != trace::Paradigm::User)) {
            continue;
        }
        const auto [it, added] = outlined.emplace(node.parent, n);
        if (!added) {
            it->second = kNoNode; // several functions: none is the outlined one
        }
    }
    return outlined;
}

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
    // The master's outlined functions (see the overview); the master is profiled before.
    const std::unordered_map<NodeId, NodeId> outlined =
        openmp != nullptr ? outlinedFunctions(defs, tree) : std::unordered_map<NodeId, NodeId>{};
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
            } else if (!stack.empty() && region < defs.regions.size() &&
                       defs.regions[region].paradigm == trace::Paradigm::OpenMp) {
                // A construct directly in the thread's part of a parallel region, which the
                // master met in the outlined function (not the region's implicit barrier, which
                // the master too meets after the function returned).
                if (const auto it = outlined.find(parent);
                    it != outlined.end() && it->second != kNoNode &&
                    tree.find(it->second, region) != kNoNode) {
                    parent = it->second;
                }
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
    SampledOpenmpPaths openmpPaths(defs, false);
    SampledOpenmpPaths* sampledOpenmp =
        openmp != nullptr && openmpPaths.enabled() ? &openmpPaths : nullptr;
    for (size_t i = 0; i < events.size(); ++i) {
        if (applyCallPathEvent(defs, events, i, stack, push, pop, diagnose, sampledOpenmp)) {
            continue;
        }
        switch (events.kind(i)) {
        case EventKind::ThreadBegin:
            thread.sequence = events.ref(i);
            thread.begin = defs.seconds(events.time(i));
            break;
        case EventKind::ThreadEnd:
            thread.end = defs.seconds(events.time(i));
            break;
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
