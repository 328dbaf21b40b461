// The clock condition of a collective: which members' enters the exit of a member must follow.
#pragma once

#include "collective_shape.h"
#include "pattern_sink.h"
#include "waitscope/trace/event_stream.h"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace waitscope::analysis {

/// Whether the exit of communicator rank `self` must follow the enter of rank `member` in a
/// collective `op` with `root` (a communicator rank or kUndefined): everyone's in N-to-N
/// operations and barriers, the root's for a non-root in 1-to-N, everyone's for the root in
/// N-to-1, the lower ranks' in a scan (the own one too for an inclusive scan). Operations that
/// do not synchronize (communicator creation, MPI_Init, ...) bind nothing.
inline bool enterBindsExit(trace::CollectiveOp op, uint32_t member, uint32_t self, uint32_t root) {
    switch (collectiveShape(op)) {
    case CollectiveShape::Barrier:
    case CollectiveShape::NToN:
        return true;
    case CollectiveShape::OneToN:
        return member == root && self != root;
    case CollectiveShape::NToOne:
        return self == root;
    case CollectiveShape::Scan:
        return member <= self;
    case CollectiveShape::Exscan:
        return member < self;
    case CollectiveShape::None:
        return false;
    }
    return false;
}

/// Whether `op` binds any exit to any enter (then a clock correction exchanges its times).
inline bool synchronizes(trace::CollectiveOp op) {
    // Member 0 binds member 1's exit in every synchronizing operation except a 1-to-N one
    // rooted elsewhere, and 1-to-N binds the non-root's exit to the root's enter.
    return enterBindsExit(op, 0, 1, 0) || enterBindsExit(op, 0, 1, 1);
}

/// Whether the exit of a member whose collective end is `own` is bound by any enter at all: a
/// barrier's always; otherwise only when the member receives data in it, since leaving before
/// a partner entered is legal when nothing comes from that partner (a 0-byte broadcast, a
/// scatter or gather that moves nothing to this member). MPI_Alltoallv/w bind nothing: their
/// records do not say who sends to whom (as Scalasca's clock correction treats them).
inline bool exitIsBound(const trace::CollectiveRecord& own) {
    switch (collectiveShape(own.op)) {
    case CollectiveShape::Barrier:
        return true;
    case CollectiveShape::None:
        return false;
    default:
        return own.received > 0 && !isPairwiseVariant(own.op);
    }
}

/// Whether the own exit in `view` of the collective whose end is `own` comes before the enter
/// of a member that binds it (a clock condition violation).
inline bool exitPrecedesBindingEnter(const trace::CollectiveRecord& own,
                                     const CollectiveView& view) {
    if (!exitIsBound(own) || view.members() == 0) {
        return false;
    }
    // The latest binding enter, from the collective's reductions (see enterBindsExit()).
    const GatheredCollective& all = *view.gathered;
    double latest = -std::numeric_limits<double>::infinity();
    switch (collectiveShape(own.op)) {
    case CollectiveShape::Barrier:
    case CollectiveShape::NToN:
        latest = all.maxEnter();
        break;
    case CollectiveShape::OneToN:
        if (view.self != view.root && view.root < view.members()) {
            latest = all.enterOf(view.root);
        }
        break;
    case CollectiveShape::NToOne:
        if (view.self == view.root) {
            latest = all.maxEnter();
        }
        break;
    case CollectiveShape::Scan:
        latest = all.maxEnterBelow(view.self);
        if (view.self < view.members()) {
            latest = std::max(latest, all.enterOf(view.self));
        }
        break;
    case CollectiveShape::Exscan:
        latest = all.maxEnterBelow(view.self);
        break;
    case CollectiveShape::None:
        break;
    }
    return view.span.exit < latest;
}

} // namespace waitscope::analysis
