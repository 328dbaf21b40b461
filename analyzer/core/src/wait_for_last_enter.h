// The wait of a collective no member can leave before the last one has entered (barriers,
// n-to-n operations) and its completion time, shared by Wait at Barrier and Wait at N x N.
//
//   wait       = max over members(enter) - own enter      (clamped to the call)
//   completion = own exit - min over members(exit)        (clamped to the rest of the call)
//
// Both are clamped, so clock errors never make them negative or larger than the time actually
// spent in the call.
#pragma once

#include "pattern_sink.h"

#include <algorithm>

namespace waitscope::analysis {

/// Records `view`'s wait for the last member to enter as `wait`, and the time after the first
/// member left as `completion`.
inline void recordWaitForLastEnter(const CollectiveView& view, PatternSink& sink, Metric wait,
                                   Metric completion) {
    const double duration = view.span.exit - view.span.enter;
    const double waited = std::clamp(view.maxEnter() - view.span.enter, 0.0, duration);
    const double completed = std::clamp(view.span.exit - view.minExit(), 0.0, duration - waited);
    sink.record(wait, view.span, waited);
    sink.record(completion, view.span, completed);
}

} // namespace waitscope::analysis
