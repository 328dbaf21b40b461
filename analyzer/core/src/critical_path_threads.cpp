// The critical path through the threads a rank's main location created and joined: where the
// main location waited in a join, the path runs through the joined thread instead.
//
// Overview (the thread create/wait model of OTF2: a thread cannot begin before its creation,
// and a join waits for its thread's end). The path across ranks follows MPI on the rank's main
// location (critical_path.cpp). Walking back on the main location from the end of one of the
// rank's stretches of the path, a join that returned at w after the joined thread ended at
// x > e, the join's enter, waited for the thread: the main location keeps the join from x to
// w, the path moves to the thread at its end and holds it back to its begin b (all of the
// thread's time, on its call paths and location), then returns to the main location at the
// thread's creation c (the time from c until the thread began is the main location's, on the
// call path that created it):
//
//   main     |create|--work--|join========|--MPI--
//   thread          |begin|--work----------|end
//                          path: main until the join's end (w), back to x on the join,
//                          the thread from x back to b, main from b back to c and on
//
// The pieces tile [c, w], so the path keeps its length; the main location's own time there is
// taken off its critical_path, and the stretch of the path is cut into the same pieces, the
// thread's on its own location (for the critical-path file and the timeline). The walk then goes on
// before c: joins that returned inside [c, w] are off the path. A join that did not wait (its
// thread had ended) keeps the path on the main location. Left on the main location: a join whose
// [c, w] a stretch of the path does not hold whole (the main location's MPI call in between handed
// the path to another rank), threads that joined threads themselves (their own joins are not
// followed), threads without both ThreadBegin and ThreadEnd, and threads without call paths
// (neither sampled nor instrumented: their time has nowhere to go).
#include "path_cut.h"
#include "thread_joins.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace waitscope::analysis {
namespace {

// Sums under a nanosecond left where the main location's time was taken off are rounding.
constexpr double kNegligible = 1e-12;

} // namespace

void traceThreadCriticalPath(const ThreadJoins& joins, RankResult& result) {
    std::vector<PathSegment> stretches;
    for (const PathSegment& s : result.criticalPath) {
        if (s.rank == result.rank && s.location == PathSegment::kMainLocation) {
            stretches.push_back(s);
        }
    }
    if (stretches.empty() || joins.empty()) {
        return;
    }
    const std::unordered_map<uint32_t, ThreadResult*> bySequence =
        threadsBySequence(result.threads);
    std::vector<const ThreadJoin*> latestFirst;
    for (const ThreadJoin& join : joins.joins()) {
        latestFirst.push_back(&join);
    }
    std::sort(latestFirst.begin(), latestFirst.end(),
              [](const ThreadJoin* a, const ThreadJoin* b) { return a->joined > b->joined; });
    std::vector<NodeId> touched;
    // Per stretch, where the walk back on the main location has got to.
    std::vector<double> walked(stretches.size());
    std::vector<ThreadPiece> pieces;
    for (size_t s = 0; s < stretches.size(); ++s) {
        walked[s] = stretches[s].end;
    }
    for (const ThreadJoin* join : latestFirst) {
        const auto found = bySequence.find(join->sequence);
        if (found == bySequence.end()) {
            continue;
        }
        ThreadResult& thread = *found->second;
        if (thread.end <= join->joinEnter || thread.begin < join->created) {
            continue; // no wait (or an inconsistent trace): the path stays on the main location
        }
        const std::vector<double>& time = thread.severities.row(Metric::Time);
        if (std::none_of(time.begin(), time.end(), [](double t) { return t > 0.0; })) {
            continue; // no call path to put the thread's time on (neither sampled nor instrumented)
        }
        const auto stretch =
            std::find_if(stretches.begin(), stretches.end(), [join](const PathSegment& s) {
                return s.start <= join->created && join->joined <= s.end;
            });
        if (stretch == stretches.end()) {
            continue;
        }
        double& until = walked[static_cast<size_t>(stretch - stretches.begin())];
        if (join->joined > until) {
            continue; // inside a thread's stretch already followed: off the path
        }
        until = join->created;
        pieces.push_back(ThreadPiece{thread.begin, thread.end, thread.location, join->createNode,
                                     join->joinNode});
        // The main location's time from the creation to the join's end leaves the path...
        for (const OmpWork& w : join->between) {
            result.severities.add(Metric::CriticalPath, w.node, -w.seconds);
            touched.push_back(w.node);
        }
        // ... and the join's tail, the thread's whole time and its start take its place.
        result.severities.add(Metric::CriticalPath, join->joinNode,
                              std::max(0.0, join->joined - thread.end));
        for (NodeId node = 0; node < time.size(); ++node) {
            if (time[node] > 0.0) {
                thread.severities.add(Metric::CriticalPath, node, time[node]);
            }
        }
        result.severities.add(Metric::CriticalPath, join->createNode,
                              std::max(0.0, thread.begin - join->created));
    }
    cutPathOntoThreads(result, std::move(pieces));
    std::vector<double>& row = result.severities.row(Metric::CriticalPath);
    for (const NodeId node : touched) {
        if (node < row.size() && std::abs(row[node]) < kNegligible) {
            row[node] = 0.0;
        }
    }
}

} // namespace waitscope::analysis
