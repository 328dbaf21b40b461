// Detection of a replay that cannot go on: every rank waits for what no rank can give.
#pragma once

#include "waitscope/base/result.h"

#include <chrono>
#include <cstdint>
#include <deque>
#include <mpi.h>
#include <string>
#include <vector>

namespace waitscope::analysis {

/// What a rank waits for: a message-driven payload (or batch) from a rank, or the completion
/// of a collective call on a channel (a communicator of the transport), the `sequence`-th call
/// on it, which completes only once every member has made it.
struct WaitTarget {
    enum class Kind : uint8_t { Payload, Collective };
    Kind kind = Kind::Collective;
    uint32_t source = 0;    ///< Payload: the world rank it must come from
    uint32_t comm = 0;      ///< Payload: the traced communicator (for the message)
    uint32_t tag = 0;       ///< Payload: the tag (for the message)
    uint32_t channel = 0;   ///< Collective: the channel
    uint64_t sequence = 0;  ///< Collective: which call on the channel
    const char* label = ""; ///< what the wait is part of, for the message
    /// "a message from rank 1 with tag 3 on communicator 0" or "<label> (call 7 on channel 2)"
    std::string describe() const;
};

/// Watches the waits of a transport's ranks and ends them with an error when none can
/// progress, instead of letting them wait forever (a trace whose ranks disagree about their
/// communication, or a rank that left with an error).
///
/// Every rank reports a wait that lasts longer than a moment (kReportAfter) to rank 0, with its
/// counts of batches sent to and received from each rank; rank 0 declares a stall when all
/// ranks report waits, no batch is in flight to a rank waiting for payloads, and no rank waits
/// for a collective call that all members of its channel have made. It then asks every rank whether
/// it is still in the wait it reported, with the same counts; only if all are (so that all of them
/// waited at one moment with nothing in flight, a consistent global state) does it tell everyone to
/// stop. A rank that fails tells the others with abandon(). All traffic runs on a communicator of
/// its own, only while ranks wait: a replay that never waits long sends nothing.
class StallWatch {
public:
    /// `world` is duplicated (collective over it); `channelMembers` lists the world ranks of
    /// each channel in the numbering of WaitTarget::channel.
    StallWatch(MPI_Comm world, std::vector<std::vector<uint32_t>> channelMembers);
    ~StallWatch();
    StallWatch(const StallWatch&) = delete;
    StallWatch& operator=(const StallWatch&) = delete;

    /// Starts a wait for `target`.
    void begin(WaitTarget target);
    /// Between two tests of the wait: fails (naming this rank and what it waited for) once the
    /// watch found that no rank can progress, or another rank abandoned the replay.
    /// `sent` and `received` are this rank's batch counts per world rank since it began,
    /// `calls` its collective calls per channel (counted as they start).
    Status poll(const std::vector<uint64_t>& sent, const std::vector<uint64_t>& received,
                const std::vector<uint64_t>& calls);
    /// Ends the wait (it completed).
    void end();
    /// Tells every other rank that this rank leaves the replay with an error; their waits then
    /// fail instead of waiting for it.
    void abandon();

    /// How long a wait lasts before it is reported.
    static constexpr std::chrono::milliseconds kReportAfter{250};

private:
    using Clock = std::chrono::steady_clock;
    /// A rank's wait as reported to rank 0.
    struct Report {
        bool waiting = false;
        uint64_t episode = 0;
        WaitTarget::Kind kind = WaitTarget::Kind::Collective;
        uint32_t source = 0;
        uint32_t channel = 0;
        uint64_t sequence = 0;
        std::vector<uint64_t> sent, received, calls;
    };

    void sendTo(uint32_t destination, int tag, std::vector<uint64_t> message);
    void reapSends();
    Status serve(bool same);
    void record(uint32_t rank, const std::vector<uint64_t>& message);
    void evaluate();
    bool stalled() const;
    Error stallError() const;

    MPI_Comm m_comm = MPI_COMM_NULL;
    uint32_t m_rank = 0;
    uint32_t m_size = 0;
    std::vector<std::vector<uint32_t>> m_channelMembers;
    struct Sending {
        std::vector<uint64_t> message;
        MPI_Request request = MPI_REQUEST_NULL;
    };
    std::deque<Sending> m_sending;
    // This rank's wait.
    bool m_waiting = false;
    uint64_t m_episode = 0;
    WaitTarget m_target;
    Clock::time_point m_since;
    bool m_reported = false;
    std::vector<uint64_t> m_reportedSent, m_reportedReceived;
    int64_t m_abandonedBy = -1; ///< a rank that abandoned the replay
    bool m_stopped = false;     ///< rank 0 declared a stall
    // Rank 0: the latest report of each rank and the confirmation round under way.
    std::vector<Report> m_reports;
    uint64_t m_round = 0;
    bool m_confirming = false;
    std::vector<int> m_confirmations; ///< per rank: -1 none yet, 0 moved on, 1 still waiting
    std::vector<uint64_t> m_scratch;
};

} // namespace waitscope::analysis
