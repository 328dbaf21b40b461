// Late Sender and its wrong-order refinement, fed by the forward replay.
#pragma once

#include "pattern_sink.h"

#include <deque>

namespace waitscope::analysis {

/// Detects Late Sender at receive completions and reclassifies instances as wrong order when
/// a message received later had been sent before the waiting started.
class LateSender {
public:
    /// How many recent Late Sender instances stay candidates for wrong order.
    static constexpr size_t kWrongOrderWindow = 100;

    explicit LateSender(PatternSink& sink) : m_sink(sink) {}

    /// A message arrived in the call `span` from communicator-independent sender `source`.
    /// All messages completed by one call are handed in before `completeCall`.
    void onMessage(const CallSpan& span, uint32_t source, const ReplayRecord& send,
                   uint64_t length);
    /// Evaluates the call whose messages were handed in (the latest sender counts).
    void completeCall();

private:
    struct Candidate {
        CallSpan span;
        uint32_t source = 0;
        double sendEnter = 0.0;
        double severity = 0.0;
        bool payload = false;
    };

    PatternSink& m_sink;
    bool m_open = false;
    Candidate m_current;
    std::deque<Candidate> m_recent;
};

} // namespace waitscope::analysis
