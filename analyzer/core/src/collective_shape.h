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

/// Whether `op` exchanges per-pair counts that may leave some pairs without data
/// (Alltoallv, Alltoallw): an N-to-N shape that need not synchronize everyone.
inline bool isPairwiseVariant(trace::CollectiveOp op) {
    return op == trace::CollectiveOp::Alltoallv || op == trace::CollectiveOp::Alltoallw;
}

} // namespace waitscope::analysis
