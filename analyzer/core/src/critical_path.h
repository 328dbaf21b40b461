// The critical path of the run, traced backwards across ranks by joining per-rank links.
#pragma once

#include "pattern_sink.h"
#include "waitscope/analysis/transport.h"
#include "waitscope/base/result.h"
#include "waitscope/trace/definitions.h"
#include "waitscope/trace/event_stream.h"

#include <cstdint>
#include <vector>

namespace waitscope::analysis {

/// Exclusive time per call node between consecutive communicating MPI calls ("gaps"), recorded
/// during the profile pass so that the critical path needs no event timestamps later.
/// Gap g is the time before call span g; the last gap follows the last span. Memory: one
/// entry (12 bytes) per distinct call node charged in a gap, 4 bytes per span, 8 per node.
class GapProfile {
public:
    /// Adds `seconds` of exclusive time on `node` to the current gap (ignored inside a span).
    void charge(NodeId node, double seconds);
    /// A communicating MPI call was entered: the current gap ends.
    void openSpan();
    /// The communicating MPI call was left: what follows belongs to the next gap.
    void closeSpan() { m_inSpan = false; }
    /// Frees the scratch space of the recording and the spare capacity once the profile pass
    /// is over.
    void finish();
    /// The time of the rank's last event.
    void setEnd(double seconds) { m_end = seconds; }
    double end() const { return m_end; }
    /// Number of gaps (spans + 1).
    size_t gaps() const { return m_begin.size(); }
    /// Calls `f(node, seconds)` for every entry of gap `g`.
    template <typename F> void forEach(size_t g, F&& f) const {
        const size_t last = g + 1 < m_begin.size() ? m_begin[g + 1] : m_nodes.size();
        for (size_t i = m_begin[g]; i < last; ++i) {
            f(m_nodes[i], m_seconds[i]);
        }
    }

private:
    std::vector<uint32_t> m_begin{0};
    std::vector<NodeId> m_nodes;
    std::vector<double> m_seconds;
    std::vector<uint32_t> m_slot;    ///< per node: its entry in the current gap
    std::vector<uint32_t> m_slotGap; ///< per node: the gap m_slot belongs to, plus one
    bool m_inSpan = false;
    double m_end = 0.0;
};

/// What the critical-path pass reads of one rank's replay.
struct CriticalPathInput {
    const trace::Definitions& definitions;
    const trace::EventStream& events; ///< kinds and records only: timestamps may be freed
    const CallTree& tree;
    const std::vector<CallSpan>& spans;
    const std::vector<ReplayOperation>& operations;
    const GapProfile& gaps;
};

/// Traces the critical path backwards from the end of the run and adds this rank's share to
/// `critical_path` in `sink`. Collective over all ranks (two bulk exchanges, then two gathers of
/// `transport`); fails when the transport fails. Memory beyond the gap profile: 16 bytes per
/// message operation and about 90 per synchronizing collective (freed before the gathers),
/// 20 per reachable local exit (the latest span before a possible entry where a holder would
/// hand the path on) and, while joining, 16 per reachable exit of the rank with the most such
/// exits times the rank count.
Status traceCriticalPath(const CriticalPathInput& input, Transport& transport, PatternSink& sink);

} // namespace waitscope::analysis
