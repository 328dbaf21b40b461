// The base of every typed MPI handler: the call's region, whether it is recorded, its times.
#pragma once

#include "waitscope/measure/runtime.h"

#include <mpi.h>
#include <otf2/OTF2_Events.h>
#include <otf2/OTF2_GeneralDefinitions.h>

#define WAITSCOPE_EXPORT __attribute__((visibility("default")))

namespace waitscope::measure::mpi {

/// When a sampled call path is taken for a call: at once, or only once the call turns out to be
/// recorded (polls like MPI_Test and MPI_Iprobe, which are mostly left out: unwinding each of
/// them would cost more than the poll).
enum class CallSite { Now, WhenRecorded };

/// A wrapped call in progress. Constructed before the PMPI call (takes the enter time),
/// finished after it. `words` is the buffer room the call's records need at most. Any thread:
/// the main thread records into the rank's buffer, a further thread into its own (`t_events`).
class Call {
public:
    Call(std::uint32_t region, std::uint32_t group, std::size_t words = 2 * kMaxRecordWords,
         CallSite site = CallSite::Now) noexcept
        : m_region(region), m_active(isRecording(group)), m_words(words) {
        if (!m_active)
            return;
        std::uint64_t siteTime = 0;
        if (t_onMainThread) {
            g_hot.insideMpi = g_hot.insideMpi + 1; // samples from here on land inside MPI
            m_siteDeferred = site == CallSite::WhenRecorded && g_hot.sampling;
            if (g_hot.sampling && !m_siteDeferred)
                siteTime = g_hot.sampling->callSite(0);
        } else if (!threadCallBegins || !threadCallBegins()) {
            // A further thread records into its own buffer (no call path unwound: its call
            // hangs below the thread's start routine); not once finalize took its records.
            m_active = false;
            return;
        }
        ensureRoom(words);
        // The call path's record time, read just now, serves as the Enter's unless a record
        // (a flush) came after it: one clock read per call.
        m_enter = siteTime != 0 && siteTime >= t_events->lastTime ? siteTime : now();
    }
    ~Call() {
        if (!m_active)
            return;
        if (t_onMainThread)
            g_hot.insideMpi = g_hot.insideMpi - 1;
        else
            threadCallEnds();
    }
    Call(const Call&) = delete;
    Call& operator=(const Call&) = delete;

    /// Records leaving the call's region now.
    void leaveNow() noexcept { recordLeave(now(), m_region); }

protected:
    void enter() noexcept {
        if (m_siteDeferred) {
            // Still inside the wrapper: the stack is the call's; its path is timed at the enter.
            m_siteDeferred = false;
            g_hot.sampling->callSite(m_enter);
            ensureRoom(m_words);
        }
        recordEnter(m_enter, m_region);
    }
    void leave(std::uint64_t time) noexcept { recordLeave(time, m_region); }

    std::uint32_t m_region;
    bool m_active;
    bool m_siteDeferred = false;
    std::size_t m_words;
    std::uint64_t m_enter = 0;
};

/// Enter and Leave around the call, nothing else.
class Plain : public Call {
public:
    Plain(std::uint32_t region, std::uint32_t group) noexcept : Call(region, group) {
        if (m_active)
            enter();
    }
    void finish(int) noexcept {
        if (m_active)
            leave(now());
    }
};

/// Holds a status for a call whose caller passed MPI_STATUS_IGNORE, because the record needs it.
class StatusKeeper {
public:
    explicit StatusKeeper(MPI_Status* status) noexcept
        : m_status(status == MPI_STATUS_IGNORE ? &m_own : status) {}
    MPI_Status* statusArg() noexcept { return m_status; }

protected:
    MPI_Status m_own{};
    MPI_Status* m_status;
};

/// Bytes of `count` elements of `type`; 0 for an invalid type.
inline std::uint64_t typeBytes(int count, MPI_Datatype type) noexcept {
    int size = 0;
    if (count <= 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS)
        return 0;
    return static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(size > 0 ? size : 0);
}

/// Bytes a completed receive delivered, from its status.
inline std::uint64_t receivedBytes(const MPI_Status* status) noexcept {
    int bytes = 0;
    if (PMPI_Get_count(status, MPI_BYTE, &bytes) != MPI_SUCCESS || bytes == MPI_UNDEFINED)
        return 0;
    return static_cast<std::uint64_t>(bytes);
}

} // namespace waitscope::measure::mpi
