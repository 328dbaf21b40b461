// Early Reduce for n-to-1 operations (Reduce, Gather[v]).
//
//   root     |--enter......waiting...............|-----|
//   sender i                 |--enter----------------|
//   sender j                            |--enter (last)--|
//            <- severity = max over non-root members(enter) - root enter (root only, clamped) ->
//
// The root cannot complete before the last contribution has been sent.
#include "pattern_sink.h"

#include <algorithm>
#include <limits>

namespace waitscope::analysis {

void detectEarlyReduce(const CollectiveView& view, PatternSink& sink) {
    if (view.root != view.self || view.members() < 2) {
        return;
    }
    const double lastSender = view.gathered->maxEnterExcept(view.root);
    const double duration = view.span.exit - view.span.enter;
    sink.record(Metric::MpiEarlyReduce, view.span,
                std::clamp(lastSender - view.span.enter, 0.0, duration));
}

} // namespace waitscope::analysis
