// Late Post: an origin's access epoch (MPI_Win_start ... MPI_Win_complete) that waits because a
// target has not yet exposed its window (MPI_Win_post).
//
//   target  ──────────────[post]──────────────[ MPI_Win_wait ]──
//   origin  ──[start]─[put]─[ MPI_Win_complete ···· ]──
//                           |<- late post ->|  until the latest post of the epoch's targets
//
// Where the origin waited depends on the MPI library: the latest post falls inside
//   MPI_Win_complete:  late post = post - complete's enter   (synchronization: sync_late_post)
//   MPI_Win_start:     late post = post - start's enter      (synchronization: sync_late_post)
//   a transfer call:   late post = post - transfer's enter   (communication: comm_late_post)
// checked in this order, as Scalasca 2.6's MPI_RMA pattern file does (MPI_RMA_POST_COMPLETE).
#include "rma_patterns.h"

namespace waitscope::analysis {
namespace {

bool inside(double time, const CallSpan& call) {
    return time > call.enter && time < call.exit;
}

} // namespace

void detectLatePost(const AccessEpoch& epoch, PatternSink& sink) {
    const double post = epoch.lastPost;
    if (inside(post, epoch.complete)) {
        sink.record(Metric::MpiRmaSyncLatePost, epoch.complete, post - epoch.complete.enter);
        return;
    }
    if (inside(post, epoch.start)) {
        sink.record(Metric::MpiRmaSyncLatePost, epoch.start, post - epoch.start.enter);
        return;
    }
    for (const CallSpan& transfer : epoch.transfers) {
        if (inside(post, transfer)) {
            sink.record(Metric::MpiRmaCommLatePost, transfer, post - transfer.enter);
        }
    }
}

} // namespace waitscope::analysis
