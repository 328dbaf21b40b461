// Early Scan for prefix operations (Scan, Exscan).
//
//   rank k needs the contributions of ranks 0..k-1 (Exscan) or 0..k (Scan, where the own
//   enter does not delay itself):
//   severity = max over ranks 0..k-1 (enter) - own enter        (clamped to the call)
#include "pattern_sink.h"

#include <algorithm>
#include <limits>

namespace waitscope::analysis {

void detectEarlyScan(const CollectiveView& view, bool exclusive, PatternSink& sink) {
    (void)exclusive; // Both variants wait for the same lower ranks; rank 0 never waits.
    if (view.self == 0) {
        return;
    }
    const double lastLower = view.gathered->maxEnterBelow(view.self);
    const double duration = view.span.exit - view.span.enter;
    sink.record(Metric::MpiEarlyScan, view.span,
                std::clamp(lastLower - view.span.enter, 0.0, duration));
}

} // namespace waitscope::analysis
