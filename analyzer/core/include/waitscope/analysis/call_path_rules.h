// Call-path rules shared by the profile of a rank's main location and of its further threads.
#pragma once

#include "waitscope/analysis/rank_result.h"
#include "waitscope/analysis/region_class.h"
#include "waitscope/trace/definitions.h"
#include "waitscope/trace/event_stream.h"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <unordered_map>
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

/// Sampled call paths around OpenMP constructs (a program sampled without compiler
/// instrumentation). The OpenMP records carry no call path of their own, and a sample's path
/// runs from `main` (on the master thread) or from the runtime's thread routine (on a worker)
/// through the OpenMP runtime's frames into the outlined function, so that master and workers
/// would differ. For the team to share its constructs' call paths:
/// - inside a parallel region (or another construct, such as a fork) a sampled path keeps only
///   what follows the runtime's last frame (the outlined function on), or nothing when that is
///   system code (the runtime waiting);
/// - an OpenMP construct entered inside a parallel region first leaves the last sample's path,
///   which ran before the construct, not around it;
/// - on the master, a parallel region (or its fork) entered outside parallel regions hangs
///   below the frames before the runtime's in the next sampled path inside the region, or in
///   the last one found for the region when this instance has none.
/// Workers' regions hang below the master's (OpenmpTimeline::anchorOf()).
class SampledOpenmpPaths {
public:
    /// `master`: for the rank's main location (the master thread of its teams).
    SampledOpenmpPaths(const trace::Definitions& definitions, bool master);

    /// Regions of the OpenMP runtime are in the trace (else nothing changes).
    bool enabled() const { return m_enabled; }
    bool isOpenmp(uint32_t region) const { return kindOf(region) >= kConstruct; }
    bool isParallel(uint32_t region) const { return kindOf(region) == kParallel; }
    bool isFork(uint32_t region) const { return kindOf(region) == kFork; }
    bool master() const { return m_master; }
    /// `path` as it hangs inside an OpenMP construct (see above).
    void cutInsideConstruct(std::vector<uint32_t>& path) const;
    /// The path below which region `region` (a parallel region or fork entered at event `i`)
    /// hangs: from the next calling-context record, else from the last one found for it.
    std::vector<uint32_t> forkPath(const trace::EventStream& events, size_t i, uint32_t region);

private:
    /// The frames of calling context `context` before the runtime's first (none without it).
    std::vector<uint32_t> runtimeCaller(uint32_t context) const;
    enum Kind : uint8_t { kOther, kRuntime, kSystem, kConstruct, kParallel, kFork };
    Kind kindOf(uint32_t region) const {
        return region < m_kinds.size() ? static_cast<Kind>(m_kinds[region]) : kOther;
    }

    const trace::Definitions& m_defs;
    std::vector<uint8_t> m_kinds; ///< per region
    bool m_enabled = false;
    bool m_master = false;
    /// By region: the last path found for it (empty: none found, searched once)
    std::unordered_map<uint32_t, std::vector<uint32_t>> m_forkPaths;
};

/// Whether the frames of `stack` below `base` hold an OpenMP parallel region (not a context).
template <class Frame>
bool insideParallel(const std::vector<Frame>& stack, size_t base, const SampledOpenmpPaths& omp) {
    return std::any_of(stack.begin(), stack.begin() + static_cast<std::ptrdiff_t>(base),
                       [&omp](const Frame& f) { return !f.context && omp.isParallel(f.region); });
}

/// Whether the frames of `stack` below `base` hold an OpenMP construct (not a context).
template <class Frame>
bool insideOpenmp(const std::vector<Frame>& stack, size_t base, const SampledOpenmpPaths& omp) {
    return std::any_of(stack.begin(), stack.begin() + static_cast<std::ptrdiff_t>(base),
                       [&omp](const Frame& f) { return !f.context && omp.isOpenmp(f.region); });
}

/// The number of frames of `stack` below its calling-context frames on top.
template <class Frame> size_t framesBelowContext(const std::vector<Frame>& stack) {
    size_t base = stack.size();
    while (base > 0 && stack[base - 1].context) {
        --base;
    }
    return base;
}

/// Applies event `i` of `events` to the call-path `stack` when it is a call-path event, the
/// same way on every location: ProgramBegin and Enter `push(region, time)`; a calling-context
/// record makes the context frames equal to its path (a sample's path ran since the previous
/// event, so it is entered at that event's time); ProgramEnd and Leave `pop(time)` (a Leave
/// first leaves a sampled path open inside its region). Anomalies of the input go to
/// `diagnose(experiment::Diagnostic)`. Returns false, changing nothing, for every other kind of
/// event (communication, ...), which the caller handles. With `openmp` (enabled()), sampled
/// paths meet OpenMP constructs by its rules.
template <class Frame, class Push, class Pop, class Diagnose>
bool applyCallPathEvent(const trace::Definitions& definitions, const trace::EventStream& events,
                        size_t i, std::vector<Frame>& stack, Push push, Pop pop, Diagnose diagnose,
                        SampledOpenmpPaths* openmp = nullptr) {
    using trace::EventKind;
    const uint64_t t = events.time(i);
    const auto sync = [&](const std::vector<uint32_t>& path, uint64_t now) {
        syncContextFrames(
            stack, path, [&] { pop(now); }, [&](uint32_t region) { push(region, now); });
    };
    const auto syncContext = [&](uint32_t context, uint64_t now) {
        bool unknown = false;
        std::vector<uint32_t> path = callingContextPath(definitions, context, unknown);
        if (unknown) {
            diagnose(experiment::Diagnostic::UnknownCallingContext);
        }
        if (openmp != nullptr && insideOpenmp(stack, framesBelowContext(stack), *openmp)) {
            openmp->cutInsideConstruct(path);
        }
        sync(path, now);
    };
    switch (events.kind(i)) {
    case EventKind::ProgramBegin:
        push(definitions.programRegion(events.ref(i)), t);
        return true;
    case EventKind::Enter: {
        const uint32_t region = events.ref(i);
        if (openmp != nullptr && openmp->isOpenmp(region)) {
            const size_t base = framesBelowContext(stack);
            if (insideParallel(stack, base, *openmp)) {
                sync({}, t); // the last sample's path ran before the construct
            } else if (openmp->master() && (openmp->isParallel(region) || openmp->isFork(region))) {
                if (const std::vector<uint32_t> path = openmp->forkPath(events, i, region);
                    !path.empty()) {
                    sync(path, t);
                }
            }
        }
        push(region, t);
        return true;
    }
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
