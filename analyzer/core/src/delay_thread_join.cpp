// The delay costs of join waits: the main location waited in a join because the joined thread
// worked longer since it began than the main location did since it created the thread.
//
// Overview (the short-term delay costs of Scalasca's root-cause analysis, with the thread's
// creation and end as the synchronization points; Scalasca has no POSIX threads delay costs):
//
//   main     |create c|--work--|join e=====w|
//   thread       |begin b|--work-----------|end x      wait W = x - e
//
// The synchronization interval of the waiting main location is [c, e], the thread's [b, x].
// Per call path, the thread's excess is its time there minus the main location's in its
// interval (at least 0); the time the thread itself spent in wait states (MPI, mutexes and
// condition variables, OpenMP) is not work and is left out. The wait W is charged to the thread's
// call paths in proportion to their excess, and at most the excess: cost(p) = excess(p) * min(W, E)
// / E with E the excess summed (delay_pthread_join and the metrics above it, on the thread's
// location). Left out: long-term costs (what made the thread itself wait is not charged through the
// join), and joins of threads another thread created.
#include "thread_joins.h"
#include "waitscope/analysis/metric.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <vector>

namespace waitscope::analysis {

void addThreadJoinDelays(const ThreadJoins& joins, RankResult& result) {
    // The outermost wait states (values are inclusive along the metric tree).
    std::vector<Metric> waits;
    for (size_t m = 0; m < kMetricCount; ++m) {
        const MetricInfo& info = metricInfo(static_cast<Metric>(m));
        if (info.isPattern && (!info.parent || !metricInfo(*info.parent).isPattern)) {
            waits.push_back(info.metric);
        }
    }
    const std::unordered_map<uint32_t, ThreadResult*> bySequence =
        threadsBySequence(result.threads);
    for (const ThreadJoin& join : joins.joins()) {
        const auto found = bySequence.find(join.sequence);
        if (found == bySequence.end()) {
            continue;
        }
        ThreadResult& thread = *found->second;
        const double wait = thread.end - join.joinEnter;
        if (wait <= 0.0) {
            continue;
        }
        // The main location's work in [c, e]: its time to the join's end but the join itself.
        std::unordered_map<NodeId, double> waiter;
        for (const OmpWork& w : join.between) {
            waiter[w.node] += w.seconds;
        }
        waiter[join.joinNode] -= join.joined - join.joinEnter;
        const SeverityRows& rows = thread.severities;
        const std::vector<double>& time = rows.row(Metric::Time);
        std::vector<OmpWork> excess;
        double sum = 0.0;
        for (NodeId node = 0; node < time.size(); ++node) {
            double work = time[node];
            for (const Metric m : waits) {
                work -= rows.get(m, node);
            }
            const auto w = waiter.find(node);
            const double more = work - (w == waiter.end() ? 0.0 : std::max(0.0, w->second));
            if (more > 0.0) {
                excess.push_back(OmpWork{node, more});
                sum += more;
            }
        }
        if (sum <= 0.0) {
            continue;
        }
        const double scale = std::min(wait, sum) / sum;
        for (const OmpWork& e : excess) {
            for (std::optional<Metric> m = Metric::DelayPthreadJoin; m; m = metricInfo(*m).parent) {
                thread.severities.add(*m, e.node, e.seconds * scale);
            }
        }
    }
}

} // namespace waitscope::analysis
