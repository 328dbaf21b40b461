// The synchronization points (SPs) of one rank's root-cause pass and the rank sets they name.
#pragma once

#include "pattern_sink.h"
#include "spilled_array.h"
#include "waitscope/trace/definitions.h"
#include "waitscope/trace/event_stream.h"

#include <array>
#include <cassert>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace waitscope::analysis::delay {

/// Wait-state types, each with a short-term and a long-term delay metric. kOmpBarrier: OpenMP
/// barrier waits inside the rank, which reach the pass only as costs of the master thread's MPI
/// wait states (the OpenMP analysis seeds them, DelayAnalysis::addOmpBarrierCosts()).
enum Kind : uint8_t {
    kLateSender,
    kLateReceiver,
    kBarrier,
    kNxn,
    kOneToN,
    kNToOne,
    kOmpBarrier,
    kKinds
};

/// Waiting of each type that a wait state caused later on.
using Costs = std::array<double, kKinds>;

/// What an SP was to this rank: the waiter or the delayer of a point-to-point wait state, or
/// a member of a synchronizing collective.
enum class Role : uint8_t { LateSender, SenderOfLate, LateReceiver, ReceiverOfLate, Group };

/// A synchronization point: an operation at which this rank synchronized with others.
/// 32 bytes (the call's duration comes from its span).
struct SyncPoint {
    uint32_t operation = 0;
    Role role = Role::Group;
    /// Zero: the SPs are written to a scratch file whole (SyncPoints::keep()), padding included
    std::array<uint8_t, 3> unused{};
    uint32_t partner = 0; ///< world rank (point-to-point) or a rank set (SyncPoints::ranks())
    NodeId node = 0;      ///< the call path of its MPI call
    double wait = 0.0;
    /// The part of its call before its completion, which the interval it opens leaves out
    double beforeCompletion = 0.0;

    /// The SP at `operation` in MPI call `call`, which waited `wait` and completed
    /// `completion` before its exit.
    static SyncPoint at(uint32_t operation, Role role, const CallSpan& call, double wait,
                        double completion, uint32_t partner);
};
static_assert(sizeof(SyncPoint) == 32, "the call path fits into the padding");

/// A collective this rank takes part in where the latecomer is an SP.
struct Collective {
    uint32_t operation = 0;
    uint32_t late = 0;      ///< communicator rank of the latecomer
    uint32_t waiting = 0;   ///< rank set: the other members that are SPs
    uint32_t early = 0;     ///< rank set: those of them that post up early
    bool postEarly = false; ///< this member posts its share before the walk
};

/// The SPs of one rank in operation order (after mergeBackward()), with the sets of world ranks
/// that group SPs synchronized with, each distinct set stored once. Built during the replays:
/// in memory, or (buildInBlocks()) in blocks on the rank's scratch file as the replays find
/// them, the forward replay's and the backward replay's in two arrays, each in operation order,
/// which completeInBlocks() merges with the partners' SPs. Once complete (keep()), read only,
/// and in blocks on disk when the rank has a scratch file.
class SyncPoints {
public:
    /// `ranks`: the number of world ranks (the members of kWorldComm).
    SyncPoints(const trace::Definitions& definitions, uint32_t ranks)
        : m_defs(definitions), m_ranks(ranks) {}

    /// Before the first SP: the replays' SPs go to `file` in blocks of `blockEntries` as they
    /// are pushed (each replay's in operation order), instead of a list in memory.
    void buildInBlocks(ScratchFile* file, size_t blockEntries);
    bool inBlocks() const { return m_file != nullptr; }
    void reserve(size_t points) {
        if (inBlocks()) {
            m_forward.reserve(points);
        } else {
            m_points.reserve(points);
        }
    }
    /// An SP of the forward replay (a Late Sender, a collective), in operation order.
    void push(const SyncPoint& point) {
        m_last = point;
        if (inBlocks()) {
            assert(m_forward.empty() || m_last.operation >= m_lastForward);
            m_lastForward = point.operation;
            m_forward.push(point);
        } else {
            m_points.push_back(point);
        }
    }
    /// An SP of the backward replay (a Late Receiver), in operation order, after the forward
    /// replay's.
    void pushBackward(const SyncPoint& point) {
        m_last = point;
        if (inBlocks()) {
            m_backward.push(point);
        } else {
            m_points.push_back(point);
        }
    }
    size_t size() const {
        if (m_kept) {
            return m_keptPoints.size();
        }
        return inBlocks() ? m_forward.size() + m_backward.size() : m_points.size();
    }
    bool empty() const { return size() == 0; }
    /// The last SP pushed, while building.
    const SyncPoint& back() const { return m_last; }
    /// SP `k`, by value: once kept, it may come from a block read back from disk. In memory
    /// before keep().
    SyncPoint operator[](size_t k) const { return m_kept ? m_keptPoints[k] : m_points[k]; }
    SyncPoint at(int k) const { return (*this)[static_cast<size_t>(k)]; }
    NodeId nodeOf(int k) const { return at(k).node; }
    bool kept() const { return m_kept; }
    /// After the backward replay: merges its SPs into the forward replay's (in memory; in blocks
    /// completeInBlocks() merges them).
    void mergeBackward();
    /// The replays' SPs in operation order (after mergeBackward(), before the partners' are
    /// added), each handed to `visit`.
    template <typename Visit> void forEachBuilt(Visit&& visit) const {
        if (m_kept) {
            for (size_t k = 0; k < m_keptPoints.size(); ++k) {
                visit(m_keptPoints[k]);
            }
            return;
        }
        if (!inBlocks()) {
            for (const SyncPoint& point : m_points) {
                visit(point);
            }
            return;
        }
        // The forward replay's first at a tie, as mergeTail() orders them.
        for (size_t f = 0, b = 0; f < m_forward.size() || b < m_backward.size();) {
            const bool backward =
                f == m_forward.size() ||
                (b < m_backward.size() && m_backward[b].operation < m_forward[f].operation);
            visit(backward ? m_backward[b++] : m_forward[f++]);
        }
    }
    /// The SPs are complete (the replays merged, the partners resolved): from here on they are
    /// read only, in blocks of `blockEntries` from `file` when given (else in memory).
    void keep(ScratchFile* file, size_t blockEntries);

    /// The id of the set of `worldRanks` (sorted in place), added when new.
    uint32_t rankSet(std::vector<uint32_t>& worldRanks);
    /// The rank set of communicator `comm`'s members (kWorldComm: all ranks).
    uint32_t memberSet(uint32_t comm);
    /// The world ranks of set `set`, sorted.
    const std::vector<uint32_t>& ranks(uint32_t set) const { return m_rankSets[set]; }
    /// Whether this rank synchronized with `worldRank` at `point`.
    bool contains(const SyncPoint& point, uint32_t worldRank) const;

    /// The last SP before `point` that synchronized with `worldRank` (-1: none).
    int previousWith(int point, uint32_t worldRank) const;
    /// The last SP before `point` at which this rank had synchronized with all of `others`
    /// (walking back, an SP covering all still missing ends the walk); members met on the way
    /// at later SPs are returned in `intermediate` with that SP, sorted.
    int previousGroup(int point, const std::vector<uint32_t>& others,
                      std::vector<std::pair<uint32_t, int>>& intermediate);

    /// Merges the SPs from `first` on (in operation order) into those before (in operation
    /// order, none at the same operation).
    void mergeTail(size_t first);
    /// Adds the sends and receives of `operations` [first, end) (this location's) that are SPs
    /// because their partner waited there (`partnerWaited`, with the partner's call times in
    /// `partners`), unless this rank waited there itself; keeps the operation order.
    void addPartnerPoints(const std::vector<ReplayOperation>& operations,
                          const std::vector<CallSpan>& spans, const trace::EventStream& events,
                          const SpilledArray<ReplayRecord>& partners,
                          const std::vector<uint8_t>& partnerWaited, size_t first, size_t end);
    /// Whether addPartnerPoints() or completeInBlocks() found a partner whose call ended before
    /// this rank's call began (a clock that runs behind: the walk then goes in one slab,
    /// delay_pass.h).
    bool partnerEndedBefore() const { return m_partnerEndedBefore; }
    /// Sets the world rank of every point-to-point SP's partner, once every SP is known
    /// (`paired`: per operation, the message of a request operation, see messageOperation()).
    void resolvePartners(const std::vector<ReplayOperation>& operations,
                         const std::vector<uint32_t>& paired, const trace::EventStream& events,
                         uint32_t self);
    /// In blocks (buildInBlocks()), after mergeBackward(): what addPartnerPoints(),
    /// resolvePartners() and keep() do in memory, in one pass in operation order. The forward
    /// and the backward replay's SPs are read back and merged, the partners' SPs of
    /// `operations` [first, end) added between them, each point-to-point SP's partner set, and
    /// the result written to the scratch file in blocks, from where it is read from here on.
    void completeInBlocks(const std::vector<ReplayOperation>& operations,
                          const std::vector<CallSpan>& spans, const trace::EventStream& events,
                          const SpilledArray<ReplayRecord>& partners,
                          const std::vector<uint8_t>& partnerWaited, size_t first, size_t end,
                          const std::vector<uint32_t>& paired, uint32_t self);

private:
    static constexpr uint32_t kNoSet = 0xFFFFFFFFu;

    const trace::Definitions& m_defs;
    uint32_t m_ranks;
    // The SP of operation `k` (a partner's, of role SenderOfLate or ReceiverOfLate) that
    // addPartnerPoints() and completeInBlocks() add; notes a partner that ended before it.
    SyncPoint partnerPoint(uint32_t k, const std::vector<ReplayOperation>& operations,
                           const std::vector<CallSpan>& spans, const trace::EventStream& events,
                           const SpilledArray<ReplayRecord>& partners);
    // Sets the world rank of `sp`'s partner when it is a point-to-point SP.
    void resolvePartner(SyncPoint& sp, const std::vector<ReplayOperation>& operations,
                        const std::vector<uint32_t>& paired, const trace::EventStream& events,
                        uint32_t self) const;

    std::vector<SyncPoint> m_points;      ///< while building (in memory)
    SpilledArray<SyncPoint> m_keptPoints; ///< once kept
    bool m_kept = false;
    /// While building in blocks (buildInBlocks()): the scratch file, the forward replay's SPs
    /// and the backward replay's, each in operation order
    ScratchFile* m_file = nullptr;
    size_t m_blockEntries = 0;
    SpilledArray<SyncPoint> m_forward;
    SpilledArray<SyncPoint> m_backward;
    uint32_t m_lastForward = 0; ///< the operation of the last forward SP (checks the order)
    SyncPoint m_last;           ///< the SP pushed last
    std::vector<std::vector<uint32_t>> m_rankSets;
    std::map<std::vector<uint32_t>, uint32_t> m_rankSetIds; ///< each distinct set listed once
    /// The sets rankSet() found last, newest first (kNoSet: none)
    std::array<uint32_t, 4> m_recentRankSets{kNoSet, kNoSet, kNoSet, kNoSet};
    uint32_t m_lastMemberComm = kNoSet; ///< the communicator memberSet() found last
    uint32_t m_lastMemberSet = 0;       ///< ... and its set
    bool m_partnerEndedBefore = false;  ///< see partnerEndedBefore()
    std::map<uint32_t, uint32_t> m_memberSets;
    std::vector<uint32_t> m_remaining, m_left; ///< scratch of previousGroup()
};

bool isSend(trace::EventKind kind);
bool isReceive(trace::EventKind kind);
/// The operation holding the message of point-to-point operation `operation`: itself, or for a
/// request (MpiIrecvRequest, MpiIsendComplete) the receive or send `paired` with it.
uint32_t messageOperation(const std::vector<ReplayOperation>& operations,
                          const std::vector<uint32_t>& paired, const trace::EventStream& events,
                          uint32_t operation);
/// The delay type of a collective operation, or kKinds when it synchronizes no one.
Kind kindOf(trace::CollectiveOp op);

} // namespace waitscope::analysis::delay
