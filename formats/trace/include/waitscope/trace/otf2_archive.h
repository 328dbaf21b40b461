// Reading OTF2 archives: global definitions and the events of a single location.
#pragma once

#include "waitscope/base/result.h"
#include "waitscope/trace/definitions.h"
#include "waitscope/trace/event_stream.h"

#include <memory>
#include <string>

namespace waitscope::trace {

/// Resolves an experiment directory or a path to `traces.otf2` to the anchor file path.
/// Fails when neither `path` nor `path/traces.otf2` exists.
Result<std::string> findAnchorFile(const std::string& path);

/// Reads the global definitions of the archive at `anchorFile`.
/// Fails with a message naming the file when it cannot be opened or parsed.
Result<Definitions> readDefinitions(const std::string& anchorFile);

/// An archive's anchor file with its global definitions.
struct ArchiveDefinitions {
    std::string anchor;
    Definitions definitions;
};

/// Resolves `path` to its anchor file (findAnchorFile()) and reads the global definitions there
/// (readDefinitions()). Fails as those do.
Result<ArchiveDefinitions> readArchiveDefinitions(const std::string& path);

/// Reads the event stream of `rank` only (its local definitions map ids to global ones).
/// Fails naming the rank and the file when the event file is missing or truncated, when its
/// local definitions (`traces/N.def`) are damaged, or missing while other locations have
/// theirs, and when an event names a region, communicator, calling context or string that
/// does not resolve through those mappings to a global definition.
Result<EventStream> readRankEvents(const std::string& anchorFile, const Definitions& definitions,
                                   uint32_t rank);

/// The events of one rank read forward in windows, for analyses that do not hold a rank's events
/// whole (the windowed replay of analyzer/core). The same checks as readRankEvents(), made as
/// the events come.
class RankEventWindows {
public:
    /// Opens the event file of `rank` and reads its local definitions; fails as
    /// readRankEvents() does. `definitions` must outlive the windows.
    static Result<std::unique_ptr<RankEventWindows>>
    open(const std::string& anchorFile, const Definitions& definitions, uint32_t rank);
    ~RankEventWindows();
    RankEventWindows(const RankEventWindows&) = delete;
    RankEventWindows& operator=(const RankEventWindows&) = delete;

    /// Appends the next `count` event records (fewer at the end of the file) to `into`, which
    /// may hold events of the caller's; fails naming the rank, the file and the event where
    /// the file is truncated or damaged, or its references do not resolve.
    Status next(EventStream& into, uint64_t count);
    /// Whether the whole event file has been read.
    bool done() const;
    /// Event records read so far (including those not stored).
    uint64_t read() const;

private:
    RankEventWindows();
    struct State;
    std::unique_ptr<State> m_state;
};

/// Reads the event stream of any one location (for example a further thread of a rank, see
/// Definitions::locationsOfRank()). Fails with a message naming the file, the rank and the
/// location when the event file is missing, truncated or corrupt, or its local definitions
/// are (as readRankEvents()); with `definitions`, references must resolve into them too.
Result<EventStream> readLocationEvents(const std::string& anchorFile, const Location& location,
                                       const Definitions* definitions = nullptr);

} // namespace waitscope::trace
