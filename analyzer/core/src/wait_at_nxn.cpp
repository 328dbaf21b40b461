// Wait at N x N and N x N Completion for all-to-all operations (Allreduce, Allgather[v],
// Alltoall[v,w], Reduce_scatter[_block]).
//
//   a process cannot finish an n-to-n operation before the last one has entered:
//   wait       = max over members(enter) - own enter      (clamped to the call)
//   completion = own exit - min over members(exit)        (clamped to the rest of the call)
#include "pattern_sink.h"

#include <algorithm>

namespace waitscope::analysis {

void detectWaitAtNxn(const CollectiveView& view, PatternSink& sink) {
    const double duration = view.span.exit - view.span.enter;
    const double wait = std::clamp(view.maxEnter() - view.span.enter, 0.0, duration);
    const double completion = std::clamp(view.span.exit - view.minExit(), 0.0, duration - wait);
    sink.record(Metric::MpiWaitNxn, view.span, wait);
    sink.record(Metric::MpiNxnCompletion, view.span, completion);
}

} // namespace waitscope::analysis
