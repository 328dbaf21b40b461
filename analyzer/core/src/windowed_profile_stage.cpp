// The profile stage over a rank read in windows, for the root-cause passes (issue 22's traces
// larger than memory, with the default analysis).
//
// The rank's events are read forward in windows (trace::RankEventWindows) and profiled as the
// whole-rank profile stage does it (profile_stage.cpp: the same call tree, the same metrics in
// the same order, the same operations, calls and time profile between operations). Of the events
// only the communication events are kept, in a stream of their own (RankState::windowEvents),
// which the operations index: the later stages (consistency, forward and backward replay,
// critical path, root causes) read nothing of the events but the kinds and records of
// operations, so they then run unchanged and the report is byte for byte the whole-rank one.
//
// Held per rank between windows: the open call stack and the enter times of the calls not left
// yet, the requests not yet paired; held to the end: the communication events, the operations
// and their calls (what the whole-rank stages hold once the timestamps are freed). The time
// profile between operations goes to a scratch file in blocks (OperationProfile::spillTo()),
// which the critical path and the delay pass read back backward.
#include "location_profile.h"
#include "rank_state.h"

#include <algorithm>
#include <filesystem>
#include <string>

namespace waitscope::analysis {
namespace {

// The whole-rank profile's pass over the windows of the rank's main location.
Status profileWindows(RankState& state, uint64_t announced) {
    trace::RankEventWindows& reader = *state.input.windows;
    RankCalls calls(state, true);
    LocationProfile profile(state, calls, state.result.severities, kNoNode, 0);
    WindowedLocation location(state, reader, state.input.options.windowEvents, profile);
    while (!location.done()) {
        if (Status read = location.next(); !read) {
            return read;
        }
        state.report("profile", reader.read(), std::max(announced, reader.read()));
    }
    profile.finish();
    state.result.events = location.events();
    state.mainEvents = state.windowEvents.size();
    state.end = profile.started() ? state.defs.seconds(location.lastTime()) : 0.0;
    return Status::success();
}

// The rank's announced events, but no more than its event file can hold (a record takes at least
// a byte, as the whole-rank read reserves): a damaged count must not reserve terabytes. 0 when
// the file cannot be sized.
uint64_t reservableEvents(const RankState& state, uint64_t announced) {
    const trace::Location* location = state.defs.locationOfRank(state.result.rank);
    if (announced == 0 || location == nullptr || state.input.anchorFile.empty()) {
        return 0;
    }
    std::error_code ec;
    const uint64_t fileBytes = std::filesystem::file_size(
        std::filesystem::path(state.input.anchorFile).replace_extension("") /
            (std::to_string(location->id) + ".evt"),
        ec);
    return ec ? 0 : std::min(announced, fileBytes);
}

} // namespace

Status windowedProfileStage(RankState& state, Transport& transport) {
    uint64_t announced = 0; // the events the trace announces for this rank (0: unknown)
    if (const trace::Location* location = state.defs.locationOfRank(state.result.rank)) {
        announced = location->announcedEvents;
    }
    // The time profile goes to disk block by block (beside the outputs, else in the system's
    // temporary directory); the passes read it back backward.
    const ReplayOptions& options = state.input.options;
    std::error_code ec;
    std::string directory = options.scratchDirectory;
    if (directory.empty()) {
        directory = std::filesystem::temp_directory_path(ec).string();
    }
    state.scratch = std::make_unique<ScratchFile>();
    if (Status opened = state.scratch->open(ec ? "/tmp" : directory, ".waitscope-root-cause",
                                            "the root-cause passes");
        !opened) {
        return Error("rank " + std::to_string(state.result.rank) + ": " + opened.error().message());
    }
    state.profile.spillTo(state.scratch.get(), options.scratchBlockEntries);
    state.delay->keepPointsIn(state.scratch.get(), state.profile.blockEntries());
    if (const uint64_t reservable = reservableEvents(state, announced); reservable > 0) {
        // Room for as many operations and charges as the rank has events, at most: the arrays
        // then grow in place, without the copy and the spare half of a doubling vector, and
        // only the part used takes up memory (as profile_stage.cpp reserves them).
        state.operations.reserve(reservable);
        state.spans.reserve(reservable);
        state.pairedOf.reserve(reservable);
        state.windowEvents.reserve(reservable);
        state.profile.reserve(reservable, reservable);
    }
    if (Status profiled = profileWindows(state, announced); !profiled) {
        return profiled;
    }
    state.delay->reserve(state.operations.size(), state.collectiveCount);
    state.pathCollectives->reserve(state.collectiveCount);
    // The later stages read the kinds and records of the operations only.
    state.windowEvents.releaseTimes();
    state.profile.finish();
    if (!state.scratch->error().empty()) {
        return Error("rank " + std::to_string(state.result.rank) + ": " + state.scratch->error());
    }
    transport.carryRecordInfo(true);
    return Status::success();
}

} // namespace waitscope::analysis
