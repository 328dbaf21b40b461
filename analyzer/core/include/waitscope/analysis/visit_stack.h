// The frames open on one location while its events are read, and the visits they become when
// they close: the call-path rules (call_path_rules.h), so that the timeline and the browser
// exports draw the call paths the report counts. The program (ProgramBegin) is the outermost
// visit, and a sample's calling context is entered where the time it stands for begins (the
// previous event), so the time between MPI calls of a rank traced without user regions is the
// sampled functions' or, without samples, the program's: computation, not a gap.
#pragma once

#include "waitscope/analysis/call_path_rules.h"
#include "waitscope/trace/definitions.h"
#include "waitscope/trace/event_stream.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace waitscope::analysis {

/// The open frames of one location, kept between the windows its events are read in. The
/// timeline's cache builders (Timeline::load() and TimelineCollector) and the exports
/// (exporter::walkTrace()) read with it, so that they show the same visits.
class VisitStack {
public:
    /// Applies event `e` of `events` when it opens or closes frames (Enter, Leave, ProgramBegin,
    /// ProgramEnd, calling-context records) and returns true; false, changing nothing, for any
    /// other event. Every frame it opens is handed to `open(depth, start, region)` and every
    /// frame it closes to `visit(depth, start, end, region)` (depth 0 outermost, times in ticks
    /// of the trace clock; a region the definitions do not hold is region 0). A sample's path is
    /// entered at the previous event's time, so for the first event of a window `events` must
    /// hold the previous window's last time before it.
    template <class OnOpen, class OnVisit>
    bool apply(const trace::Definitions& definitions, const trace::EventStream& events, size_t e,
               OnOpen&& open, OnVisit&& visit) {
        const size_t regions = definitions.regions.size();
        return applyCallPathEvent(
            definitions, events, e, m_frames,
            [&](uint32_t region, uint64_t ticks) {
                open(m_frames.size(), ticks, region < regions ? region : 0u);
                // Filled in place: a frame built on the stack and copied is read back whole
                // before its parts are stored (a stall on every enter).
                Frame& frame = m_frames.emplace_back();
                frame.region = region;
                frame.start = ticks;
            },
            [&](uint64_t ticks) {
                const Frame& frame = m_frames.back();
                visit(m_frames.size() - 1, frame.start, ticks,
                      frame.region < regions ? frame.region : 0u);
                m_frames.pop_back();
            },
            [](experiment::Diagnostic) {});
    }

    /// apply() for callers that take the visits only.
    template <class OnVisit>
    bool apply(const trace::Definitions& definitions, const trace::EventStream& events, size_t e,
               OnVisit&& visit) {
        return apply(
            definitions, events, e, [](size_t, uint64_t, uint32_t) {}, visit);
    }

    /// The innermost open frame's region (its definition's reference), or 0 when none is open.
    uint32_t innermost() const { return m_frames.empty() ? 0u : m_frames.back().region; }

private:
    /// What applyCallPathEvent() keeps per frame (region, and whether a calling-context record
    /// opened it) and when it opened.
    struct Frame {
        uint32_t region = 0;
        uint64_t start = 0;
        bool context = false;
    };
    std::vector<Frame> m_frames;
};

} // namespace waitscope::analysis
