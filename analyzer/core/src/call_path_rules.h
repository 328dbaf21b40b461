// Call-path rules shared by the profile of a rank's main location and of its further threads.
#pragma once

#include "waitscope/analysis/rank_result.h"
#include "waitscope/analysis/region_class.h"
#include "waitscope/trace/definitions.h"

#include <cstdint>
#include <vector>

namespace waitscope::analysis {

/// Adds `seconds` spent on `node`, whose region has class `regionClass`, to Time and to the
/// metrics below it that the class names (execution, computation, the MPI categories, ...).
void addTimeSeverities(SeverityRows& severities, RegionClass regionClass, NodeId node,
                       double seconds);

/// The regions of calling context `context` from its root down (empty for kUndefined). Sets
/// `unknown` when `context` is neither kUndefined nor defined.
std::vector<uint32_t> callingContextPath(const trace::Definitions& definitions, uint32_t context,
                                         bool& unknown);

/// Makes the calling-context frames on top of `stack` (those with `context` set, above the
/// innermost frame of an Enter) equal to `path`, keeping their common prefix: `pop()` leaves the
/// frames that differ, `push(region)` enters each new one, which is then marked as a context
/// frame. So sampled paths hang below the region open on the location.
template <class Frame, class Pop, class Push>
void syncContextFrames(std::vector<Frame>& stack, const std::vector<uint32_t>& path, Pop pop,
                       Push push) {
    size_t base = stack.size();
    while (base > 0 && stack[base - 1].context) {
        --base;
    }
    size_t common = 0;
    while (base + common < stack.size() && common < path.size() &&
           stack[base + common].region == path[common]) {
        ++common;
    }
    while (stack.size() > base + common) {
        pop();
    }
    for (size_t k = common; k < path.size(); ++k) {
        push(path[k]);
        stack.back().context = true;
    }
}

/// Before a Leave of `region`: when the frame below the calling-context frames on top of
/// `stack` is `region`'s, pops those context frames with `pop()`, because a location may
/// leave a region without first leaving the sampled path inside it (a thread's last samples
/// before the Leave of its start routine).
template <class Frame, class Pop>
void leaveContextFramesOf(std::vector<Frame>& stack, uint32_t region, Pop pop) {
    size_t base = stack.size();
    while (base > 0 && stack[base - 1].context) {
        --base;
    }
    if (base == stack.size() || base == 0 || stack[base - 1].region != region) {
        return;
    }
    while (stack.size() > base) {
        pop();
    }
}

} // namespace waitscope::analysis
