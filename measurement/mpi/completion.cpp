// Completion calls: which requests a Wait*/Test* call completed, and their records.
#include "completion.h"

#include "requests.h"

#include <vector>

namespace waitscope::measure::mpi {

namespace {

// Scratch space of each recording thread: request handles as they were before the call (MPI
// resets completed ones) and statuses when the caller ignores them. Allocated on a thread's
// first completion call and kept (a thread's MPI records outlive it too).
__thread std::vector<MPI_Request>* t_saved __attribute__((tls_model("initial-exec"))) = nullptr;
__thread std::vector<MPI_Status>* t_statuses __attribute__((tls_model("initial-exec"))) = nullptr;

template <class T> T* scratch(std::vector<T>*& store, int count) {
    if (!store)
        store = new std::vector<T>();
    if (store->size() < static_cast<size_t>(count))
        store->resize(static_cast<size_t>(count));
    return store->data();
}

// Tests and *some calls may complete nothing: then they are polls, mostly left out.
bool isPoll(Completion::Kind kind) {
    return kind == Completion::kTest || kind == Completion::kTestAll ||
           kind == Completion::kTestAny || kind == Completion::kSome;
}

bool isArrayKind(Completion::Kind kind) {
    return kind == Completion::kWaitAll || kind == Completion::kTestAll ||
           kind == Completion::kSome;
}

} // namespace

Completion::Completion(std::uint32_t region, std::uint32_t group, Kind kind, int count,
                       MPI_Request* requests, int* flag, int* index, int* indices,
                       MPI_Status* statuses) noexcept
    : Call(region, group, 2 * kMaxRecordWords + (count > 0 ? count : 0) * kMaxRecordWords,
           isPoll(kind) ? CallSite::WhenRecorded : CallSite::Now),
      m_kind(kind), m_count(count > 0 ? count : 0), m_flag(flag), m_index(index),
      m_indices(indices), m_statusArg(statuses) {
    if (!m_active)
        return;
    MPI_Request* saved = scratch(t_saved, m_count);
    for (int i = 0; i < m_count; ++i)
        saved[i] = requests[i];
    if (isArrayKind(kind)) {
        if (statuses == MPI_STATUSES_IGNORE)
            m_statusArg = scratch(t_statuses, m_count);
    } else if (statuses == MPI_STATUS_IGNORE) {
        m_statusArg = scratch(t_statuses, 1);
    }
}

void Completion::finish(int rc) noexcept {
    if (!m_active)
        return;
    const MPI_Request* saved = t_saved->data();
    // Which requests completed, and where each one's status is.
    int completed = 0;
    bool flagged = !m_flag || *m_flag;
    bool ok = rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS;
    if (ok && flagged) {
        switch (m_kind) {
        case kWait:
        case kTest:
        case kWaitAll:
        case kTestAll:
            completed = m_count;
            break;
        case kWaitAny:
        case kTestAny:
            completed = m_index && *m_index != MPI_UNDEFINED ? 1 : 0;
            break;
        case kSome:
            completed = m_index && *m_index != MPI_UNDEFINED ? *m_index : 0;
            break;
        }
    }
    // A test (or a *some call) that completed nothing is a poll, not a completion.
    // A poll that is not recorded reads no clock: programs poll in tight loops (hpcc's
    // run polls about 140 million times per rank), where a clock read per poll is a
    // large part of the measurement's cost.
    if (completed == 0 && isPoll(m_kind)) {
        if (!(g_hot.recordMask & kGroupReqTest)) {
            countFromAnyThread(g_diagnostics.skippedTests); // any recording thread
            return;
        }
        const std::uint64_t t = now();
        enter();
        for (int i = 0; i < m_count; ++i)
            if (std::uint64_t id = 0;
                saved[i] != MPI_REQUEST_NULL && requestTestRecord(saved[i], id))
                appendRecord(t, EventKind::MpiRequestTest, 0)[0] = id;
        leave(t);
        return;
    }
    const std::uint64_t t = now();
    enter();
    for (int k = 0; k < completed; ++k) {
        int i = k;
        MPI_Status* status = m_statusArg;
        if (m_kind == kWaitAny || m_kind == kTestAny) {
            i = *m_index;
        } else if (m_kind == kSome) {
            i = m_indices[k];
            status = m_statusArg + k;
        } else if (isArrayKind(m_kind)) {
            status = m_statusArg + k;
        }
        if (i >= 0 && i < m_count)
            recordCompletion(saved[i], status, t);
    }
    leave(t);
}

} // namespace waitscope::measure::mpi
