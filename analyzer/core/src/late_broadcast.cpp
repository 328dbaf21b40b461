// Late Broadcast for 1-to-n operations (Bcast, Scatter[v]).
//
//   root            |--enter------------|
//   receiver  |--enter......waiting......|---|
//             <- severity = root enter - own enter (non-root members only, clamped) ->
#include "pattern_sink.h"

#include <algorithm>

namespace waitscope::analysis {

void detectLateBroadcast(const CollectiveView& view, PatternSink& sink) {
    if (view.root >= view.members() || view.root == view.self) {
        return;
    }
    const double duration = view.span.exit - view.span.enter;
    sink.record(Metric::MpiLateBroadcast, view.span,
                std::clamp(view.enterOf(view.root) - view.span.enter, 0.0, duration));
}

} // namespace waitscope::analysis
