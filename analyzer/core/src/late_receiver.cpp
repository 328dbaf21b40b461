// Late Receiver: a blocking send that cannot complete until the receiver posts its receive.
//
//   sender    |--enter......waiting.......|----|exit
//   receiver                    |--enter (recv)-----|
//             <- severity = recv enter - send enter ->
//
// Only a send still in progress when the receive begins waited for it: a send that returned
// before (or when) the receive was entered had its message buffered, and waited for nothing,
// however long it took (as Scalasca 2.6 rules; docs/fidelity.md, "Differential oracle
// findings"). Found in the backward replay, where each receive tells its sender when it
// started.
// Counted as mpi_clr_count (message with payload) or mpi_slr_count (zero bytes).
#include "pattern_sink.h"

namespace waitscope::analysis {

double lateReceiverWait(double sendEnter, double sendExit, double receiveEnter) {
    if (receiveEnter <= sendEnter || receiveEnter >= sendExit) {
        return 0.0;
    }
    return receiveEnter - sendEnter;
}

double detectLateReceiver(const CallSpan& send, const ReplayRecord& receive, uint64_t length,
                          PatternSink& sink) {
    const double severity = lateReceiverWait(send.enter, send.exit, receive.enter);
    if (severity <= 0.0) {
        return 0.0;
    }
    sink.record(Metric::MpiLateReceiver, send, severity);
    sink.add(length > 0 ? Metric::MpiClrCount : Metric::MpiSlrCount, send, 1.0);
    return severity;
}

} // namespace waitscope::analysis
