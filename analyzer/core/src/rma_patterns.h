// The one-sided (RMA) wait-state patterns, one file each; rma_replay.cpp gathers what they read.
#pragma once

#include "pattern_sink.h"

#include <cstdint>
#include <vector>

namespace waitscope::analysis {

/// Marks "no transfer" where a time of one is expected.
inline constexpr double kNoTransfer = -1.0e300;

/// Wait at Create, Wait at Free or Wait at Fence (`wait`) of a window's collective call, and for
/// a fence Early Fence: `lastTransferIn` is the latest end of a transfer into this rank in the
/// epoch the fence closes (kNoTransfer when none). rma_collective_wait.cpp.
void detectRmaCollectiveWait(const CollectiveView& view, Metric wait, double lastTransferIn,
                             PatternSink& sink);

/// What an origin saw of one access epoch (MPI_Win_start ... MPI_Win_complete) for Late Post.
struct AccessEpoch {
    CallSpan start;
    CallSpan complete;
    std::vector<CallSpan> transfers; ///< the transfer calls in between, in order
    double lastPost = kNoTransfer;   ///< the latest post of the epoch's targets
};

/// Late Post at the end of access epoch `epoch` (rma_late_post.cpp).
void detectLatePost(const AccessEpoch& epoch, PatternSink& sink);

/// Early Wait and Late Complete at `wait` (MPI_Win_wait, closing an exposure epoch):
/// `lastComplete` is the latest MPI_Win_complete of the epoch's origins, `lastTransfer` the
/// latest end of their transfers into this rank (kNoTransfer when none). rma_early_wait.cpp.
void detectEarlyWait(const CallSpan& wait, double lastComplete, double lastTransfer,
                     PatternSink& sink);

/// One lock epoch of an origin on a target, as the target sees it for Lock Contention: the
/// origin's calls from the lock to the unlock (enter, exit; the lock call first, the unlock
/// call last) and when the origin released the lock.
struct LockEpoch {
    uint32_t origin = 0;
    bool exclusive = false;
    double release = 0.0;
    std::vector<CallSpan> calls; ///< only enter and exit are set
};

/// What Lock Contention found for one epoch: the waiting call (index into its calls) and the
/// time it waited (0 when none).
struct LockWait {
    uint32_t call = 0;
    double waited = 0.0;
};

/// Lock Contention among the lock epochs of one window on this target (rma_lock_contention.cpp):
/// per epoch, in the order given, how long it waited for an earlier conflicting holder.
std::vector<LockWait> lockContention(const std::vector<LockEpoch>& epochs);

/// A time the rank was inside an MPI call (its outermost one), when the MPI library could make
/// progress on one-sided operations other ranks aimed at it.
struct MpiInterval {
    double enter = 0.0;
    double exit = 0.0;
};

/// Wait for Progress of an origin's call [enter, exit] of a lock epoch on this target, whose
/// MPI calls are `inMpi` (in order, not overlapping): how long the call waited for this rank to
/// enter MPI (0 when it was inside MPI at the call's enter or entered only after the call had
/// returned). rma_wait_for_progress.cpp.
double waitForProgress(const std::vector<MpiInterval>& inMpi, double enter, double exit);

/// Wait for Progress of each call of `epoch` on this target (whose MPI calls are `inMpi`).
std::vector<double> progressWaits(const LockEpoch& epoch, const std::vector<MpiInterval>& inMpi);

} // namespace waitscope::analysis
