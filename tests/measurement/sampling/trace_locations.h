// Reads every location of an OTF2 archive with libotf2 itself: the per-thread sampling tests
// check locations (a rank's threads) that the project's trace reader does not return.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace waitscope::test {

/// An Enter, Leave or calling-context event of one location.
struct LocationEvent {
    enum Kind { Enter, Leave, Sample, ContextEnter, ContextLeave } kind = Enter;
    std::uint64_t time = 0;
    /// Enter/Leave: the region's name; the calling-context events: the context's region names,
    /// outermost first.
    std::vector<std::string> path;
    std::uint32_t unwindDistance = 0; ///< of a Sample or ContextEnter
};

struct TraceLocation {
    std::uint64_t id = 0;
    std::string name;
    int type = 0; ///< OTF2_LocationType
    std::uint32_t group = 0;
    std::uint64_t announcedEvents = 0;
    std::vector<LocationEvent> events; ///< in the order of the location's event file
    /// The POSIX thread order records (ThreadCreate/Begin/Wait/End), kept apart from `events`:
    /// their record and time, in file order.
    struct ThreadOrder {
        enum Record { Create, Begin, Wait, End } record = Create;
        std::uint64_t time = 0;
        std::uint64_t sequence = 0; ///< the thread's number in its contingent
    };
    std::vector<ThreadOrder> threadOrder;
};

struct LocationTrace {
    std::uint64_t ticksPerSecond = 0;
    std::vector<TraceLocation> locations; ///< in the order of their definitions
    std::vector<std::string> regions;     ///< every region's name, in definition order
};

/// Reads the global definitions, every location's local definitions (mapping tables) and
/// events. Returns false with `error` set when the archive cannot be read.
bool readLocations(const std::string& anchor, LocationTrace& trace, std::string& error);

} // namespace waitscope::test
