// The critical path through the OpenMP teams of one rank: inside a parallel region it follows the
// thread that arrived last at each barrier, instead of the master thread.
//
// Overview (as Scalasca's backward replay hands the path on at OpenMP barriers and at the fork).
// The path across ranks follows MPI on the rank's main location (critical_path.cpp): a
// parallel region of the master that lies wholly inside one of the rank's stretches of the
// path has the path at its join and at its fork. Walking back from the join, the master holds
// it through the region's tail; at each barrier, from the last to the first, the holder keeps
// the barrier from the last arrival to its own leave, and the path moves to the thread that
// arrived last (the master on ties), which holds it back through its interval before that
// barrier (all its time since its previous barrier of the region, on its call paths); before
// the first barrier the holder's part of the region began, and the path returns to the master
// at the fork (the time from the fork until that thread began is the master's, on the region):
//
//   master    |fork|--work--|==barrier 0======|--work--|==barrier 1==|tail|join
//   thread 1       |--work----------|==b 0====|--work------------|=b1|
//   thread 2       |--work-------------------|=|--work--|===barrier 1=|
//                        path: thread 2 until barrier 0, then thread 1 until barrier 1,
//                        then the master from the last arrival at barrier 1 to the join
//
// The pieces tile the master's region, so the path keeps its length; the master's own time in
// the region is taken off its critical_path and the holders' time put on their call paths
// (each worker's on its location). A region whose threads passed different numbers of barriers
// (an incomplete trace), or that a stretch of the path begins or ends inside (the master's MPI
// call inside the region handed the path to another rank), keeps the path on the master.
// Tasks run inside a barrier after the last arrival hold it up: the path runs back through the
// chain of tasks that ended last (holdBarrier()), not through the tasks' creation.
#include "critical_path.h"
#include "openmp_timeline.h"
#include "path_cut.h"

#include <algorithm>
#include <cmath>

namespace waitscope::analysis {
namespace {

struct TeamMember {
    const OpenmpTimeline* timeline;
    SeverityRows* severities;
    const OmpSpan* region;
    std::vector<const OmpSpan*> barriers;           ///< in the region, in order
    uint64_t location = PathSegment::kMainLocation; ///< a worker's OTF2 location id
};

// Sums under a nanosecond left where the master's region time was taken off are rounding.
constexpr double kNegligible = 1e-12;

class OpenmpPath {
public:
    OpenmpPath(const OpenmpTimeline& master, const std::vector<OpenmpTimeline>& threads,
               RankResult& result, std::vector<ThreadPiece>* pieces)
        : m_master(master), m_threads(threads), m_result(result), m_pieces(pieces),
          m_workers(std::min(threads.size(), result.threads.size())), m_cursors(m_workers, 0),
          m_barrierCursors(m_workers + 1, 0) {}

    void run() {
        std::vector<PathSegment> stretches;
        for (const PathSegment& s : m_result.criticalPath) {
            if (s.rank == m_result.rank && s.location == PathSegment::kMainLocation) {
                stretches.push_back(s);
            }
        }
        if (stretches.empty() || m_workers == 0) {
            return;
        }
        std::sort(stretches.begin(), stretches.end(),
                  [](const PathSegment& a, const PathSegment& b) { return a.start < b.start; });
        double nestedUntil = -1.0;
        for (const OmpSpan& region : m_master.parallels) {
            if (region.enter < nestedUntil) {
                continue; // nested in a region handled as a whole
            }
            nestedUntil = region.leave;
            // The stretch that begins last at or before the region's fork.
            auto it = std::upper_bound(stretches.begin(), stretches.end(), region.enter,
                                       [](double t, const PathSegment& s) { return t < s.start; });
            if (it == stretches.begin() || (it - 1)->end < region.leave) {
                continue;
            }
            followTeam(region);
        }
        // The master's row: where its region time came off, rounding is no time on the path.
        std::vector<double>& row = m_result.severities.row(Metric::CriticalPath);
        for (const NodeId node : m_touched) {
            if (node < row.size() && std::abs(row[node]) < kNegligible) {
                row[node] = 0.0;
            }
        }
    }

private:
    // The team of the master's `region`: the master and each thread whose region overlaps it.
    std::vector<TeamMember> teamOf(const OmpSpan& region) {
        std::vector<TeamMember> team;
        team.push_back(TeamMember{&m_master, &m_result.severities, &region, {}});
        for (size_t w = 0; w < m_workers; ++w) {
            const std::vector<OmpSpan>& parallels = m_threads[w].parallels;
            uint32_t& from = m_cursors[w];
            while (from < parallels.size() && parallels[from].leave < region.enter) {
                ++from;
            }
            if (from < parallels.size() && parallels[from].enter <= region.leave) {
                team.push_back(TeamMember{&m_threads[w],
                                          &m_result.threads[w].severities,
                                          &parallels[from],
                                          {},
                                          m_result.threads[w].location});
            }
        }
        // Each location's barriers are in the order entered, the regions too: a cursor per
        // location skips those before the region, so all regions cost one pass over them.
        for (TeamMember& m : team) {
            const std::vector<OmpSpan>& parallels = m.timeline->parallels;
            const std::vector<OmpSpan>& barriers = m.timeline->barriers;
            const auto index = static_cast<uint32_t>(m.region - parallels.data());
            uint32_t& from =
                m_barrierCursors[m.timeline == &m_master
                                     ? 0
                                     : static_cast<size_t>(m.timeline - m_threads.data()) + 1];
            while (from < barriers.size() && barriers[from].enter < m.region->enter) {
                ++from;
            }
            for (uint32_t b = from; b < barriers.size() && barriers[b].enter <= m.region->leave;
                 ++b) {
                if (barriers[b].parallel == index) {
                    m.barriers.push_back(&barriers[b]);
                }
            }
        }
        return team;
    }

    static void addTimes(const TeamMember& m, uint32_t first, uint32_t end) {
        for (uint32_t i = first; i < end; ++i) {
            const OmpWork& w = m.timeline->pathTime[i];
            m.severities->add(Metric::CriticalPath, w.node, w.seconds);
        }
    }

    // The holder keeps its barrier from the last arrival until it leaves. Tasks still running
    // then hold the barrier up: back from the holder's leave, the path runs through the task of
    // the team's barrier that ended last (on the thread that ran it, on the task's call path)
    // back to its start, then through the task that ended last before that, and so on; the
    // rest is the holder's, on the barrier's call path.
    // Each piece goes to the critical-path file too: the tasks' on the threads that ran them,
    // the rest on the holder's.
    void holdBarrier(const std::vector<TeamMember>& team, size_t holder, size_t k,
                     double lastEnter) {
        const OmpSpan& barrier = *team[holder].barriers[k];
        const double from = std::max(lastEnter, barrier.enter);
        struct Ran {
            const OmpBarrierTask* task;
            const TeamMember* member;
        };
        std::vector<Ran> tasks;
        for (const TeamMember& m : team) {
            const OmpSpan& b = *m.barriers[k];
            const auto index = static_cast<uint32_t>(&b - m.timeline->barriers.data());
            for (uint32_t t = b.firstTask; t < b.endTask; ++t) {
                const OmpBarrierTask& task = m.timeline->barrierTasks[t];
                if (task.barrier == index && task.node != kNoNode && task.leave > from &&
                    task.leave > task.enter) {
                    tasks.push_back(Ran{&task, &m});
                }
            }
        }
        std::sort(tasks.begin(), tasks.end(),
                  [](const Ran& a, const Ran& b) { return a.task->leave > b.task->leave; });
        double until = barrier.leave;
        double inTasks = 0.0;
        for (const Ran& ran : tasks) {
            if (until <= from) {
                break;
            }
            if (ran.task->leave > until) {
                continue; // overlaps a task already on the path
            }
            const double start = std::max(ran.task->enter, from);
            ran.member->severities->add(Metric::CriticalPath, ran.task->node,
                                        ran.task->leave - start);
            piece(team[holder], ran.task->leave, until);
            piece(*ran.member, start, ran.task->leave);
            inTasks += ran.task->leave - start;
            until = start;
        }
        team[holder].severities->add(Metric::CriticalPath, barrier.node,
                                     std::max(0.0, barrier.leave - from - inTasks));
        piece(team[holder], from, until);
    }

    void followTeam(const OmpSpan& region) {
        std::vector<TeamMember> team = teamOf(region);
        const size_t barriers = team.front().barriers.size();
        for (const TeamMember& m : team) {
            if (m.barriers.size() != barriers) {
                return; // the path stays on the master
            }
        }
        if (team.size() < 2 || barriers == 0) {
            return;
        }
        // The master's own time in the region leaves the path...
        for (uint32_t i = region.firstTime; i < region.endTime; ++i) {
            const OmpWork& w = m_master.regionTime[i];
            m_result.severities.add(Metric::CriticalPath, w.node, -w.seconds);
            m_touched.push_back(w.node);
        }
        // ... and the holders' time enters it, from the join back to the fork.
        size_t holder = 0;
        addTimes(team[holder], region.firstPath, region.endPath);
        for (size_t k = barriers; k-- > 0;) {
            size_t last = 0;
            for (size_t m = 1; m < team.size(); ++m) {
                if (team[m].barriers[k]->enter > team[last].barriers[k]->enter) {
                    last = m;
                }
            }
            const double lastEnter = team[last].barriers[k]->enter;
            holdBarrier(team, holder, k, lastEnter);
            holder = last;
            const OmpSpan& arrived = *team[holder].barriers[k];
            addTimes(team[holder], arrived.firstPath, arrived.endPath);
            piece(team[holder],
                  k > 0 ? team[holder].barriers[k - 1]->leave : team[holder].region->enter,
                  arrived.enter);
        }
        if (holder != 0) {
            m_result.severities.add(Metric::CriticalPath, region.node,
                                    std::max(0.0, team[holder].region->enter - region.enter));
        }
    }

    // A piece of the path on a worker, for the critical-path file (the master's parts are the
    // stretch's own).
    void piece(const TeamMember& m, double begin, double end) {
        if (m_pieces != nullptr && m.location != PathSegment::kMainLocation && end > begin) {
            m_pieces->push_back(ThreadPiece{begin, end, m.location, m.region->node, kNoNode});
        }
    }

    const OpenmpTimeline& m_master;
    const std::vector<OpenmpTimeline>& m_threads;
    RankResult& m_result;
    std::vector<ThreadPiece>* m_pieces;
    size_t m_workers;
    std::vector<uint32_t> m_cursors; ///< per worker: its regions from here on are not past
    /// Per location (the master first): its barriers from here on are not before the region
    std::vector<uint32_t> m_barrierCursors;
    std::vector<NodeId> m_touched; ///< master nodes whose region time came off
};

} // namespace

void traceOpenmpCriticalPath(const OpenmpTimeline& master,
                             const std::vector<OpenmpTimeline>& threads, RankResult& result,
                             std::vector<ThreadPiece>* pieces) {
    OpenmpPath(master, threads, result, pieces).run();
}

} // namespace waitscope::analysis
