// Wait at Barrier and Barrier Completion.
//
//   rank 0  |--enter.........................|exit
//   rank 1             |--enter--------------------|exit
//   rank 2                        |--enter (last)----------|exit
//            <-- wait = max(enter) - own enter -->
//                                  completion = own exit - min(exit) -->
//
// Both are clamped to the call's duration, so clock errors never make them negative or
// larger than the time actually spent in the barrier.
#include "pattern_sink.h"

#include <algorithm>

namespace waitscope::analysis {

void detectWaitAtBarrier(const CollectiveView& view, PatternSink& sink) {
    const double duration = view.span.exit - view.span.enter;
    const double wait = std::clamp(view.maxEnter() - view.span.enter, 0.0, duration);
    const double completion = std::clamp(view.span.exit - view.minExit(), 0.0, duration - wait);
    sink.record(Metric::MpiBarrierWait, view.span, wait);
    sink.record(Metric::MpiBarrierCompletion, view.span, completion);
}

} // namespace waitscope::analysis
