// The OpenMP constructs one location ran, as its profile pass meets them: parallel regions,
// barriers (with the tasks run inside them), critical sections, lock calls, and on the master
// thread the time outside parallel regions per call path. The OpenMP analysis
// (openmp_analysis.cpp) matches them across the threads of a rank.
#pragma once

#include "waitscope/analysis/rank_result.h"
#include "waitscope/analysis/region_class.h"
#include "waitscope/trace/definitions.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace waitscope::analysis {

/// One visit of an OpenMP construct on the location.
struct OmpSpan {
    NodeId node = kNoNode;
    double enter = 0.0;
    double leave = 0.0;
    /// Barriers: the location's parallel region around it (index into `parallels`), else
    /// kNoParallel. Critical sections: when the thread got in (its sblock's enter).
    uint32_t parallel = 0;
    double entered = 0.0;
    bool implicit = false; ///< barriers: an implicit one
    /// Barriers: the tasks run inside are among barrierTasks[firstTask, endTask)
    uint32_t firstTask = 0;
    uint32_t endTask = 0;
    /// Barriers: the thread's work since its previous barrier of the region (or since it began
    /// its part of the region), per call path, is barrierWork[firstWork, endWork)
    uint32_t firstWork = 0;
    uint32_t endWork = 0;
    /// For the critical path (critical_path_openmp.cpp), all of the thread's time per call path
    /// outside barriers, in pathTime[firstPath, endPath): barriers, the interval before them
    /// since the previous barrier of the region (or the start of the thread's part); parallel
    /// regions, the tail after their last barrier
    uint32_t firstPath = 0;
    uint32_t endPath = 0;
    /// Parallel regions (the outermost): all of the thread's time inside, per call path, in
    /// regionTime[firstTime, endTime)
    uint32_t firstTime = 0;
    uint32_t endTime = 0;
};

inline constexpr uint32_t kNoParallel = 0xFFFFFFFFu;

/// Time a thread spent on one call path between two of its barriers (a synchronization
/// interval), but for acquiring critical sections and locks.
struct OmpWork {
    NodeId node;
    double seconds;
};

/// A task run inside a barrier: working, not waiting.
struct OmpBarrierTask {
    uint32_t barrier; ///< index into `barriers`
    double enter;
    double leave;
    NodeId node = kNoNode; ///< the task's call path
};

class OpenmpTimeline {
public:
    /// The construct kinds of `definitions`' regions (OpenMP paradigm, by role and class).
    OpenmpTimeline(const trace::Definitions& definitions, const std::vector<RegionClass>& classes);

    /// True when the definitions have OpenMP regions at all (else every call is a no-op).
    bool enabled() const { return m_enabled; }

    /// Exclusive time [from, to) on `node`: counted as serial time while no parallel region is
    /// open on the location.
    void charge(NodeId node, double from, double to);
    /// Region `region` entered on `node` at `time`; left (the innermost one) at `time`.
    void enter(uint32_t region, NodeId node, double time);
    void leave(double time);

    std::vector<OmpSpan> parallels; ///< in the order entered
    std::vector<OmpSpan> barriers;
    std::vector<OmpBarrierTask> barrierTasks;
    /// Per barrier, the work of the interval before it, by node (see OmpSpan::firstWork)
    std::vector<OmpWork> barrierWork;
    std::vector<OmpSpan> criticals; ///< acquire until leave; `entered` when the sblock began
    std::vector<OmpSpan> sblocks;   ///< inside critical sections
    std::vector<OmpSpan> locks;     ///< lock calls until acquired
    std::unordered_map<NodeId, double> serial; ///< time outside parallel regions per node
    /// Per barrier and parallel region, the time the critical path may take (OmpSpan::firstPath)
    std::vector<OmpWork> pathTime;
    /// Per outermost parallel region, all time inside it (OmpSpan::firstTime)
    std::vector<OmpWork> regionTime;

    /// On a further thread: the timeline of the rank's master thread, whose parallel regions
    /// give the thread's ones their call path.
    const OpenmpTimeline* master = nullptr;
    /// Where a further thread's Enter of `region` at `time` hangs in `tree`: for a parallel
    /// region the master is in at that time, the master's node of it is the child of the
    /// returned node (the parallel region's call path in the master); else kNoNode.
    NodeId anchorOf(uint32_t region, double time, const CallTree& tree) const;
    /// On a further thread inside a parallel region: when the master left it (the join).
    /// The runtime reports a thread's end of the region only when it wakes for the next one,
    /// so its time after the join is idle time (omp_idle_threads), not barrier time: profiles
    /// charge the thread's time up to this limit only. Else infinity.
    double chargeLimit() const;

private:
    enum class Kind : uint8_t {
        None,
        Parallel,
        Barrier,
        ImplicitBarrier,
        Critical,
        Sblock,
        Lock,
        Task
    };
    struct Open {
        Kind kind;
        uint32_t index; ///< into the kind's list
    };

    bool m_enabled = false;
    std::vector<Kind> m_kinds; ///< per region
    std::vector<Open> m_stack;
    std::vector<uint32_t> m_openParallels;
    std::vector<uint32_t> m_openBarriers;
    std::vector<uint32_t> m_openCriticals;
    std::vector<double> m_joins; ///< per open parallel region: the master's leave of it
    /// The work of the synchronization interval open now (inside a parallel region, outside
    /// barriers), by node
    std::unordered_map<NodeId, double> m_interval;
    /// All the time since the last barrier (or the start of the region), outside barriers
    std::unordered_map<NodeId, double> m_pathInterval;
    /// All the time inside the open outermost parallel region
    std::unordered_map<NodeId, double> m_regionTime;
    /// The master's parallel region `region` open at `time` (or the next one), else nullptr.
    const OmpSpan* masterSpan(uint32_t region, double time, const CallTree* tree) const;
};

/// An MPI wait state of the master thread (a synchronization point of the root-cause pass that
/// waited): its MPI call's enter, its wait and call path. In a synchronization interval before
/// an OpenMP barrier it is waiting, not work; `cost` receives the barrier waits its wait
/// explains, which the root-cause pass carries on to the wait state's cause (Scalasca's
/// long-term OpenMP barrier delay costs).
struct OmpMpiWait {
    double enter = 0.0;
    double wait = 0.0;
    NodeId node = kNoNode;
    uint32_t operation = 0; ///< the replay's operation (the root-cause pass's key)
    double cost = 0.0;
};

/// Adds the OpenMP wait states of a rank to `result` (its main location `master`, and
/// `threads[k]` the timeline of `result.threads[k]`): barrier waits per team, critical and
/// lock contention, idle threads and limited parallelism on the workers; with `delayCosts`
/// (the root-cause analyses run), the delay costs of the barrier waits: short-term on the
/// call paths of the last thread's excess work, long-term on the critical sections it waited
/// for and, through `mpiWaits` (the master's MPI wait states sorted by enter, if given), as
/// costs of the master's MPI wait states inside its intervals (OmpMpiWait::cost).
void analyzeOpenmp(const OpenmpTimeline& master, const std::vector<OpenmpTimeline>& threads,
                   RankResult& result, bool delayCosts = false,
                   std::vector<OmpMpiWait>* mpiWaits = nullptr);

} // namespace waitscope::analysis
