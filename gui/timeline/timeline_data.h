// The timeline's data: region visits per location and call depth, messages and wait-state
// instances of an experiment, and what of them is visible at a zoom level (no Qt, no widgets).
#pragma once

#include "waitscope/analysis/instance_file.h"
#include "waitscope/analysis/rank_result.h"
#include "waitscope/base/result.h"
#include "waitscope/trace/definitions.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace waitscope::timeline {

class FlightIndex;

/// What a region does, for its colour and the legend.
enum class RegionKind : uint8_t {
    Computation,
    PointToPoint,
    Collective,
    Synchronization,
    Io,
    OneSided,
    Management,
    Measurement,
    Threads, ///< OpenMP runtime and POSIX threads calls (barriers, locks, joins, fork)
    Count_,
};
/// The legend's name of `kind`.
const char* kindName(RegionKind kind);
/// The kind of a region of the trace.
RegionKind kindOfRegion(const trace::Region& region);

/// One region visit; times in seconds on the trace clock.
struct Visit {
    double start = 0.0;
    double end = 0.0;
    uint32_t region = 0;
};

/// A location's row: its visits per call depth (depth 0 outermost). Within a depth the visits
/// do not overlap and are in time order, so a time window is found by binary search.
struct Row {
    uint32_t rank = 0;
    uint32_t thread = 0; ///< 0 for the rank's main location
    std::string name;
    std::string node; ///< the system tree node (compute node) the rank ran on; may be empty
    std::vector<std::vector<Visit>> depths;
};

/// A message from a send to its receive (rows index Timeline::rows()).
struct Message {
    uint32_t fromRow = 0;
    uint32_t toRow = 0;
    double sendTime = 0.0;
    double receiveTime = 0.0;
    uint64_t bytes = 0;
};

/// One collective operation across its members: the n-th collective on a communicator of each
/// member (self communicators left out); times from the members' MPI_COLLECTIVE_BEGIN and END.
struct Collective {
    double start = 0.0;         ///< the first member's begin
    double lastBegin = 0.0;     ///< the last member's begin: none could finish before
    double end = 0.0;           ///< the last member's end
    uint32_t region = 0;        ///< the call of the first member seen (e.g. MPI_Allreduce)
    std::vector<uint32_t> rows; ///< the members' rows, ascending
};

/// What the view draws of one depth of a row: a visit, or several visits too short to tell
/// apart at this zoom merged into one block (`visits` > 1; `region` is then the first's).
struct Block {
    double start = 0.0;
    double end = 0.0;
    uint32_t region = 0;
    uint32_t visits = 1;
};

/// The region visits, messages and wait-state instances of one experiment.
class Timeline {
public:
    /// Called with each row when its location has been read; it may take the visits away
    /// (the row then keeps its number of depths, each empty), so that a trace larger than
    /// memory can be passed through (TimelineStore).
    using RowSink = std::function<Status(uint32_t row, Row& read)>;

    /// Reads the trace of `experiment` (directory or traces.otf2) and, when beside it,
    /// instances.txt and critical_path.txt. Errors name the file (and rank), or are the
    /// sink's.
    static Result<Timeline> load(const std::string& experiment, const RowSink& sink = {});

    const std::vector<Row>& rows() const { return m_rows; }
    const std::vector<Message>& messages() const { return m_messages; }
    /// The collective operations by start time.
    const std::vector<Collective>& collectives() const { return m_collectives; }
    /// Wait-state instances, read from the file per window (empty when the experiment has
    /// neither instances.bin nor instances.txt).
    const analysis::InstanceFile& instances() const { return *m_instances; }
    /// The same, shared with those who step through them (InstanceFinder).
    const std::shared_ptr<const analysis::InstanceFile>& sharedInstances() const {
        return m_instances;
    }
    /// The critical path's stretches in time order (empty without critical_path.txt).
    const std::vector<analysis::PathSegment>& criticalPath() const { return m_criticalPath; }
    /// The row of `rank`'s main location.
    uint32_t rowOfRank(uint32_t rank) const;
    /// The row a stretch of the critical path lies on: its rank's main row, or the row of the
    /// further thread it runs on.
    uint32_t rowOfPath(const analysis::PathSegment& stretch) const;
    double begin() const { return m_begin; }
    double end() const { return m_end; }
    const std::string& regionName(uint32_t region) const { return m_regionNames[region]; }
    RegionKind regionKind(uint32_t region) const { return m_regionKinds[region]; }
    size_t regions() const { return m_regionNames.size(); }
    /// Events read.
    uint64_t events() const { return m_events; }
    /// The trace's anchor file (traces.otf2) it was loaded from; empty for a built one.
    const std::string& anchor() const { return m_anchor; }

    /// The blocks of depth `depth` of row `row` drawn over [from, to] when one pixel is
    /// `pixel` seconds: every visit overlapping the window, in time order, with consecutive
    /// visits that end within one pixel of the block's start merged into one block.
    std::vector<Block> visible(uint32_t row, size_t depth, double from, double to,
                               double pixel) const;
    /// The messages with an end in [from, to] or crossing it, in send-time order (found through
    /// a FlightIndex built at the first call after the messages change: a long flight does not
    /// widen the search for the short ones).
    std::vector<const Message*> visibleMessages(double from, double to) const;
    /// Builds the index visibleMessages() uses now (a worker that read a window does, so that
    /// the GUI thread's first frame of it does not).
    void indexMessages() const;
    /// How many messages the last visibleMessages() looked at (for tests and benchmarks).
    uint64_t messagesLookedAt() const { return m_messagesLookedAt; }

    /// For tests and generated timelines: adds a row and a region.
    uint32_t addRow(Row row);
    uint32_t addRegion(std::string name, RegionKind kind);
    /// Adds a message; messages must be added by send time.
    void addMessage(const Message& message) {
        m_messages.push_back(message);
        m_flights.reset();
    }
    /// Replaces the messages (by send time).
    void setMessages(std::vector<Message> messages) {
        m_messages = std::move(messages);
        m_flights.reset();
    }
    /// Reads the instances from `file` (an opened instances.bin).
    void setInstanceFile(std::shared_ptr<const analysis::InstanceFile> file) {
        m_instances = std::move(file);
    }
    void setInstances(const std::vector<analysis::PatternInstance>& instances) {
        m_instances = std::make_shared<const analysis::InstanceFile>(
            analysis::InstanceFile::fromInstances(instances));
    }
    /// The critical path; `threads` gives, for the OTF2 location id of each further thread a
    /// stretch lies on, its position among its rank's locations (Row::thread).
    void setCriticalPath(std::vector<analysis::PathSegment> path,
                         std::unordered_map<uint64_t, uint32_t> threads = {}) {
        m_criticalPath = std::move(path);
        m_pathThreads = std::move(threads);
    }
    void setRange(double begin, double end) {
        m_begin = begin;
        m_end = end;
    }
    void setEvents(uint64_t events) { m_events = events; }
    void setAnchor(std::string anchor) { m_anchor = std::move(anchor); }
    /// Opens instances.bin (else reads instances.txt, written before it) and reads
    /// critical_path.txt when they are beside the anchor; errors name the file.
    Status loadFindings();
    /// Takes the instances and the critical path of `other` (one whose loadFindings() ran).
    void takeFindings(Timeline&& other) {
        m_instances = std::move(other.m_instances);
        m_criticalPath = std::move(other.m_criticalPath);
        m_pathThreads = std::move(other.m_pathThreads);
    }
    /// Adds a collective; collectives must be added by start time.
    void addCollective(Collective collective) { m_collectives.push_back(std::move(collective)); }

    /// Replaces the visits of every row, the messages and the collectives by those of `window`
    /// (a Timeline of the same rows, as TimelineStore::window() reads it); the rest (rows'
    /// names, regions, instances, critical path, range) stays.
    void takeEvents(Timeline&& window);

private:
    std::vector<Row> m_rows;
    std::vector<Message> m_messages;                      ///< by send time
    mutable std::shared_ptr<const FlightIndex> m_flights; ///< over m_messages; null: not built yet
    mutable uint64_t m_messagesLookedAt = 0;
    std::vector<Collective> m_collectives;
    std::shared_ptr<const analysis::InstanceFile> m_instances =
        std::make_shared<const analysis::InstanceFile>();
    std::vector<analysis::PathSegment> m_criticalPath;
    /// A further thread's location id: its Row::thread (for the path's stretches on threads).
    std::unordered_map<uint64_t, uint32_t> m_pathThreads;
    std::vector<std::string> m_regionNames;
    std::vector<RegionKind> m_regionKinds;
    double m_begin = 0.0;
    double m_end = 0.0;
    uint64_t m_events = 0;
    std::string m_anchor;
};

} // namespace waitscope::timeline
