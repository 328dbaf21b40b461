// Call-path rules shared by the profile of a rank's main location and of its further threads.
#pragma once

#include "waitscope/analysis/rank_result.h"
#include "waitscope/analysis/region_class.h"
#include "waitscope/trace/definitions.h"
#include "waitscope/trace/event_stream.h"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

namespace waitscope::analysis {

/// Adds `seconds` spent on `node`, whose region has class `regionClass`, to Time and to the
/// metrics below it that the class names (execution, computation, the MPI categories, ...).
void addTimeSeverities(SeverityRows& severities, RegionClass regionClass, NodeId node,
                       double seconds);

/// The regions of calling context `context` from its root down (empty for kUndefined). Sets
/// `unknown` when `context` is neither kUndefined nor defined.
std::vector<uint32_t> callingContextPath(const trace::Definitions& definitions, uint32_t context,
                                         bool& unknown);

/// Makes the calling-context frames on top of `stack` (those with `context` set, above the
/// innermost frame of an Enter) equal to `path`, keeping their common prefix: `pop()` leaves the
/// frames that differ, `push(region)` enters each new one, which is then marked as a context
/// frame. So sampled paths hang below the region open on the location.
template <class Frame, class Pop, class Push>
void syncContextFrames(std::vector<Frame>& stack, const std::vector<uint32_t>& path, Pop pop,
                       Push push) {
    size_t base = stack.size();
    while (base > 0 && stack[base - 1].context) {
        --base;
    }
    size_t common = 0;
    while (base + common < stack.size() && common < path.size() &&
           stack[base + common].region == path[common]) {
        ++common;
    }
    while (stack.size() > base + common) {
        pop();
    }
    for (size_t k = common; k < path.size(); ++k) {
        push(path[k]);
        stack.back().context = true;
    }
}

/// Before a Leave of `region`: when the frame below the calling-context frames on top of
/// `stack` is `region`'s, pops those context frames with `pop()`, because a location may
/// leave a region without first leaving the sampled path inside it (a thread's last samples
/// before the Leave of its start routine).
template <class Frame, class Pop>
void leaveContextFramesOf(std::vector<Frame>& stack, uint32_t region, Pop pop) {
    size_t base = stack.size();
    while (base > 0 && stack[base - 1].context) {
        --base;
    }
    if (base == stack.size() || base == 0 || stack[base - 1].region != region) {
        return;
    }
    while (stack.size() > base) {
        pop();
    }
}

/// Applies event `i` of `events` to the call-path `stack` when it is a call-path event, the
/// same way on every location: ProgramBegin and Enter `push(region, time)`; a calling-context
/// record makes the context frames equal to its path (a sample's path ran since the previous
/// event, so it is entered at that event's time); ProgramEnd and Leave `pop(time)` (a Leave
/// first leaves a sampled path open inside its region). Anomalies of the input go to
/// `diagnose(experiment::Diagnostic)`. Returns false, changing nothing, for every other kind of
/// event (communication, ...), which the caller handles.
template <class Frame, class Push, class Pop, class Diagnose>
bool applyCallPathEvent(const trace::Definitions& definitions, const trace::EventStream& events,
                        size_t i, std::vector<Frame>& stack, Push push, Pop pop,
                        Diagnose diagnose) {
    using trace::EventKind;
    const uint64_t t = events.time(i);
    const auto syncContext = [&](uint32_t context, uint64_t now) {
        bool unknown = false;
        const std::vector<uint32_t> path = callingContextPath(definitions, context, unknown);
        if (unknown) {
            diagnose(experiment::Diagnostic::UnknownCallingContext);
        }
        syncContextFrames(
            stack, path, [&] { pop(now); }, [&](uint32_t region) { push(region, now); });
    };
    switch (events.kind(i)) {
    case EventKind::ProgramBegin:
        push(definitions.programRegion(events.ref(i)), t);
        return true;
    case EventKind::Enter:
        push(events.ref(i), t);
        return true;
    case EventKind::CallingContextEnter:
        syncContext(events.ref(i), t);
        return true;
    case EventKind::CallingContextSample:
        // A sample names the path that ran since the previous event: its weight is that
        // interval (outside MPI, which ends in its own events), so sampled time and measured
        // MPI time add up to the run's time.
        syncContext(events.ref(i), i > 0 ? std::min(events.time(i - 1), t) : t);
        return true;
    case EventKind::CallingContextLeave: {
        const uint32_t context = events.ref(i);
        syncContext(context < definitions.callingContexts.size()
                        ? definitions.callingContexts[context].parent
                        : trace::kUndefined,
                    t);
        return true;
    }
    case EventKind::ProgramEnd:
    case EventKind::Leave: {
        const bool leave = events.kind(i) == EventKind::Leave;
        if (leave) {
            leaveContextFramesOf(stack, events.ref(i), [&] { pop(t); });
        }
        if (stack.empty()) {
            diagnose(experiment::Diagnostic::UnmatchedLeave);
            return true;
        }
        if (leave && stack.back().region != events.ref(i)) {
            diagnose(experiment::Diagnostic::MismatchedLeave);
        }
        pop(t);
        return true;
    }
    default:
        return false;
    }
}

} // namespace waitscope::analysis
