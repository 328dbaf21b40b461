// Late Sender (and Late Sender, Wrong Order).
//
//   sender                  |--enter (send)-----|
//   receiver  |--enter......waiting.....|--------|exit
//             <- severity = send enter - receive call enter ->   (clamped to the call)
//
// The receive call is the one that completes the message: MPI_Recv, or the MPI_Wait* /
// MPI_Test* holding the MpiIrecv record for nonblocking receives. When one call completes
// several messages, the latest sender determines the wait. A test call never waited: a
// message it completes is no Late Sender (Scalasca 2.6 counts none at MPI_Test*), though it
// still counts as the later message of a wrong-order instance. A Late Sender instance is
// "wrong order" when a message the rank receives later had been sent before the late message
// was: the program picked the wrong message first (split by same/different source). The
// instances of one call are compared with the messages of later calls only.
// Instances are counted as mpi_cls_count (payload) or mpi_sls_count (zero bytes), and
// wrong-order ones as mpi_clswo_count / mpi_slswo_count.
#include "late_sender.h"

#include <algorithm>
#include <limits>

namespace waitscope::analysis {

void LateSender::onMessage(const CallSpan& span, uint32_t source, const ReplayRecord& send,
                           uint64_t length, uint32_t operation, bool completedByTest) {
    // A later message that was sent before the late message of an earlier Late Sender.
    // Usually the send began after all of them did, which one comparison with their latest
    // send tells.
    for (auto it = m_recent.begin(); send.enter < m_recentSendBound && it != m_recent.end();) {
        if (send.enter < it->sendEnter) {
            const bool same = it->source == source;
            m_sink.record(Metric::MpiLateSenderWrongOrder, it->span, it->severity);
            m_sink.add(same ? Metric::MpiLswoSame : Metric::MpiLswoDifferent, it->span,
                       it->severity);
            m_sink.add(it->payload ? Metric::MpiClswoCount : Metric::MpiSlswoCount, it->span, 1.0);
            it = m_recent.erase(it);
        } else {
            ++it;
        }
    }
    if (send.enter > span.exit) {
        m_sink.diagnose(experiment::Diagnostic::ClockViolationsP2p);
    }
    if (completedByTest) {
        return;
    }
    if (!m_open || send.enter > m_current.sendEnter) {
        m_current = Candidate{span, source, send.enter, 0.0, length > 0, operation, send.exit};
    }
    m_open = true;
}

bool LateSender::completeCall() {
    if (!m_open) {
        return false;
    }
    m_open = false;
    const double duration = m_current.span.exit - m_current.span.enter;
    m_current.severity = std::clamp(m_current.sendEnter - m_current.span.enter, 0.0, duration);
    if (m_current.severity <= 0.0) {
        return false;
    }
    m_sink.record(Metric::MpiLateSender, m_current.span, m_current.severity);
    m_sink.add(m_current.payload ? Metric::MpiClsCount : Metric::MpiSlsCount, m_current.span, 1.0);
    // A send that began after the receive ended (a clock condition violation) is no
    // synchronization the root-cause replay could follow backward.
    if (m_listener && m_current.sendEnter <= m_current.span.exit) {
        m_listener(m_current.operation, m_current.severity,
                   std::max(0.0, m_current.span.exit - m_current.sendExit));
    }
    if (m_recent.empty()) {
        m_recentSendBound = -std::numeric_limits<double>::infinity();
    }
    m_recent.push_back(m_current);
    m_recentSendBound = std::max(m_recentSendBound, m_current.sendEnter);
    if (m_recent.size() > kWrongOrderWindow) {
        m_recent.pop_front();
    }
    return true;
}

} // namespace waitscope::analysis
