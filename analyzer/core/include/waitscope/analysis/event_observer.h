// A reader of the events the analysis reads anyway: each location's events are handed to it as
// the replay reads them (whole, or window by window), so that a caller can build something more
// from them (the timeline's caches) without a second pass over the trace files.
#pragma once

#include "waitscope/trace/definitions.h"
#include "waitscope/trace/event_stream.h"

#include <cstddef>
#include <cstdint>

namespace waitscope::analysis {

/// Sees every location's events as the analysis reads them, before any timestamp correction.
/// The events of one location come in order (whole, or window after window) from one thread;
/// different locations may come from different threads at once, so an observer keeps its state
/// per location.
class EventObserver {
public:
    virtual ~EventObserver() = default;
    /// Events [first, last) of `events` are the next ones of `location`, a location of
    /// `definitions` (the trace's global definitions, alike in every call).
    virtual void observe(const trace::Definitions& definitions, const trace::Location& location,
                         const trace::EventStream& events, size_t first, size_t last) = 0;
    /// What the observer holds until the analysis ends per event it is shown, at most: the
    /// memory budget (--memory-limit) charges it on top of the analysis's own.
    virtual uint64_t heldBytesPerEvent() const { return 0; }
};

} // namespace waitscope::analysis
