// The timeline's events on disk, read by time window: one pass over the trace writes every
// row's visits per depth, the messages and the collectives in time order into a cache file in
// the experiment (beside the overview), so that the view holds only the window it shows.
#pragma once

#include "flight_index.h"
#include "timeline_data.h"
#include "timeline_summary.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace waitscope::timeline {

/// An experiment's timeline as a skeleton in memory (rows without visits, regions, range,
/// overview) and its events in a file read per window. Reading a window
/// is thread-safe (positioned reads on one descriptor): the view reads off the GUI thread.
class TimelineStore {
public:
    /// The cache file's name in the experiment directory.
    static constexpr const char* kCacheFile = "timeline_events.bin";
    /// The name the cache at `path` has while other analysis processes still write their rows'
    /// visits into it (holes until they do): renamed to `path` once every row is in, so that a
    /// cache under kCacheFile is always whole (a process that died leaves only this file, which
    /// open() never reads; the next analysis writes over it).
    static std::string partialPath(const std::string& path) { return path + ".partial"; }

    /// Opens the timeline of `experiment` (directory or traces.otf2): the event cache and the
    /// overview beside the trace when they are of this trace, else both built in one pass over
    /// the trace (and written there; in the temporary directory when the experiment is not
    /// writable). Errors name the file (and rank).
    /// Called while the caches are built with the share of the trace's locations read so far
    /// (0..100), on the thread that called open().
    using Progress = std::function<void(int percent)>;
    static Result<std::shared_ptr<const TimelineStore>> open(const std::string& experiment,
                                                             const Progress& progress = {});

    /// One depth of a row's visits as the cache stores them (kVisitBytes each: start and end
    /// as doubles, the region as uint32, native byte order).
    using EncodedVisits = timeline::EncodedVisits;
    static constexpr size_t kVisitBytes = 20;
    /// Writes the event cache of a trace of `signature` to `path` from `timeline` (its rows'
    /// names and nodes, regions, range, event count, messages and collectives; not its rows'
    /// visits) and `visits` (per row and depth): byte for byte what open() builds from the
    /// trace when those are what Timeline::load() reads. With `messages`, the messages come from
    /// there (in send-time order; false after the last) rather than from `timeline`, so that
    /// they need not be held. Visits marked `elsewhere` are left as a hole that another process
    /// fills (at the offsets given in `rowStarts`: per row, where its first depth's visits
    /// begin). `rowWritten(row)` is called once a row's visits are written (their memory may
    /// go). The file is written past the page cache where it can be (DirectFileWriter). Errors
    /// name the file.
    using MessageSource = std::function<bool(Message& next)>;
    static Status write(const std::string& path, const std::string& signature,
                        const Timeline& timeline,
                        const std::vector<std::vector<EncodedVisits>>& visits,
                        const MessageSource& messages = {},
                        std::vector<uint64_t>* rowStarts = nullptr,
                        const std::function<void(size_t row)>& rowWritten = {});

    ~TimelineStore();
    TimelineStore(const TimelineStore&) = delete;
    TimelineStore& operator=(const TimelineStore&) = delete;

    /// Rows (names, nodes, number of depths; no visits), regions, range, event count and
    /// anchor: neither the events nor the findings (Timeline::loadFindings() reads those, for
    /// a large trace a while: the view does it on a worker).
    const Timeline& skeleton() const { return m_skeleton; }
    const TimelineSummary& summary() const { return m_summary; }
    /// Whether open() read both caches rather than building them.
    bool fromCache() const { return m_fromCache; }

    /// The rows' visits overlapping [from, to] (end > from, start < to, per depth in time
    /// order), the messages with an end in it or crossing it, and the collectives overlapping
    /// it: exactly what Timeline::load() holds of that window. Errors name the cache file.
    Result<Timeline> window(double from, double to) const;
    /// As window(), but never waiting for the disk: an error ("not in memory") as soon as a
    /// part of the window is not in the page cache (read with RWF_NOWAIT), so that the GUI
    /// thread may read a window itself when that costs no more than drawing it.
    Result<Timeline> windowInMemory(double from, double to) const;
    /// Message records looked at by the window reads so far (for tests and benchmarks): those
    /// of the window, those sent within the flight bound of it, and the long flights near it.
    uint64_t messagesLookedAt() const { return m_messagesLookedAt; }
    /// All visits of row `row` (for building the overview).
    Result<Row> row(uint32_t row) const;

private:
    struct Range {
        uint64_t count = 0;
        uint64_t offset = 0;
    };

    TimelineStore() = default;
    Status build(const std::string& experiment, const std::string& path,
                 const std::string& signature, const Progress& progress);
    Status readDirectory(const std::string& signature);
    /// Reads `bytes` at `offset`; with `fromMemory`, only from the page cache (else an error).
    Status readRecords(uint64_t offset, size_t bytes, void* out, bool fromMemory = false) const;
    template <typename Record, typename Key>
    Result<uint64_t> firstWhere(const Range& range, Key key, bool fromMemory) const;
    Result<Timeline> readWindow(double from, double to, bool fromMemory) const;

    std::string m_path;
    int m_file = -1;
    Timeline m_skeleton;
    TimelineSummary m_summary;
    bool m_fromCache = false;
    std::vector<std::vector<Range>> m_depths; ///< per row and depth: its visits in the file
    Range m_messages;                         ///< by send time
    /// Messages of flight above this bound are also held apart (m_longMessages); a window reads
    /// the others sent within the bound of it.
    double m_flightBound = 0.0;
    std::vector<Message> m_longMessages;   ///< by send time
    std::vector<uint64_t> m_longPositions; ///< their positions among all messages
    FlightIndex m_longFlights;             ///< over m_longMessages
    mutable std::atomic<uint64_t> m_messagesLookedAt{0};
    Range m_collectives; ///< by start time
    double m_longestCollective = 0.0;
    Range m_members; ///< the collectives' member rows
};

} // namespace waitscope::timeline
