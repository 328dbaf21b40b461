// Wait at Create, Wait at Free and Wait at Fence: time in a window's collective call before the
// last member of the window's communicator entered it; and Early Fence, the part of a fence's
// wait spent until the last transfer into this rank of the closing epoch ended.
//
//   rank A  ──[ MPI_Win_fence ·········· ]──
//   rank B  ────────────[ MPI_Win_fence  ]──        (B puts into A just before its fence)
//              |<- wait ->|
//              |<-early->|  ends with B's transfer into A
//
//   wait  = max over members(enter) - own enter, when every member's call overlaps every
//           other's (the earliest exit is after the latest enter: the call did synchronize)
//   early = last transfer into this rank - own enter, when that transfer ended inside the call
//           (at most the wait)
//
// As Scalasca 2.6's MPI_RMA pattern file defines them (MPI_RMA_COLLECTIVE_END); the transfer
// time is the end of the origin's transfer call (docs/fidelity.md).
#include "rma_patterns.h"

#include <algorithm>

namespace waitscope::analysis {

void detectRmaCollectiveWait(const CollectiveView& view, Metric wait, double lastTransferIn,
                             PatternSink& sink) {
    const double latest = view.maxEnter();
    if (!(view.minExit() > latest) || !(view.span.enter < latest)) {
        return;
    }
    const double waited = std::min(latest, view.span.exit) - view.span.enter;
    sink.record(wait, view.span, waited);
    if (wait == Metric::MpiRmaWaitAtFence && lastTransferIn > view.span.enter &&
        lastTransferIn <= view.span.exit) {
        sink.record(Metric::MpiRmaEarlyFence, view.span,
                    std::min(lastTransferIn - view.span.enter, waited));
    }
}

} // namespace waitscope::analysis
