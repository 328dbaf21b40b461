// Late Sender and its wrong-order refinement, fed by the forward replay.
#pragma once

#include "pattern_sink.h"

#include <deque>
#include <functional>

namespace waitscope::analysis {

/// Detects Late Sender at receive completions and reclassifies instances as wrong order when
/// a message received later had been sent before the late message.
class LateSender {
public:
    /// How many recent Late Sender instances stay candidates for wrong order.
    static constexpr size_t kWrongOrderWindow = 100;

    /// Told about each instance without a clock condition violation: the receive operation of
    /// the latest sender, the waiting time and the completion time (receive exit after the
    /// send's exit).
    using Listener = std::function<void(uint32_t operation, double wait, double completion)>;

    explicit LateSender(PatternSink& sink, Listener listener = {})
        : m_sink(sink), m_listener(std::move(listener)) {}

    /// A message arrived in the call `span` from communicator-independent sender `source`,
    /// recorded as the replay's operation `operation`. All messages completed by one call are
    /// handed in before `completeCall`. A message completed by an MPI_Test* call
    /// (`completedByTest`) is no Late Sender, but still shows earlier ones in the wrong order.
    void onMessage(const CallSpan& span, uint32_t source, const ReplayRecord& send, uint64_t length,
                   uint32_t operation = 0, bool completedByTest = false);
    /// Evaluates the call whose messages were handed in (the latest sender counts); whether it
    /// was a Late Sender.
    bool completeCall();

private:
    struct Candidate {
        CallSpan span;
        uint32_t source = 0;
        double sendEnter = 0.0;
        double severity = 0.0;
        bool payload = false;
        uint32_t operation = 0;
        double sendExit = 0.0;
    };

    PatternSink& m_sink;
    Listener m_listener;
    bool m_open = false;
    Candidate m_current;
    std::deque<Candidate> m_recent;
    /// At least the latest send enter in m_recent (recomputed only when m_recent empties).
    double m_recentSendBound = 0.0;
};

} // namespace waitscope::analysis
