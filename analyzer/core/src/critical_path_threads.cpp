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
#include "thread_joins.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace waitscope::analysis {
namespace {

// Sums under a nanosecond left where the main location's time was taken off are rounding.
constexpr double kNegligible = 1e-12;

// A joined thread's piece of a stretch on the main location: the thread from its begin to its
// end, the join before it on the main location and the creation after it.
struct ThreadPiece {
    double begin = 0.0;
    double end = 0.0;
    uint64_t location = 0;
    NodeId joinNode = kNoNode;
    NodeId createNode = kNoNode;
};

// `stretch` cut at its threads' pieces, latest first as the rank's stretches are.
void cutStretch(const PathSegment& stretch, std::vector<ThreadPiece>& pieces,
                std::vector<PathSegment>& out) {
    std::sort(pieces.begin(), pieces.end(),
              [](const ThreadPiece& a, const ThreadPiece& b) { return a.end > b.end; });
    PathSegment main = stretch; // the main location's piece being cut, from its end back
    for (const ThreadPiece& p : pieces) {
        if (p.end < main.end) { // the join's tail after the thread's end
            PathSegment tail = main;
            tail.start = p.end;
            tail.from = p.joinNode;
            out.push_back(tail);
        }
        PathSegment thread = main;
        thread.start = p.begin;
        thread.end = p.end;
        thread.from = kNoNode;
        thread.to = kNoNode;
        thread.location = p.location;
        out.push_back(thread);
        main.end = p.begin;
        main.to = p.createNode;
    }
    out.push_back(main);
}

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
    std::vector<std::vector<ThreadPiece>> pieces(stretches.size());
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
        const auto index = static_cast<size_t>(stretch - stretches.begin());
        double& until = walked[index];
        if (join->joined > until) {
            continue; // inside a thread's stretch already followed: off the path
        }
        until = join->created;
        pieces[index].push_back(ThreadPiece{thread.begin, thread.end, thread.location,
                                            join->joinNode, join->createNode});
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
    // The stretches cut at the threads' pieces, in the rank's order (latest first).
    std::vector<PathSegment> cut;
    size_t next = 0;
    for (const PathSegment& s : result.criticalPath) {
        if (s.rank == result.rank && s.location == PathSegment::kMainLocation) {
            cutStretch(s, pieces[next++], cut);
        } else {
            cut.push_back(s);
        }
    }
    result.criticalPath = std::move(cut);
    std::vector<double>& row = result.severities.row(Metric::CriticalPath);
    for (const NodeId node : touched) {
        if (node < row.size() && std::abs(row[node]) < kNegligible) {
            row[node] = 0.0;
        }
    }
}

} // namespace waitscope::analysis
