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

} // namespace waitscope::measure::mpi
