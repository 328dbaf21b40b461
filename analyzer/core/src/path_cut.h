// The rank's stretches of the critical path cut where the path runs on further threads, so
// that critical_path.txt and the timeline show each piece on its own location.
#pragma once

#include "waitscope/analysis/rank_result.h"

#include <vector>

namespace waitscope::analysis {

/// A piece of the path on a further thread inside one of the rank's stretches on its main
/// location: [begin, end] on `location`; the main location's piece before it ends in call path
/// `before`, the one after it starts in `after` (kNoNode: none named).
struct ThreadPiece {
    double begin = 0.0;
    double end = 0.0;
    uint64_t location = 0;
    NodeId before = kNoNode;
    NodeId after = kNoNode;
};

/// Cuts each of `result`'s stretches on the main location at the pieces it holds whole (pieces
/// must not overlap), keeping the rank's order, latest first: the main location's parts
/// between the pieces, the pieces on their locations. Consecutive pieces on one location that
/// touch become one. Pieces no stretch holds whole are left out.
void cutPathOntoThreads(RankResult& result, std::vector<ThreadPiece> pieces);

} // namespace waitscope::analysis
