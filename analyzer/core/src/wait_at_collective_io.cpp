// Wait at Collective I/O (mpi_io_wait_collective, Waitscope's own pattern: Scalasca 2.6 has
// none) for the collective file operations the reader models from the OTF2 I/O records
// (trace::CollectiveOp::FileIo: opening and closing a file, a blocking collective read or write,
// the begin of a split collective, a sync), over the communicator the file was opened on.
//
//   rank 0  |--enter==========wait==========|==write==|
//   rank 1                  (late) |--enter-|==write==|
//
//   wait = max over members(enter) - own enter      (clamped to the call)
//
// As Wait at N x N: a collective file operation cannot go on before every member has arrived
// (MPI-IO's two-phase collective buffering exchanges the data of all members first). No
// completion part: what follows the last arrival is the I/O itself.
#include "pattern_sink.h"

#include <algorithm>

namespace waitscope::analysis {

void detectWaitAtCollectiveIo(const CollectiveView& view, PatternSink& sink) {
    const double duration = view.span.exit - view.span.enter;
    sink.record(Metric::MpiIoWaitCollective, view.span,
                std::clamp(view.maxEnter() - view.span.enter, 0.0, duration));
}

} // namespace waitscope::analysis
