// The profile of one location's events, event by event: the one loop behind the whole-rank
// profile stage (profile_stage.cpp), the windowed profile for the root-cause passes
// (windowed_profile_stage.cpp) and the windowed replay (windowed_replay.cpp).
//
// It builds the call tree and the time and count metrics of the events it is given, in the order
// of the events, and hands every communication event with the MPI call around it to the pass's
// MpiCalls: the whole-rank passes keep operations and calls in RankState, the windowed replay
// queues them until their records are exchanged. Its state lasts from one range of events to the
// next, so that a rank read in windows is profiled as if it were read whole.
//
// A blocking probe and its receive (docs/fidelity.md): when a location's blocking MPI_Probe
// (MPI_Mprobe) is followed by its receive, the MPI_Recv (MPI_Mrecv, or MPI_Imrecv and the
// completion of its request) entered next, with no other communication event and no other
// probe between them, the receive is replayed as an operation of the probe's call, closed at
// the probe's Leave:
//
//   sender     ......compute......|Send|
//   receiver   |MPI_Probe ~~~~~~~~~~~~~~~~~~|  ...  |MPI_Recv (message already there)|
//              ^ the receive's operation, Late Sender and root cause are the probe's
//
// so that the wait the receive would have had (measured from the probe's enter) lands on the
// probe's call path, and the delay costs and the critical path see the same call. Only a
// blocking send's Late Receiver is measured to the receive's own enter (MpiCalls::
// receiveEnteredAt), as Scalasca does: a rendezvous send waits until the receive is posted. The
// message still counts (messages, bytes) at the receive's call path, as in Scalasca's profile. The
// receive is looked for in the kProbeLookahead events after the probe's Enter; a rank read in
// windows reads on past a window's end until those are at hand (WindowedLocation), so that it
// links what the whole-rank passes link.
#pragma once

#include "rank_state.h"
#include "waitscope/analysis/call_path_rules.h"
#include "waitscope/trace/otf2_archive.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace waitscope::analysis {

/// Whether `kind` is a communication event (a message, a request, a collective's end): what a
/// profile keeps as a replay operation.
bool isCommunicationEvent(trace::EventKind kind);

/// What a profile pass does with the MPI calls around communication events. Call ids are the
/// pass's own: whatever `open()` returns.
class MpiCalls {
public:
    virtual ~MpiCalls() = default;
    /// The first communication event of a call of `node` entered at `enter`, the event at `at`:
    /// returns the call's id.
    virtual uint64_t open(NodeId node, double enter, double at) = 0;
    /// Another communication event in the open call `id`.
    virtual void again(uint64_t id) { (void)id; }
    /// The call `id` left at `exit`.
    virtual void close(uint64_t id, double exit) = 0;
    /// The call `id` as far as it is known (for the counts of its events).
    virtual const CallSpan& call(uint64_t id) = 0;
    /// Communication event `i` of `events`, in call `id`.
    virtual void operation(const trace::EventStream& events, size_t i, uint64_t id) = 0;
    /// The last operation is a receive replayed in its probe's call; its own call was entered
    /// at `enter`, which its sender's Late Receiver is measured to.
    virtual void receiveEnteredAt(double enter) { (void)enter; }
};

/// The MPI calls and operations of the whole-rank passes, kept in RankState (spans, operations,
/// pairedOf), with a rank's nonblocking requests paired over all its locations.
class RankCalls final : public MpiCalls {
public:
    /// With `keepEvents` (a rank read in windows) the communication events are kept in
    /// RankState::windowEvents, which the operations then index, and operations and pairs are
    /// appended; else they index the rank's events and `pairedOf` is sized beforehand.
    RankCalls(RankState& state, bool keepEvents);
    ~RankCalls() override;
    RankCalls(const RankCalls&) = delete;
    RankCalls& operator=(const RankCalls&) = delete;

    /// The location whose events follow (0 the main one, k the k-th replay lane).
    void setLane(uint32_t lane) { m_lane = lane; }

    uint64_t open(NodeId node, double enter, double at) override;
    void close(uint64_t id, double exit) override;
    const CallSpan& call(uint64_t id) override;
    void operation(const trace::EventStream& events, size_t i, uint64_t id) override;
    void receiveEnteredAt(double enter) override;

private:
    struct Requests;
    RankState& m_state;
    bool m_keepEvents;
    uint32_t m_lane = 0;
    std::unique_ptr<Requests> m_requests;
};

/// One location's profile pass (see the top of this file).
class LocationProfile {
public:
    /// Profiles into `rows` (the rank's or a replay lane's) with paths below `root` (kNoNode:
    /// the tree's roots). `lane` 0 is the rank's main location, whose OpenMP timeline and RMA
    /// calls are recorded as well; every location's root-cause time profile is.
    LocationProfile(RankState& state, MpiCalls& calls, SeverityRows& rows, NodeId root,
                    uint32_t lane);

    /// Profiles events [first, end) of `events`, after those of the earlier calls.
    void profile(const trace::EventStream& events, size_t first, size_t end);
    /// After the last events: the regions still open are diagnosed and left at the last time.
    void finish();
    /// Whether an event has been profiled.
    bool started() const { return m_started; }
    /// How many events after a blocking probe's Enter may hold its receive.
    static constexpr size_t kProbeLookahead = 4096;
    /// How many events beyond the end of `events` the profile of events [first, end of `events`)
    /// would look at (the kProbeLookahead after the last blocking probe's Enter); 0: none.
    uint64_t lookaheadWanted(const trace::EventStream& events, size_t first) const;

private:
    static constexpr uint64_t kNoCall = ~uint64_t{0};
    static constexpr uint32_t kNoRmaSpan = 0xFFFFFFFFu;
    struct Frame {
        NodeId node;
        uint32_t region;
        uint64_t call;
        bool context;                  ///< pushed for a calling-context record, not an Enter
        uint32_t rmaSpan = kNoRmaSpan; ///< its index in RmaTimeline::spans, if it has RMA records
    };

    void charge(uint64_t now);
    void push(uint32_t region, uint64_t now);
    void pop(uint64_t now);
    void communication(const trace::EventStream& events, size_t i);
    /// Communication event `i` as an operation of `frame`'s call, whose first event was met at
    /// `t`; returns the call.
    const CallSpan& operationIn(Frame& frame, const trace::EventStream& events, size_t i,
                                uint64_t t);
    /// At the Enter `i` of a probe (MPI_Probe, MPI_Mprobe, MPI_Iprobe, MPI_Improbe): links a
    /// blocking one to its receive (see the top of this file).
    void probeEntered(const trace::EventStream& events, size_t i, size_t end);
    /// Before Leave `i`: when it leaves the linked probe, replays the receive in its call.
    void probeLeft(const trace::EventStream& events, size_t i);
    void rmaEvent(const trace::EventStream& events, size_t i);
    void threadOrderEvent(const trace::EventStream& events, size_t i);
    double openedAt(uint64_t fallback) const {
        return m_state.defs.seconds(m_opened.empty() ? fallback : m_opened.back());
    }

    RankState& m_state;
    MpiCalls& m_calls;
    SeverityRows& m_rows;
    NodeId m_root;
    uint32_t m_lane;
    bool m_main;
    /// With RMA windows: the main location's outermost MPI calls are tracked (RmaTimeline::inMpi)
    bool m_trackMpi;
    uint32_t m_mpiDepth = 0; ///< MPI calls open now
    std::vector<Frame> m_stack;
    /// The times of the Enter and ProgramBegin events not yet left, innermost last: a call's
    /// enter time
    std::vector<uint64_t> m_opened;
    /// Sampled paths inside OpenMP constructs, across windows (a replay lane's thread is no
    /// master of a team)
    SampledOpenmpPaths m_openmpPaths;
    uint64_t m_last = 0;
    bool m_started = false;
    /// Per region, what it is to a probe and its receive (ProbeRole in the .cpp)
    std::vector<uint8_t> m_probeRoles;
    /// A probe was entered since the last communication event: a further one links none
    bool m_probedSinceOperation = false;
    /// The blocking probe linked to its receive: its frame's index and the receive's event in
    /// the events being profiled (kNoEvent: none), then the events replayed at their probes
    /// and not met yet (an MPI_Imrecv's completion may come after further probes)
    static constexpr size_t kNoEvent = ~size_t{0};
    size_t m_probeFrame = 0;
    size_t m_probedReceive = kNoEvent;
    uint64_t m_probedReceiveEnter = 0; ///< the time of the linked receive call's Enter
    std::vector<size_t> m_replayedReceives;
};

/// A rank's main location read forward in windows (trace::RankEventWindows) and profiled.
class WindowedLocation {
public:
    WindowedLocation(RankState& state, trace::RankEventWindows& reader, uint64_t windowEvents,
                     LocationProfile& profile);

    /// Reads the next window, shows it the observer and profiles it.
    Status next();
    bool done() const { return m_reader.done(); }
    /// The events read.
    uint64_t events() const { return m_events; }
    /// The last event's time (0 before any).
    uint64_t lastTime() const { return m_previousTime; }

private:
    RankState& m_state;
    trace::RankEventWindows& m_reader;
    uint64_t m_windowEvents;
    LocationProfile& m_profile;
    uint64_t m_previousTime = 0;
    uint64_t m_events = 0;
};

} // namespace waitscope::analysis
