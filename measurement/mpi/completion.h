// The handler of the completion calls (Wait*, Test*): records each completed request.
#pragma once

#include "call.h"

namespace waitscope::measure::mpi {

/// One class for every completion call; the kind says how to read its results.
/// Records are written after the call, timed at its enter and leave, so a test that
/// completes nothing can be left out of the trace (unless the reqtest group is on).
class Completion : public Call {
public:
    enum Kind { kWait, kWaitAll, kWaitAny, kSome, kTest, kTestAll, kTestAny };

    /// `index` is the index output of *any calls and the outcount of *some calls;
    /// `statuses` is one status (single and *any calls) or an array (all and some calls).
    Completion(std::uint32_t region, std::uint32_t group, Kind kind, int count,
               MPI_Request* requests, int* flag, int* index, int* indices,
               MPI_Status* statuses) noexcept;
    void finish(int rc) noexcept;

    /// What the PMPI call gets for its status argument (ours if the caller ignores them).
    MPI_Status* statusArg() noexcept { return m_statusArg; }

private:
    Kind m_kind;
    int m_count;
    int* m_flag;
    int* m_index;
    int* m_indices;
    MPI_Status* m_statusArg;
};

} // namespace waitscope::measure::mpi
