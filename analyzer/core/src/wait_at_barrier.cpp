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
#include "wait_for_last_enter.h"

namespace waitscope::analysis {

void detectWaitAtBarrier(const CollectiveView& view, PatternSink& sink) {
    recordWaitForLastEnter(view, sink, Metric::MpiBarrierWait, Metric::MpiBarrierCompletion);
}

} // namespace waitscope::analysis
