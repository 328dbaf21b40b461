// The OpenMP wait states of one rank, from the timelines of its threads (openmp_timeline.h).
//
// Teams: a parallel region of the master thread (the rank's main location) and, on each
// further thread, the parallel region that overlaps it in time. Every thread of a team passes
// the team's barriers in the same order, so the k-th barrier of each is one instance:
//
//   thread 0  ---work-----|==barrier==========|        wait = last arrival - arrival,
//   thread 1  ---work---------------|==barr===|        less the time running tasks inside
//   thread 2  ---work----|==[task]===barrier==|        (tasks are work, not waiting)
//                                   ^ last arrival
//
// as omp_ibarrier_wait (implicit barriers) or omp_ebarrier_wait (explicit), on each thread's
// barrier call path. Critical sections: the time from the request until the section is the
// thread's, as far as another thread was inside a critical section meanwhile
// (omp_lock_contention_critical; unnamed critical sections share one lock, so all count). Lock
// calls: the time until the lock is acquired (omp_lock_contention_api). Idle threads: while the
// master runs outside parallel regions, every further thread of the rank is idle, shown on the
// master's call paths at each thread (omp_idle_threads, part of its time, as Scalasca counts
// it); a thread left out of a smaller team is idle for that region (omp_limited_parallelism).
//
// Delay costs of barrier waits (delay_ompbarrier, Scalasca's short-term OpenMP barrier delay
// costs): each thread's synchronization interval before a barrier runs from its previous
// barrier of the region (or from the start of its part of the region) to its arrival. The
// wait of a thread is charged to the last thread to arrive, on the call paths where that
// thread spent more time in its interval than the waiting one did in its own, in proportion
// to that excess:
//
//   thread 0  |--compute 1 s--|=====wait 2 s======|
//   thread 2  |--compute 1 s--|--compute+ 2 s-----|      excess of thread 2: 2 s on compute+,
//                                                ^ last   so 2 s of delay cost there
//
// A wait is charged as far as the excess explains it: at most the excess (the rest of the wait
// has other causes, such as waiting the late thread did itself, which is not work: its time
// acquiring critical sections and locks is left out of the intervals).
//
// The master's MPI wait states in its interval (Scalasca's propagating wait states) are
// waiting, not work: their waits leave its work, and a wait W of another thread is shared
// between the excess E and those waits ω_k at the scale s = min(W / (E + Σω), 1). The excess
// gets s·E (short-term, as above); each MPI wait state takes on s·ω_k as costs of type
// OpenMP barrier (OmpMpiWait::cost), which the root-cause pass carries to the wait state's
// cause on another rank: the long-term costs of Scalasca's delay_ompbarrier_longterm.
//
//   rank 0 master |--MPI_Recv, Late Sender 2 s--|           the worker's 2 s of waiting:
//   rank 0 worker |..........wait 2 s...........|             costs of the Late Sender, so
//   rank 1        |--compute 2 s---|MPI_Send|                  long-term on rank 1's compute
//
// Long-term costs (delay_ompbarrier_longterm): the rest of a wait, as far as the last thread
// waited in its interval for critical sections other threads held, propagated through that
// contention: it is charged to the holders' critical sections, in proportion to how long each
// held one while the last thread waited:
//
//   thread 0  |crit 1 s|........wait 2 s.........|       thread 2's contention (2 s) made it
//   thread 1  |..wait..|crit 1 s|....wait 1 s....|       late: the others' 3 s of waiting go
//   thread 2  |....contention 2 s..|crit 1 s|              to the holds of threads 0 and 1,
//                                           ^ last       1.5 s each
//
// (The critical-section cause is Waitscope's own; Scalasca's is the MPI one above.)
#include "openmp_timeline.h"
#include "waitscope/analysis/metric.h"

#include <algorithm>
#include <optional>

namespace waitscope::analysis {
namespace {

/// Adds a delay cost to `metric` and to the metrics above it (delay_ompbarrier_aggregate,
/// delay_omp, delay), as the root-cause pass adds its own (Ledger::addSums()).
void addDelay(SeverityRows& rows, Metric metric, NodeId node, double seconds) {
    for (std::optional<Metric> m = metric; m; m = metricInfo(*m).parent) {
        rows.add(*m, node, seconds);
    }
}

/// The index of the span of `spans` (sorted by enter) overlapping [enter, leave], from `from`
/// on; kNoParallel when none.
uint32_t overlapping(const std::vector<OmpSpan>& spans, uint32_t& from, double enter,
                     double leave) {
    while (from < spans.size() && spans[from].leave < enter) {
        ++from;
    }
    if (from < spans.size() && spans[from].enter <= leave) {
        return from;
    }
    return kNoParallel;
}

/// The length of the overlap of [a0, a1] and [b0, b1].
double overlap(double a0, double a1, double b0, double b1) {
    return std::max(0.0, std::min(a1, b1) - std::max(a0, b0));
}

struct Member {
    const OpenmpTimeline* timeline;
    SeverityRows* severities;
    size_t thread;                  ///< its index among the rank's threads (0: the master)
    uint32_t parallel;              ///< its part of the region, in timeline->parallels
    std::vector<uint32_t> barriers; ///< indices of its barriers in the team's region, in order
};

/// A critical section some thread held.
struct Held {
    double enter;
    double leave;
    size_t thread;
    NodeId node; ///< its sblock's call path
};

/// Every thread's critical sections (sorted by enter: they exclude each other) and the rows
/// of each thread.
struct Holds {
    std::vector<Held> held;
    std::vector<SeverityRows*> rows;
};

/// Charges `rest` of a barrier wait to the critical sections other threads held while `late`
/// waited for one in its interval [from, arrival] (long-term costs, see the overview).
void addLongTermCosts(const Member& late, double from, double arrival, double rest,
                      const Holds& holds) {
    const std::vector<OmpSpan>& criticals = late.timeline->criticals;
    auto c = std::lower_bound(criticals.begin(), criticals.end(), from,
                              [](const OmpSpan& span, double t) { return span.enter < t; });
    struct Cause {
        size_t thread;
        NodeId node;
        double seconds;
    };
    std::vector<Cause> causes;
    double total = 0.0;
    double contention = 0.0;
    for (; c != criticals.end() && c->entered <= arrival; ++c) {
        contention += c->entered - c->enter;
        auto h = std::lower_bound(holds.held.begin(), holds.held.end(), c->enter,
                                  [](const Held& held, double t) { return held.leave < t; });
        for (; h != holds.held.end() && h->enter < c->entered; ++h) {
            const double seconds = overlap(c->enter, c->entered, h->enter, h->leave);
            if (h->thread != late.thread && seconds > 0.0) {
                causes.push_back(Cause{h->thread, h->node, seconds});
                total += seconds;
            }
        }
    }
    if (total <= 0.0) {
        return;
    }
    // As far as the contention explains it (holds of several locks may overlap).
    const double scale = std::min(rest, std::min(total, contention)) / total;
    for (const Cause& cause : causes) {
        addDelay(*holds.rows[cause.thread], Metric::DelayOmpbarrierLongterm, cause.node,
                 cause.seconds * scale);
    }
}

/// The master's MPI wait states inside the late thread's interval before a barrier: waits
/// [first, end) of the sorted list, their waits per node (sorted) and their sum.
struct MpiWaitsIn {
    std::vector<OmpMpiWait>* waits = nullptr;
    size_t first = 0;
    size_t end = 0;
    std::vector<OmpWork> perNode;
    double sum = 0.0;

    /// Finds those of `all` (null: none) in [from, to).
    void find(std::vector<OmpMpiWait>* all, double from, double to) {
        waits = all;
        perNode.clear();
        sum = 0.0;
        first = end = 0;
        if (all == nullptr) {
            return;
        }
        const auto before = [](const OmpMpiWait& w, double t) { return w.enter < t; };
        first = static_cast<size_t>(std::lower_bound(all->begin(), all->end(), from, before) -
                                    all->begin());
        end = static_cast<size_t>(std::lower_bound(all->begin(), all->end(), to, before) -
                                  all->begin());
        for (size_t k = first; k < end; ++k) {
            perNode.push_back(OmpWork{(*all)[k].node, (*all)[k].wait});
            sum += (*all)[k].wait;
        }
        std::sort(perNode.begin(), perNode.end(),
                  [](const OmpWork& a, const OmpWork& b) { return a.node < b.node; });
    }
    /// The waits on `node` (a sorted walk: `cursor` moves on).
    double on(NodeId node, size_t& cursor) const {
        while (cursor < perNode.size() && perNode[cursor].node < node) {
            ++cursor;
        }
        double seconds = 0.0;
        for (size_t k = cursor; k < perNode.size() && perNode[k].node == node; ++k) {
            seconds += perNode[k].seconds;
        }
        return seconds;
    }
};

/// Charges `wait` (of the thread whose barrier is `waited`) to `late`'s call paths of excess
/// work in the interval before its barrier `arrived`, and to the MPI wait states `mpi` of that
/// interval as costs (see the overview). Returns the part of `wait` charged.
double addDelayCosts(const Member& late, const OmpSpan& arrived, const OpenmpTimeline& waiter,
                     const OmpSpan& waited, double wait, const MpiWaitsIn& mpi) {
    const std::vector<OmpWork>& lateWork = late.timeline->barrierWork;
    const std::vector<OmpWork>& waiterWork = waiter.barrierWork;
    // Both lists are sorted by node: the excess per node of the late thread's list, its MPI
    // waits left out.
    std::vector<OmpWork> excess;
    double total = 0.0;
    uint32_t w = waited.firstWork;
    size_t cursor = 0;
    for (uint32_t l = arrived.firstWork; l < arrived.endWork; ++l) {
        const OmpWork& work = lateWork[l];
        while (w < waited.endWork && waiterWork[w].node < work.node) {
            ++w;
        }
        const double other =
            w < waited.endWork && waiterWork[w].node == work.node ? waiterWork[w].seconds : 0.0;
        const double own = work.seconds - mpi.on(work.node, cursor);
        if (own > other) {
            excess.push_back(OmpWork{work.node, own - other});
            total += own - other;
        }
    }
    const double denominator = total + mpi.sum;
    if (!(denominator > 0.0)) {
        return 0.0;
    }
    const double scale = std::min(wait / denominator, 1.0);
    for (const OmpWork& e : excess) {
        addDelay(*late.severities, Metric::DelayOmpbarrier, e.node, e.seconds * scale);
    }
    for (size_t k = mpi.first; k < mpi.end; ++k) {
        OmpMpiWait& state = (*mpi.waits)[k];
        state.cost += scale * state.wait;
    }
    return scale * denominator;
}

/// What the delay costs of barrier waits need besides the team: the holds of critical
/// sections and the master's MPI wait states (null: none).
struct DelayInputs {
    Holds holds;
    std::vector<OmpMpiWait>* mpiWaits = nullptr;
};

void addBarrierWaits(std::vector<Member>& team, const DelayInputs* delay) {
    size_t instances = team.front().barriers.size();
    for (const Member& m : team) {
        instances = std::min(instances, m.barriers.size());
    }
    for (size_t k = 0; k < instances; ++k) {
        double last = 0.0;
        size_t latest = 0;
        for (size_t m = 0; m < team.size(); ++m) {
            const double enter = team[m].timeline->barriers[team[m].barriers[k]].enter;
            if (enter > last) {
                last = enter;
                latest = m;
            }
        }
        const Member& late = team[latest];
        const OmpSpan& arrived = late.timeline->barriers[late.barriers[k]];
        // The late thread's interval: since its previous barrier of the region.
        const double from = k > 0 ? late.timeline->barriers[late.barriers[k - 1]].leave
                                  : late.timeline->parallels[late.parallel].enter;
        MpiWaitsIn mpi;
        if (delay != nullptr && late.thread == 0) {
            mpi.find(delay->mpiWaits, from, arrived.enter);
        }
        for (Member& m : team) {
            const uint32_t index = m.barriers[k];
            const OmpSpan& b = m.timeline->barriers[index];
            double wait = std::min(last, b.leave) - b.enter;
            for (uint32_t t = b.firstTask; t < b.endTask; ++t) {
                const OmpBarrierTask& task = m.timeline->barrierTasks[t];
                if (task.barrier == index) {
                    wait -= overlap(task.enter, task.leave, b.enter, last);
                }
            }
            if (wait > 0.0) {
                m.severities->add(b.implicit ? Metric::OmpIbarrierWait : Metric::OmpEbarrierWait,
                                  b.node, wait);
                if (delay != nullptr && &m != &late) {
                    const double rest =
                        wait - addDelayCosts(late, arrived, *m.timeline, b, wait, mpi);
                    if (rest > 0.0) {
                        addLongTermCosts(late, from, arrived.enter, rest, delay->holds);
                    }
                }
            }
        }
    }
}

void addIdle(SeverityRows& severities, NodeId node, double seconds, bool limited) {
    severities.add(Metric::Time, node, seconds);
    severities.add(Metric::OmpIdleThreads, node, seconds);
    if (limited) {
        severities.add(Metric::OmpLimitedParallelism, node, seconds);
    }
}

} // namespace

void analyzeOpenmp(const OpenmpTimeline& master, const std::vector<OpenmpTimeline>& threads,
                   RankResult& result, bool delayCosts, std::vector<OmpMpiWait>* mpiWaits) {
    if (!master.enabled()) {
        return;
    }
    const size_t workers = std::min(threads.size(), result.threads.size());
    std::vector<const OpenmpTimeline*> all = {&master};
    DelayInputs delay;
    delay.mpiWaits = mpiWaits;
    Holds& holds = delay.holds;
    holds.rows = {&result.severities};
    for (size_t w = 0; w < workers; ++w) {
        all.push_back(&threads[w]);
        holds.rows.push_back(&result.threads[w].severities);
    }
    // Every thread's critical sections in one list by time (they exclude each other).
    std::vector<Held>& held = holds.held;
    for (size_t i = 0; i < all.size(); ++i) {
        for (const OmpSpan& s : all[i]->sblocks) {
            held.push_back(Held{s.enter, s.leave, i, s.node});
        }
    }
    std::sort(held.begin(), held.end(),
              [](const Held& a, const Held& b) { return a.enter < b.enter; });
    std::vector<uint32_t> cursors(workers, 0);
    for (uint32_t p = 0; p < master.parallels.size(); ++p) {
        const OmpSpan& region = master.parallels[p];
        std::vector<Member> team;
        team.push_back(Member{&master, &result.severities, 0, p, {}});
        std::vector<uint32_t> instances = {p};
        for (size_t w = 0; w < workers; ++w) {
            const uint32_t q =
                overlapping(threads[w].parallels, cursors[w], region.enter, region.leave);
            if (q == kNoParallel) {
                // Not in this team: idle while the others work.
                addIdle(result.threads[w].severities, region.node, region.leave - region.enter,
                        true);
                continue;
            }
            team.push_back(Member{&threads[w], &result.threads[w].severities, w + 1, q, {}});
            instances.push_back(q);
        }
        for (size_t m = 0; m < team.size(); ++m) {
            const std::vector<OmpSpan>& barriers = team[m].timeline->barriers;
            for (uint32_t b = 0; b < barriers.size(); ++b) {
                if (barriers[b].parallel == instances[m]) {
                    team[m].barriers.push_back(b);
                }
            }
        }
        addBarrierWaits(team, delayCosts ? &delay : nullptr);
    }
    // Idle threads: every further thread, while the master is outside parallel regions.
    for (size_t w = 0; w < workers; ++w) {
        for (const auto& [node, seconds] : master.serial) {
            addIdle(result.threads[w].severities, node, seconds, false);
        }
    }
    // Critical sections and locks, on every thread of the rank.
    const std::vector<SeverityRows*>& rows = holds.rows;
    for (size_t i = 0; i < all.size(); ++i) {
        for (const OmpSpan& c : all[i]->criticals) {
            double contention = 0.0;
            auto it = std::lower_bound(held.begin(), held.end(), c.enter,
                                       [](const Held& h, double t) { return h.leave < t; });
            for (; it != held.end() && it->enter < c.entered; ++it) {
                if (it->thread != i) {
                    contention += overlap(c.enter, c.entered, it->enter, it->leave);
                }
            }
            contention = std::min(contention, c.entered - c.enter);
            if (contention > 0.0) {
                rows[i]->add(Metric::OmpLockContentionCritical, c.node, contention);
            }
        }
        for (const OmpSpan& l : all[i]->locks) {
            if (l.leave > l.enter) {
                rows[i]->add(Metric::OmpLockContentionApi, l.node, l.leave - l.enter);
            }
        }
    }
}

} // namespace waitscope::analysis
