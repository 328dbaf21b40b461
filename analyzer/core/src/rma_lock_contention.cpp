// Lock Contention: an origin's lock epoch (MPI_Win_lock ... MPI_Win_unlock) on a target that
// waits because another origin holds a conflicting lock on the same window (one of the two is
// exclusive). Found on the target, which sees every origin's epochs on its window.
//
//   origin 1  ──[lock]─[put]──────────────[unlock]──        holds the exclusive lock
//   origin 2  ────────[lock]─[put]─[ MPI_Win_unlock ······ ]──
//                                  |<-- contention -->|  until origin 1 released
//
// Epochs are taken in the order of their releases. An epoch waited for the latest release of
// a conflicting epoch of another origin that came after its lock call began and before its own
// release; its waiting call is the call of the epoch running at that release (the lock, a
// transfer or the unlock, wherever the MPI library blocked), and
//   contention = that release - the waiting call's enter
// (none when the origin was between calls at that moment). Scalasca 2.6 defines the pattern on
// the same timestamps (MPI_RMA_LC_COMPUTE); it orders the epochs in its own queue
// (docs/fidelity.md).
#include "rma_patterns.h"

#include <algorithm>
#include <numeric>

namespace waitscope::analysis {

std::vector<LockWait> lockContention(const std::vector<LockEpoch>& epochs) {
    std::vector<LockWait> waits(epochs.size());
    std::vector<size_t> order(epochs.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&epochs](size_t a, size_t b) {
        return epochs[a].release < epochs[b].release;
    });
    for (size_t k = 0; k < order.size(); ++k) {
        const LockEpoch& epoch = epochs[order[k]];
        if (epoch.calls.empty()) {
            continue;
        }
        const double requested = epoch.calls.front().enter;
        // The latest conflicting release before ours (releases are in order: the first one
        // found walking back).
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
        // The call running at the holder's release: the last one entered by then.
        for (size_t c = epoch.calls.size(); c-- > 0;) {
            const CallSpan& call = epoch.calls[c];
            if (call.enter <= holderRelease) {
                if (call.exit >= holderRelease) {
                    waits[order[k]] =
                        LockWait{static_cast<uint32_t>(c), holderRelease - call.enter};
                }
                break;
            }
        }
    }
    return waits;
}

} // namespace waitscope::analysis
