// The stall watch: wait reports to rank 0, a confirmation round, and the verdict.
#include "stall_watch.h"

#include "polite_wait.h"

#include <algorithm>

namespace waitscope::analysis {
namespace {

// Tags on the watch's own communicator.
constexpr int kReportTag =
    1; ///< rank to 0: [episode, kind, source, channel, sequence, sent, received]
constexpr int kEndTag = 2;     ///< rank to 0: [episode]: the reported wait completed
constexpr int kProbeTag = 3;   ///< 0 to rank: [round]: still in the reported wait?
constexpr int kReplyTag = 4;   ///< rank to 0: [round, 1 if still in it with the same counts]
constexpr int kStopTag = 5;    ///< 0 to rank: [0]: no rank can progress
constexpr int kAbandonTag = 6; ///< rank to all: [0]: this rank left with an error
constexpr size_t kReportHeader = 5;

} // namespace

std::string WaitTarget::describe() const {
    if (kind == Kind::Payload) {
        return std::string(*label != '\0' ? label : "a message") + " from rank " +
               std::to_string(source) + " with tag " + std::to_string(tag) + " on communicator " +
               std::to_string(comm);
    }
    return std::string(label) + " (call " + std::to_string(sequence) + " on channel " +
           std::to_string(channel) + ")";
}

StallWatch::StallWatch(MPI_Comm world, std::vector<std::vector<uint32_t>> channelMembers)
    : m_channelMembers(std::move(channelMembers)) {
    MPI_Request duplicated = MPI_REQUEST_NULL;
    waitPolitely(MPI_Comm_idup(world, &m_comm, &duplicated), duplicated);
    int rank = 0, size = 0;
    MPI_Comm_rank(m_comm, &rank);
    MPI_Comm_size(m_comm, &size);
    m_rank = static_cast<uint32_t>(rank);
    m_size = static_cast<uint32_t>(size);
    if (m_rank == 0) {
        m_reports.resize(m_size);
    }
}

StallWatch::~StallWatch() {
    reapSends();
    // Sends nobody received (the run ended without a stall): cancelled; their buffers are left
    // to the process, as MPI may still read them.
    // NOLINTNEXTLINE(bugprone-unhandled-exception-at-new): never freed; at exit, failing is fatal
    static auto* orphans = new std::deque<Sending>();
    for (Sending& sending : m_sending) {
        MPI_Cancel(&sending.request);
        MPI_Request_free(&sending.request);
        orphans->push_back(std::move(sending));
    }
    if (m_comm != MPI_COMM_NULL) {
        MPI_Comm_free(&m_comm);
    }
}

void StallWatch::begin(WaitTarget target) {
    m_target = target;
    m_waiting = true;
    m_reported = false;
    m_since = Clock::now();
    ++m_episode;
}

void StallWatch::end() {
    if (m_reported) {
        if (m_rank == 0) {
            m_reports[0].waiting = false;
            m_confirming = false;
        } else {
            sendTo(0, kEndTag, {m_episode});
        }
    }
    m_waiting = false;
    m_reported = false;
}

void StallWatch::abandon() {
    for (uint32_t r = 0; r < m_size; ++r) {
        if (r != m_rank) {
            sendTo(r, kAbandonTag, {0});
        }
    }
}

void StallWatch::sendTo(uint32_t destination, int tag, std::vector<uint64_t> message) {
    Sending& sending = m_sending.emplace_back();
    sending.message = std::move(message);
    MPI_Isend(sending.message.data(), static_cast<int>(sending.message.size()), MPI_UINT64_T,
              static_cast<int>(destination), tag, m_comm, &sending.request);
    reapSends();
}

void StallWatch::reapSends() {
    while (!m_sending.empty()) {
        int done = 0;
        MPI_Test(&m_sending.front().request, &done, MPI_STATUS_IGNORE);
        if (!done) {
            return;
        }
        m_sending.pop_front();
    }
}

Status StallWatch::poll(const std::vector<uint64_t>& sent, const std::vector<uint64_t>& received,
                        const std::vector<uint64_t>& calls) {
    // A short wait costs nothing: the watch only looks at waits that last.
    if (!m_waiting || Clock::now() - m_since < kReportAfter) {
        return Status::success();
    }
    reapSends();
    if (!m_reported) {
        m_reported = true;
        m_reportedSent = sent;
        m_reportedReceived = received;
        std::vector<uint64_t> report{m_episode, static_cast<uint64_t>(m_target.kind),
                                     m_target.source, m_target.channel, m_target.sequence};
        report.insert(report.end(), sent.begin(), sent.end());
        report.insert(report.end(), received.begin(), received.end());
        report.insert(report.end(), calls.begin(), calls.end());
        if (m_rank == 0) {
            record(0, report);
        } else {
            sendTo(0, kReportTag, std::move(report));
        }
    }
    // Still in the reported wait with the same counts: nothing arrived since.
    return serve(sent == m_reportedSent && received == m_reportedReceived);
}

Status StallWatch::serve(bool same) {
    for (;;) {
        int found = 0;
        MPI_Status status;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, m_comm, &found, &status);
        if (!found) {
            break;
        }
        int count = 0;
        MPI_Get_count(&status, MPI_UINT64_T, &count);
        m_scratch.resize(static_cast<size_t>(std::max(count, 0)));
        MPI_Recv(m_scratch.data(), count, MPI_UINT64_T, status.MPI_SOURCE, status.MPI_TAG, m_comm,
                 MPI_STATUS_IGNORE);
        const auto from = static_cast<uint32_t>(status.MPI_SOURCE);
        switch (status.MPI_TAG) {
        case kReportTag:
        case kEndTag:
            if (m_rank == 0) {
                if (status.MPI_TAG == kEndTag) {
                    if (!m_scratch.empty() && m_reports[from].episode == m_scratch[0]) {
                        m_reports[from].waiting = false;
                    }
                } else {
                    record(from, m_scratch);
                }
            }
            break;
        case kProbeTag:
            if (!m_scratch.empty()) {
                sendTo(0, kReplyTag, {m_scratch[0], same ? 1u : 0u});
            }
            break;
        case kReplyTag:
            if (m_rank == 0 && m_confirming && m_scratch.size() >= 2 && m_scratch[0] == m_round) {
                m_confirmations[from] = static_cast<int>(m_scratch[1]);
            }
            break;
        case kStopTag:
            m_stopped = true;
            break;
        case kAbandonTag:
            m_abandonedBy = from;
            break;
        default:
            break;
        }
    }
    if (m_rank == 0 && !m_stopped) {
        if (m_confirming) {
            m_confirmations[0] = same ? 1 : 0;
            const bool anyMoved = std::find(m_confirmations.begin(), m_confirmations.end(), 0) !=
                                  m_confirmations.end();
            const bool allStill = std::all_of(m_confirmations.begin(), m_confirmations.end(),
                                              [](int c) { return c == 1; });
            if (anyMoved) {
                m_confirming = false;
            } else if (allStill) {
                m_stopped = true;
                for (uint32_t r = 1; r < m_size; ++r) {
                    sendTo(r, kStopTag, {0});
                }
            }
        } else if (same && stalled()) {
            m_confirming = true;
            ++m_round;
            m_confirmations.assign(m_size, -1);
            for (uint32_t r = 1; r < m_size; ++r) {
                sendTo(r, kProbeTag, {m_round});
            }
        }
    }
    // A stall first: the ranks that found it abandon the replay right after.
    if (m_stopped) {
        return stallError();
    }
    if (m_abandonedBy >= 0) {
        return Error("rank " + std::to_string(m_rank) + ": stopped waiting for " +
                     m_target.describe() + ": rank " + std::to_string(m_abandonedBy) +
                     " left the replay with an error");
    }
    return Status::success();
}

void StallWatch::record(uint32_t rank, const std::vector<uint64_t>& message) {
    if (message.size() != kReportHeader + 2 * size_t{m_size} + m_channelMembers.size()) {
        return;
    }
    Report& report = m_reports[rank];
    report.waiting = true;
    report.episode = message[0];
    report.kind = static_cast<WaitTarget::Kind>(message[1]);
    report.source = static_cast<uint32_t>(message[2]);
    report.channel = static_cast<uint32_t>(message[3]);
    report.sequence = message[4];
    report.sent.assign(message.begin() + kReportHeader, message.begin() + kReportHeader + m_size);
    report.received.assign(message.begin() + kReportHeader + m_size,
                           message.begin() + kReportHeader + 2 * m_size);
    report.calls.assign(message.begin() + kReportHeader + 2 * m_size, message.end());
}

bool StallWatch::stalled() const {
    for (const Report& report : m_reports) {
        if (!report.waiting) {
            return false;
        }
    }
    for (uint32_t r = 0; r < m_size; ++r) {
        const Report& waiter = m_reports[r];
        if (waiter.kind == WaitTarget::Kind::Payload) {
            // A batch on its way may be the one awaited.
            for (uint32_t s = 0; s < m_size; ++s) {
                if (m_reports[s].sent[r] != waiter.received[s]) {
                    return false;
                }
            }
            continue;
        }
        // A collective call that every member of its channel has made completes.
        if (waiter.channel >= m_channelMembers.size()) {
            continue;
        }
        bool made = true;
        for (const uint32_t member : m_channelMembers[waiter.channel]) {
            made = made && member < m_size &&
                   m_reports[member].calls[waiter.channel] > waiter.sequence;
        }
        if (made) {
            return false;
        }
    }
    return true;
}

Error StallWatch::stallError() const {
    return Error("rank " + std::to_string(m_rank) + ": replay stalled waiting for " +
                 m_target.describe() +
                 ": no rank can go on (the ranks' records of their communication disagree)");
}

} // namespace waitscope::analysis
