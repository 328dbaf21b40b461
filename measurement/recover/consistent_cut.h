// The largest prefix of every rank's events that the analysis can replay when some ranks'
// events end early: no receive without its send, no collective that a member never reached.
//
//   rank 0: ... Send(1) ... Barrier ............ Recv(2) ...|
//   rank 1: ... Recv(0) ... Barrier ... Send(2) |  (died)
//   rank 2: ... Barrier ... Recv(1)  Send(0) ...|
// Rank 2's Recv(1) has its send, so it stays; if rank 1 had died before that Send, rank 2
// would be cut before the MPI call of that Recv, and rank 0 before its Recv(2) in turn, since
// rank 2's Send(0) is gone with the cut. Collectives are matched per communicator by their
// order: a rank keeps the k-th one only if every member kept k. Cutting repeats until nothing
// changes. Sends whose receive is cut away are then dropped from the kept prefix (their
// MPI call stays), as are messages whose peer is unknown.
#pragma once

#include "records_file.h"

#include <cstdint>
#include <vector>

namespace waitscope::measure {

/// A communicator as the cut sees it: its world ranks in communicator-rank order (empty:
/// unknown, so nothing on it can be matched), or MPI_COMM_SELF.
struct CutComm {
    std::vector<std::uint32_t> members;
    bool self = false;
};

/// What the cut keeps of one rank.
struct RankCut {
    std::size_t kept = 0;              ///< events [0, kept) stay
    std::vector<std::size_t> dropped;  ///< indices below `kept` left out (unmatched sends)
    std::uint64_t droppedMessages = 0; ///< sends and receives among them
};

/// Cuts `ranks` (events whose communicator ids index `comms`; rank r is world rank r).
std::vector<RankCut> consistentCut(const std::vector<std::vector<RecordEvent>>& ranks,
                                   const std::vector<CutComm>& comms);

} // namespace waitscope::measure
