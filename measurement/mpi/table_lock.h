// The lock around the wrappers' shared tables (communicators, requests, matched messages) for
// programs that call MPI from several threads at once (MPI_THREAD_MULTIPLE); without it, the
// tables are touched by one thread at a time and nothing is locked.
#pragma once

#include <atomic>
#include <sched.h>

namespace waitscope::measure::mpi {

/// Set in MPI_Init_thread when the program asks for (or gets) MPI_THREAD_MULTIPLE, before any
/// further thread can call MPI. Constant-initialized.
inline std::atomic<bool> g_tablesShared{false};
inline std::atomic_flag g_tablesBusy = ATOMIC_FLAG_INIT;

/// Holds the tables for one lookup or update (a few hash-map operations, never an MPI call
/// that waits): a spin lock that yields, taken only while the tables are shared. Any thread,
/// not signal context; not recursive.
class TableLock {
public:
    TableLock() noexcept : m_held(g_tablesShared.load(std::memory_order_relaxed)) {
        if (!m_held)
            return;
        while (g_tablesBusy.test_and_set(std::memory_order_acquire))
            sched_yield();
    }
    ~TableLock() {
        if (m_held)
            g_tablesBusy.clear(std::memory_order_release);
    }
    TableLock(const TableLock&) = delete;
    TableLock& operator=(const TableLock&) = delete;

private:
    bool m_held;
};

} // namespace waitscope::measure::mpi
