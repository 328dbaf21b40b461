// The rank's stretches of the critical path cut at its pieces on further threads (path_cut.h).
#include "path_cut.h"

#include <algorithm>

namespace waitscope::analysis {

void cutPathOntoThreads(RankResult& result, std::vector<ThreadPiece> pieces) {
    if (pieces.empty()) {
        return;
    }
    std::sort(pieces.begin(), pieces.end(),
              [](const ThreadPiece& a, const ThreadPiece& b) { return a.begin < b.begin; });
    // One piece per run of touching pieces on the same location.
    std::vector<ThreadPiece> merged;
    for (const ThreadPiece& p : pieces) {
        if (!merged.empty() && merged.back().location == p.location &&
            merged.back().end == p.begin) {
            merged.back().end = p.end;
            merged.back().after = p.after;
        } else {
            merged.push_back(p);
        }
    }
    std::vector<PathSegment> cut;
    cut.reserve(result.criticalPath.size() + 2 * merged.size());
    for (const PathSegment& s : result.criticalPath) {
        if (s.rank != result.rank || s.location != PathSegment::kMainLocation) {
            cut.push_back(s);
            continue;
        }
        // The pieces the stretch holds whole, latest first.
        auto first =
            std::lower_bound(merged.begin(), merged.end(), s.start,
                             [](const ThreadPiece& p, double start) { return p.begin < start; });
        auto last = first;
        while (last != merged.end() && last->end <= s.end) {
            ++last;
        }
        PathSegment main = s; // the main location's part being cut, from its end back
        for (auto p = last; p != first;) {
            --p;
            if (p->end < main.end) {
                PathSegment after = main;
                after.start = p->end;
                after.from = p->after;
                cut.push_back(after);
            }
            PathSegment thread = main;
            thread.start = p->begin;
            thread.end = p->end;
            thread.from = kNoNode;
            thread.to = kNoNode;
            thread.location = p->location;
            cut.push_back(thread);
            main.end = p->begin;
            main.to = p->before;
        }
        if (main.end > main.start || first == last) {
            cut.push_back(main);
        }
    }
    result.criticalPath = std::move(cut);
}

} // namespace waitscope::analysis
