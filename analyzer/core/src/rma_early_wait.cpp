// Early Wait and Late Complete: the target of an exposure epoch waits in MPI_Win_wait for the
// last origin to close its access epoch (MPI_Win_complete).
//
//   origin  ──[start]─[put]────────────[complete]──
//   target  ──[post]──[ MPI_Win_wait ················ ]──
//                     |<------ early wait ------->|
//                          |<-- late complete -->|  from the origin's last transfer on
//
//   early wait    = latest complete - wait's enter                       (when positive)
//   late complete = latest complete - max(last transfer's end, wait's enter)
// both at most the time in the call, as Scalasca 2.6's MPI_RMA pattern file defines them
// (MPI_RMA_POST_WAIT, MPI_RMA_EARLY_WAIT); the transfer's end is the end of the origin's
// transfer call (docs/fidelity.md).
#include "rma_patterns.h"

#include <algorithm>

namespace waitscope::analysis {

void detectEarlyWait(const CallSpan& wait, double lastComplete, double lastTransfer,
                     PatternSink& sink) {
    if (!(lastComplete > wait.enter)) {
        return;
    }
    const double end = std::min(lastComplete, wait.exit);
    const double early = end - wait.enter;
    sink.record(Metric::MpiRmaEarlyWait, wait, early);
    const double from = std::max(lastTransfer, wait.enter);
    sink.record(Metric::MpiRmaLateComplete, wait, std::clamp(end - from, 0.0, early));
}

} // namespace waitscope::analysis
