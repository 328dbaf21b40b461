// Wait for Progress: an origin's call in a passive-target epoch (MPI_Win_lock ... MPI_Win_unlock,
// or MPI_Win_lock_all ... MPI_Win_unlock_all) that waits because the target is not inside any
// MPI call, so its MPI library cannot serve the lock or the transfer (an MPI without
// asynchronous progress, such as Open MPI's pt2pt one-sided component). Found on the target,
// which knows when it was inside MPI.
//
//   origin   ──[lock]─[put]─[ MPI_Win_unlock ·········· ]──
//   target   ──────── compute, no MPI call ────────[ MPI_Barrier ]──
//                           |<-- wait for progress -->|
//
// An origin call entered while the target was outside MPI waited from its enter until the
// target entered its next MPI call, if the target did so before the call returned:
//   wait for progress = target's next MPI enter - the call's enter
// (none when the target was inside MPI at the call's enter, or entered MPI only after the call
// had returned: then the call did not need it). Scalasca 2.6 defines the pattern the same way
// on the target's first MPI call that ends after the origin's call began (docs/fidelity.md).
//
// The origin combines what its targets found (rma_replay.cpp): a call of an MPI_Win_lock_all
// epoch waited until the last of its targets entered MPI (the longest wait), and a call that
// also waited for a lock (Lock Contention, from its enter until the holder's release) waited
// for progress only for what came after:
//   wait for progress = max(0, progress wait - lock contention).
#include "rma_patterns.h"

#include <algorithm>

namespace waitscope::analysis {

double waitForProgress(const std::vector<MpiInterval>& inMpi, double enter, double exit) {
    // The target's first MPI call that had not ended when the origin's call began.
    const auto next =
        std::lower_bound(inMpi.begin(), inMpi.end(), enter,
                         [](const MpiInterval& call, double time) { return call.exit < time; });
    if (next == inMpi.end() || next->enter <= enter || next->enter > exit) {
        return 0.0;
    }
    return next->enter - enter;
}

std::vector<double> progressWaits(const LockEpoch& epoch, const std::vector<MpiInterval>& inMpi) {
    std::vector<double> waits(epoch.calls.size(), 0.0);
    for (size_t c = 0; c < epoch.calls.size(); ++c) {
        waits[c] = waitForProgress(inMpi, epoch.calls[c].enter, epoch.calls[c].exit);
    }
    return waits;
}

} // namespace waitscope::analysis
