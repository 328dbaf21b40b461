// Communicator bookkeeping: local ids for MPI_Comm handles, agreed identities, and the
// handlers of the calls that create and free communicators.
#pragma once

#include "call.h"

#include <cstdint>

namespace waitscope::measure::mpi {

/// What the wrappers know of a communicator.
struct CommInfo {
    std::uint32_t id = 0; ///< local id (index into the rank's definitions)
    int size = 1;         ///< number of ranks (of the local group)
    int rank = 0;         ///< this rank's number in it
    bool inter = false;   ///< an intercommunicator (size and rank are then in both groups)
};

/// The info of `comm`; MPI_COMM_WORLD and MPI_COMM_SELF are answered without a lookup.
/// An unknown communicator is counted and answered as MPI_COMM_WORLD. Any thread (a copy:
/// another thread may change the table meanwhile).
CommInfo commInfo(MPI_Comm comm) noexcept;

/// Registers the predefined communicators after init.
void registerPredefinedComms() noexcept;

/// Creation calls (split, dup, create, cart_create, ...): the new communicator gets an identity
/// agreed by its members (a broadcast from its rank 0) and a definition with its world ranks.
class CommCreate : public Call {
public:
    /// `keyComm` is where the identity is agreed for inter-communicators (their local
    /// communicator); MPI_COMM_NULL when the new communicator itself is used.
    CommCreate(std::uint32_t region, std::uint32_t group, MPI_Comm parent, MPI_Comm* created,
               MPI_Comm keyComm) noexcept;
    void finish(int rc) noexcept;

private:
    MPI_Comm m_parent;
    MPI_Comm* m_created;
    MPI_Comm m_keyComm;
};

/// MPI_Comm_free: records the destruction and forgets the handle.
class CommFree : public Call {
public:
    CommFree(std::uint32_t region, std::uint32_t group, MPI_Comm* comm) noexcept;
    void finish(int rc) noexcept;

private:
    MPI_Comm m_comm;
    std::uint32_t m_id = 0;
    bool m_known = false;
};

/// MPI_Comm_idup's identity for the communicator `parent` starts: agreed without communication
/// (every member starts its dups of `parent` in the same order), as the parent's rank 0 and a
/// hash of the parent's identity and the dup's number on it (the high bit set, so it never
/// meets the numbers of communicators agreed by broadcast).
CommKey idupKey(MPI_Comm parent) noexcept;

/// Defines `created`, the communicator of a completed MPI_Comm_idup of `parentKey` under `key`,
/// and returns its local id. Main thread only (it may allocate).
std::uint32_t defineIdupComm(MPI_Comm created, CommKey key, CommKey parentKey) noexcept;

/// The peer `rank` of a message on the communicator with local id `commId` as the trace names
/// it: on an intercommunicator, which the trace defines as one group of both (the group with
/// the lower world rank first), a rank of the remote group is shifted to its place there.
/// Cheap: one test when the program made no intercommunicator.
std::uint32_t tracePeer(std::uint32_t commId, int rank) noexcept;

/// The identity of `comm` (kNoCommKey if unknown).
CommKey commKey(MPI_Comm comm) noexcept;

} // namespace waitscope::measure::mpi
