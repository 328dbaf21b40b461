// The memory budget of an analysis process: parsing --memory-limit, its default, and the check
// that a process's ranks fit before their events are read.
//
// The check is an estimate, not a measurement: each rank's announced event count times the
// bytes per event the analysis holds at its peak (memory_budget.h), summed over the ranks a
// process replays at once (its block of the M:N replay, or every rank in --serial), plus the
// process's own base. A process that would need more than its budget fails before it reads a
// single event, instead of being killed by the system halfway through.
#include "waitscope/analysis/memory_budget.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <unistd.h>

namespace waitscope::analysis {
namespace {

// An OTF2 event record takes at least this many bytes in its event file: with no announced
// count, the file's size over it bounds the events from above.
constexpr uint64_t kMinFileBytesPerEvent = 8;

std::string lowered(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

} // namespace

Result<uint64_t> parseMemorySize(std::string_view text) {
    const std::string what = "'" + std::string(text) + "'";
    const std::string low = lowered(text);
    size_t digits = 0;
    while (digits < low.size() &&
           (std::isdigit(static_cast<unsigned char>(low[digits])) != 0 || low[digits] == '.')) {
        ++digits;
    }
    if (digits == 0) {
        return Error(what + " is not a memory size (expected bytes or a number with K, M, G or T, "
                            "such as 512M or 2G)");
    }
    double value = 0.0;
    size_t used = 0;
    try {
        value = std::stod(low.substr(0, digits), &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != digits) {
        return Error(what + " is not a memory size (expected bytes or a number with K, M, G or T, "
                            "such as 512M or 2G)");
    }
    // "g", "gb" and "gib" all mean GiB; a bare "b" means bytes.
    std::string suffix = low.substr(digits);
    if ((suffix.size() == 3 && suffix.compare(1, 2, "ib") == 0) ||
        (suffix.size() == 2 && suffix[1] == 'b')) {
        suffix.resize(1);
    } else if (suffix == "b") {
        suffix.clear();
    }
    double scale = 1.0;
    if (suffix == "k") {
        scale = 1024.0;
    } else if (suffix == "m") {
        scale = 1024.0 * 1024.0;
    } else if (suffix == "g") {
        scale = 1024.0 * 1024.0 * 1024.0;
    } else if (suffix == "t") {
        scale = 1024.0 * 1024.0 * 1024.0 * 1024.0;
    } else if (!suffix.empty()) {
        return Error(what + " is not a memory size (unknown unit '" + suffix +
                     "'; use K, M, G or T)");
    }
    const double bytes = std::floor(value * scale);
    if (!(bytes >= 1.0) || bytes > 1.8e19) {
        return Error(what + " is not a memory size (it must be at least one byte)");
    }
    return static_cast<uint64_t>(bytes);
}

std::string formatMemorySize(uint64_t bytes) {
    char text[32];
    const double b = static_cast<double>(bytes);
    if (b >= 1024.0 * 1024 * 1024) {
        std::snprintf(text, sizeof text, "%.1f GiB", b / (1024.0 * 1024 * 1024));
    } else if (b >= 1024.0 * 1024) {
        std::snprintf(text, sizeof text, "%.1f MiB", b / (1024.0 * 1024));
    } else {
        std::snprintf(text, sizeof text, "%.1f KiB", b / 1024.0);
    }
    return text;
}

uint64_t defaultMemoryLimit(uint32_t processesOnNode) {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long pageSize = sysconf(_SC_PAGESIZE);
    const double physical = pages > 0 && pageSize > 0
                                ? static_cast<double>(pages) * static_cast<double>(pageSize)
                                : 4.0 * 1024 * 1024 * 1024; // unknown: assume 4 GiB
    return static_cast<uint64_t>(physical * kDefaultMemoryShare /
                                 std::max<uint32_t>(processesOnNode, 1));
}

uint64_t rankEventCount(const trace::Definitions& definitions, const std::string& anchorFile,
                        uint32_t rank) {
    const trace::Location* location = definitions.locationOfRank(rank);
    if (location == nullptr) {
        return 0;
    }
    if (location->announcedEvents > 0) {
        return location->announcedEvents;
    }
    std::error_code ec;
    const auto bytes =
        std::filesystem::file_size(std::filesystem::path(anchorFile).replace_extension("") /
                                       (std::to_string(location->id) + ".evt"),
                                   ec);
    return ec ? 0 : bytes / kMinFileBytesPerEvent;
}

namespace {

// The first process of `blocks` whose ranks need more than `limit` at `perEvent` bytes per
// event, `perRank` per rank and `base` for the process: its largest rank, that rank's events, the
// process's need and its rank count; none when all fit.
struct Overflow {
    size_t process = 0;
    uint32_t first = 0;
    uint32_t ranks = 0;
    uint32_t largest = 0;
    uint64_t largestEvents = 0;
    uint64_t need = 0;
};

std::optional<Overflow> firstOverflow(const trace::Definitions& definitions,
                                      const std::string& anchorFile,
                                      const std::vector<std::pair<uint32_t, uint32_t>>& blocks,
                                      uint64_t limit, uint64_t perEvent, uint64_t perRank,
                                      uint64_t base) {
    for (size_t p = 0; p < blocks.size(); ++p) {
        const auto [first, end] = blocks[p];
        Overflow o{p, first, end - first, first, 0, base};
        for (uint32_t r = first; r < end; ++r) {
            const uint64_t events = rankEventCount(definitions, anchorFile, r);
            o.need += events * perEvent + perRank;
            if (events > o.largestEvents) {
                o.largest = r;
                o.largestEvents = events;
            }
        }
        if (o.need > limit) {
            return o;
        }
    }
    return std::nullopt;
}

// ", the 4 ranks 0-3 of analysis process 1 together 1.2 GiB" when a process replays several.
std::string togetherText(const Overflow& o, size_t processes, uint64_t base) {
    if (o.ranks <= 1) {
        return {};
    }
    return ", the " + std::to_string(o.ranks) + " ranks " + std::to_string(o.first) + "-" +
           std::to_string(o.first + o.ranks - 1) +
           (processes > 1 ? " of analysis process " + std::to_string(o.process) : "") +
           " together " + formatMemorySize(o.need - base);
}

} // namespace

Status checkMemoryBudget(const trace::Definitions& definitions, const std::string& anchorFile,
                         const std::vector<std::pair<uint32_t, uint32_t>>& blocks, uint64_t limit,
                         bool rootCause, uint64_t observed) {
    const uint64_t perEvent = (rootCause ? kBytesPerEventFull : kBytesPerEventBasic) + observed;
    const auto o =
        firstOverflow(definitions, anchorFile, blocks, limit, perEvent, 0, kProcessBaseBytes);
    if (!o) {
        return Status::success();
    }
    std::string message =
        "rank " + std::to_string(o->largest) + ": its " + std::to_string(o->largestEvents) +
        " events need about " + formatMemorySize(o->largestEvents * perEvent) + " in memory (" +
        std::to_string(perEvent) + " bytes per event" +
        (rootCause ? " with the root-cause passes" : "") +
        (observed > 0 ? ", " + std::to_string(observed) + " of them the timeline's caches" : "") +
        ")" + togetherText(*o, blocks.size(), kProcessBaseBytes) + ", and the process itself " +
        formatMemorySize(kProcessBaseBytes) + ": " + formatMemorySize(o->need) +
        " in all, but --memory-limit allows " + formatMemorySize(limit) +
        " per analysis process (with --time-correct, or one-sided windows, MPI "
        "file I/O or MPI from several threads in the trace, the replay holds a "
        "rank's events whole; otherwise it reads them in windows); raise "
        "--memory-limit";
    if (o->ranks > 1) {
        message += ", or analyze with more processes (each then replays fewer ranks)";
    }
    if (rootCause) {
        message += ", or skip the root-cause passes (--no-root-cause: " +
                   std::to_string(kBytesPerEventBasic) + " bytes per event)";
    }
    return Error(message);
}

Status checkWindowedMemoryBudget(const trace::Definitions& definitions,
                                 const std::string& anchorFile,
                                 const std::vector<std::pair<uint32_t, uint32_t>>& blocks,
                                 uint64_t limit, bool rootCause, uint64_t observed) {
    if (!rootCause && observed == 0) {
        return Status::success(); // a window of kMinWindowEvents fits any budget over the base
    }
    // Each rank's smallest window comes on top of what it holds.
    const uint64_t window = kMinWindowEvents * kBytesPerWindowEvent;
    const uint64_t perEvent = (rootCause ? kBytesPerEventRootCauseWindowed : 0) + observed;
    const auto o =
        firstOverflow(definitions, anchorFile, blocks, limit, perEvent, window, kProcessBaseBytes);
    if (!o) {
        return Status::success();
    }
    std::string message =
        "rank " + std::to_string(o->largest) + ": read in windows, its " +
        std::to_string(o->largestEvents) + " events still need about " +
        formatMemorySize(o->largestEvents * perEvent) + " (" + std::to_string(perEvent) +
        " bytes per event: " +
        (rootCause ? "the root-cause passes hold a rank's communication operations whole" : "") +
        (rootCause && observed > 0 ? ", and " : "") +
        (observed > 0 ? "the timeline's caches hold " + std::to_string(observed) +
                            " bytes per event (--no-timeline: not)"
                      : "") +
        ")" +
        (o->ranks > 1 ? togetherText(*o, blocks.size(), kProcessBaseBytes) + " with their windows"
                      : ", its window " + formatMemorySize(window)) +
        ", and the process itself " + formatMemorySize(kProcessBaseBytes) + ": " +
        formatMemorySize(o->need) + " in all, but --memory-limit allows " +
        formatMemorySize(limit) + " per analysis process; raise --memory-limit";
    if (o->ranks > 1) {
        message += ", or analyze with more processes (each then replays fewer ranks)";
    }
    if (rootCause) {
        message += ", or skip the root-cause passes (--no-root-cause: only windows of events are "
                   "then held)";
    }
    return Error(message);
}

} // namespace waitscope::analysis

namespace waitscope::analysis {

std::string windowedReplayRefusal(const trace::Definitions& definitions) {
    if (!definitions.rmaWindows.empty()) {
        return "the trace has one-sided (RMA) windows, which only the whole-rank replay analyzes";
    }
    if (!definitions.ioHandles.empty()) {
        return "the trace has MPI file I/O records, which only the whole-rank replay analyzes";
    }
    // MPI from further threads (replay lanes) is found in the events; a rank that asked for
    // threads and has further locations may have it.
    const bool initThread =
        std::any_of(definitions.regions.begin(), definitions.regions.end(),
                    [](const trace::Region& r) { return r.name == "MPI_Init_thread"; });
    for (uint32_t rank = 0; initThread && rank < definitions.rankCount(); ++rank) {
        if (definitions.locationsOfRank(rank).size() > 1) {
            return "the trace's ranks may call MPI from several threads (MPI_Init_thread), "
                   "which only the whole-rank replay analyzes";
        }
    }
    return {};
}

uint64_t windowEventsFor(uint64_t limit, uint32_t ranks, uint64_t held) {
    const uint64_t used = kProcessBaseBytes + held;
    const uint64_t room = limit > used ? limit - used : 0;
    const uint64_t events = room / (kBytesPerWindowEvent * std::max<uint32_t>(ranks, 1));
    return std::clamp<uint64_t>(events, kMinWindowEvents, kMaxWindowEvents);
}

} // namespace waitscope::analysis

namespace waitscope::analysis {

uint64_t windowedHeldBytes(const trace::Definitions& definitions, const std::string& anchorFile,
                           const std::vector<std::pair<uint32_t, uint32_t>>& blocks, bool rootCause,
                           uint64_t observed) {
    const uint64_t perEvent = (rootCause ? kBytesPerEventRootCauseWindowed : 0) + observed;
    uint64_t held = 0;
    for (const auto& [first, end] : blocks) {
        uint64_t events = 0;
        for (uint32_t r = first; perEvent > 0 && r < end; ++r) {
            events += rankEventCount(definitions, anchorFile, r);
        }
        held = std::max(held, events * perEvent);
    }
    return held + kInstanceSpillBytes;
}

} // namespace waitscope::analysis
