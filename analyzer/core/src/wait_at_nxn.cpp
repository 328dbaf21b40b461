// Wait at N x N and N x N Completion for all-to-all operations (Allreduce, Allgather[v],
// Alltoall[v,w], Reduce_scatter[_block]).
//
//   a process cannot finish an n-to-n operation before the last one has entered:
//   wait       = max over members(enter) - own enter      (clamped to the call)
//   completion = own exit - min over members(exit)        (clamped to the rest of the call)
#include "wait_for_last_enter.h"

namespace waitscope::analysis {

void detectWaitAtNxn(const CollectiveView& view, PatternSink& sink) {
    recordWaitForLastEnter(view, sink, Metric::MpiWaitNxn, Metric::MpiNxnCompletion);
}

} // namespace waitscope::analysis
