// Lock Contention: an origin's lock epoch (MPI_Win_lock ... MPI_Win_unlock) on a target that
// waits because another origin holds a conflicting lock on the same window (one of the two is
// exclusive). Found on the target, which sees every origin's epochs on its window.
//
//   origin 1  ──[lock]─[put]──────────────[unlock]──        holds the exclusive lock
//   origin 2  ────────[lock]─[put]─[ MPI_Win_unlock ······ ]──
//                                  |<-- contention -->|  until origin 1 released
//
// Epochs are taken in the order of their requests (the lock call's enter). An epoch waited
// when the conflicting epoch of another origin requested last before it still held the lock at
// its request: until that holder's release (its unlock's leave), at the latest until its own
// release (an unlock may return after the lock was passed on). Its waiting call is the call of
// the epoch running then (the lock, a transfer or the unlock, wherever the MPI library
// blocked), and
//   contention = min(holder's release, own release) - the waiting call's enter
// (none when the origin was between calls at that moment). Scalasca 2.6 defines the pattern on
// the same timestamps (MPI_RMA_LC_COMPUTE); it orders the epochs in its own queue
// (docs/fidelity.md).
#include "rma_patterns.h"

#include <algorithm>

namespace waitscope::analysis {

std::vector<LockWait> lockContention(const std::vector<LockEpoch>& epochs) {
    std::vector<LockWait> waits(epochs.size());
    // Epochs in the order of their requests (the enter of their lock call).
    std::vector<size_t> order;
    for (size_t e = 0; e < epochs.size(); ++e) {
        if (!epochs[e].calls.empty()) {
            order.push_back(e);
        }
    }
    std::stable_sort(order.begin(), order.end(), [&epochs](size_t a, size_t b) {
        return epochs[a].calls.front().enter < epochs[b].calls.front().enter;
    });
    for (size_t k = 0; k < order.size(); ++k) {
        const LockEpoch& epoch = epochs[order[k]];
        const double requested = epoch.calls.front().enter;
        // The holder: the conflicting epoch of another origin requested last before this one
        // (the first one found walking back), if it still held the lock at this request.
        double holderRelease = kNoTransfer;
        for (size_t j = k; j-- > 0;) {
            const LockEpoch& earlier = epochs[order[j]];
            if (earlier.origin != epoch.origin && (earlier.exclusive || epoch.exclusive)) {
                holderRelease = earlier.release;
                break;
            }
        }
        if (!(holderRelease > requested)) {
            continue;
        }
        // The wait ends with the holder's release, at the latest with this epoch's own (the
        // holder's unlock may return after the waiter was served).
        const double end = std::min(holderRelease, epoch.release);
        // The call running then: the last one entered by then.
        for (size_t c = epoch.calls.size(); c-- > 0;) {
            const CallSpan& call = epoch.calls[c];
            if (call.enter <= end) {
                if (call.exit >= end) {
                    waits[order[k]] = LockWait{static_cast<uint32_t>(c), end - call.enter};
                }
                break;
            }
        }
    }
    return waits;
}

} // namespace waitscope::analysis
