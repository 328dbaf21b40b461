// How a collective operation synchronizes its members: one classification for the wait-state
// patterns, the root-cause passes and the clock correction.
#pragma once

#include "waitscope/trace/event_stream.h"

#include <cstdint>

namespace waitscope::analysis {

enum class CollectiveShape : uint8_t {
    Barrier, ///< MPI_Barrier: everyone leaves after the last one entered
    NToN,    ///< every member sends to every member (Allreduce, Allgather, Alltoall, ...)
    OneToN,  ///< the root sends to all (Bcast, Scatter)
    NToOne,  ///< all send to the root (Reduce, Gather)
    Scan,    ///< inclusive prefix: member i needs members 0..i
    Exscan,  ///< exclusive prefix: member i needs members 0..i-1
    None,    ///< synchronizes no one (communicator creation and destruction, MPI_Init,
             ///< Alltoallv/w, ...)
};

/// The shape of collective operation `op`.
inline CollectiveShape collectiveShape(trace::CollectiveOp op) {
    using Op = trace::CollectiveOp;
    switch (op) {
    case Op::Barrier:
        return CollectiveShape::Barrier;
    case Op::Allgather:
    case Op::Allgatherv:
    case Op::Alltoall:
    case Op::Allreduce:
    case Op::ReduceScatter:
    case Op::ReduceScatterBlock:
        return CollectiveShape::NToN;
    case Op::Bcast:
    case Op::Scatter:
    case Op::Scatterv:
        return CollectiveShape::OneToN;
    case Op::Reduce:
    case Op::Gather:
    case Op::Gatherv:
        return CollectiveShape::NToOne;
    case Op::Scan:
        return CollectiveShape::Scan;
    case Op::Exscan:
        return CollectiveShape::Exscan;
    case Op::Alltoallv:
    case Op::Alltoallw:
        // Per-pair counts may make them any pattern of pairwise exchange, which their records
        // do not tell: no one waits in them for anyone (as Scalasca 2.6 rules).
    default:
        return CollectiveShape::None;
    }
}

/// Whether a collective of this member's record `own` moves data, as Scalasca 2.6 asks before
/// it looks for a wait state or a synchronization point there: a Bcast, Scatter, Reduce or
/// Gather whose root sends or receives nothing (a count of 0), an n-to-n or prefix operation
/// where this member sends and receives nothing, is no synchronization. Every member decides
/// from its own record, so that all agree without an exchange: the counts of these operations
/// are the same on every member, so a member's own bytes tell for the root. Barriers, and the
/// v-variants of rooted operations (Scatterv, Gatherv), whose members' counts differ, are
/// taken as moving data. `root`: whether this member is the root.
inline bool movesData(const trace::CollectiveRecord& own, bool root) {
    using Op = trace::CollectiveOp;
    switch (own.op) {
    case Op::Bcast:
    case Op::Scatter:
        return root ? own.sent > 0 : own.received > 0;
    case Op::Reduce:
    case Op::Gather:
        return root ? own.received > 0 : own.sent > 0;
    default:
        break;
    }
    switch (collectiveShape(own.op)) {
    case CollectiveShape::NToN:
    case CollectiveShape::Scan:
    case CollectiveShape::Exscan:
        return own.sent > 0 || own.received > 0;
    default:
        return true;
    }
}

/// Whether `op` exchanges per-pair counts that may leave some pairs without data
/// (Alltoallv, Alltoallw): an N-to-N shape that need not synchronize everyone.
inline bool isPairwiseVariant(trace::CollectiveOp op) {
    return op == trace::CollectiveOp::Alltoallv || op == trace::CollectiveOp::Alltoallw;
}

} // namespace waitscope::analysis
