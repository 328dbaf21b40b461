// Initialization Completion (MPI_Init) and Wait at Finalize (MPI_Finalize).
//
// Communicator creation and destruction inside these calls synchronize nothing the
// program asked for, so only two parts are attributed:
//   init completion = own exit - min over ranks(exit of MPI_Init)
//   finalize wait   = max over ranks(enter of MPI_Finalize) - own enter
// Both clamped to the call's duration.
#include "pattern_sink.h"

#include <algorithm>

namespace waitscope::analysis {

void detectInitCompletion(const CollectiveView& view, PatternSink& sink) {
    const double duration = view.span.exit - view.span.enter;
    sink.record(Metric::MpiInitCompletion, view.span,
                std::clamp(view.span.exit - view.minExit(), 0.0, duration));
}

void detectFinalizeWait(const CollectiveView& view, PatternSink& sink) {
    const double duration = view.span.exit - view.span.enter;
    sink.record(Metric::MpiFinalizeWait, view.span,
                std::clamp(view.maxEnter() - view.span.enter, 0.0, duration));
}

} // namespace waitscope::analysis
