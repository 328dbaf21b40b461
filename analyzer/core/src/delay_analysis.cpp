// Delay costs and wait-state classification.
//
// Source: Böhme, Geimer, Wolf, Arnold, "Identifying the root causes of wait states in
// large-scale parallel applications" (ICPP 2010; TOPC 3(2), 2016), as Scalasca 2.6 computes it.
//
// Synchronization points (SPs) are the operations at which a rank synchronized with others:
// Late Sender receives and the sends they waited for, Late Receiver sends and the receives
// they waited for, barriers, n-to-n operations, 1-to-n and n-to-1 operations where someone
// waited, MPI_Init and MPI_Finalize. A synchronization interval runs from the previous SP
// that synchronized with the partner to the current one:
//
//   waiter    ..SP|----- work w_c ------|--enter......wait ω......|exit
//   delayer   ..SP|----- work t_c (own waits removed) ----------|--enter-----|
//                 <--------------- synchronization interval --------------->
//
//   delay d_c      = max(t_c - w_c, 0)        per call path c (the delayer's excess work)
//   short-term     += s * d_c,   s = min(ω / (Σd + Σwait), 1)
//   long-term(X)   += (γ_X / (Σd + Σwait)) * d_c
//
// where Σwait is the waiting time of the delayer's own SPs inside the interval and γ_X the
// waiting of type X that the waiter's wait state caused later on (its costs, accumulated by
// the replay so far). The delayer's own wait states inside the interval take on costs
// s·ω_k (same type) and γ_X/(Σd+Σwait)·ω_k: this is how long-term costs travel backward.
// One type has no wait states of its own here: OpenMP barrier waits, which the OpenMP analysis
// hands to the master thread's wait states they came from as costs before the pass
// (openmp_analysis.cpp); they travel like the others (delay_ompbarrier_longterm).
// The interval's times exclude the waiting of inner SPs and the non-completion part of the
// opening SP's call. For collectives the latecomer (last to enter; the root of 1-to-n; the
// last sender of n-to-1) plays the delayer against every waiting member, with interval
// starts per member when it synchronized with some members since the last SP with all.
//
// Classification (point-to-point wait states only, as in Scalasca): of a wait ω whose delayer
// itself waited Σwait inside the interval, s·Σwait is indirect (propagated to it) and the
// rest direct; a wait state ω_k of the delayer inside such an interval is propagating in the
// largest share s·ω_k any later point-to-point delay computation gave it, the rest terminal.
//
// Passes: (1) the profile pass records the exclusive time per call path between consecutive
// operations (OperationProfile: one node and its seconds per call path touched between two
// operations, kept after the timestamps are freed); (2) the forward and backward replays
// report Late Sender, collective and Late Receiver SPs, and tell the partners of
// point-to-point wait states that their send or receive is an SP, with the waiter's call times
// (a receive says whether it waited; a sender's waiting its receiver computes alike);
// (3) a message-driven backward replay. There each waiter posts
// [wait, its costs per type, its interval's times by call-path key] to its delayer, which
// awaits it at the matching operation; each waiting member of a collective posts the same to
// the latecomer (before the walk when it synchronized with every rank there, since such a
// wait state can take on no costs). Indirect shares travel back once per waiter at the end,
// each with its channel (communicator, tag, type) and position on it. An interval ends at the
// SP being walked, so an SP the walk has passed takes on no further costs or shares: its
// ledger entry retires, and only its propagating share is kept for the classification, in the
// order of first cost (Ledger::retireAbove()).
//
// Over ranks read in windows the walk goes in slabs of the traced time, all ranks together with
// a gather between slabs, so that the payloads in flight stay within a slab's (delay_pass.h,
// RankPass).
//
// A rank whose further threads call MPI (replay lanes) has one timeline per location: each
// location's SPs, intervals, costs and values are its own, and the walk interleaves the
// locations by time (delay_pass.h, RankPass).
//
// Files: delay_sync_points (the SPs and rank sets), delay_collective_sync (collective SPs, in
// the forward pass), delay_interval (intervals), delay_payload (what a waiter posts),
// delay_pass (one run of pass 3 and its walk), delay_point_to_point and delay_collective (the
// two delay computations), delay_ledger (costs and shares) and delay_classification.
#include "delay_analysis.h"

#include "delay_pass.h"

#include <algorithm>
#include <utility>

namespace waitscope::analysis {

using delay::Role;
using delay::SyncPoint;

DelayAnalysis::DelayAnalysis(const trace::Definitions& definitions,
                             const trace::EventStream& events, Transport& transport,
                             RankResult& result)
    : m_defs(definitions), m_events(events), m_transport(transport), m_result(result) {
    timeline(0);
}

DelayAnalysis::Timeline& DelayAnalysis::timeline(uint32_t lane) {
    while (m_timelines.size() <= lane) {
        m_timelines.emplace_back(m_defs, m_transport.size());
        if (m_pointsFile != nullptr) {
            m_timelines.back().points.buildInBlocks(m_pointsFile, m_blockEntries);
        }
    }
    return m_timelines[lane];
}

void DelayAnalysis::onLateSender(uint32_t operation, const CallSpan& call, double wait,
                                 double completion) {
    timeline(call.lane).points.push(
        SyncPoint::at(operation, Role::LateSender, call, wait, completion, 0));
}

void DelayAnalysis::onLateReceiver(uint32_t operation, const CallSpan& call, double wait,
                                   double completion) {
    timeline(call.lane).points.pushBackward(
        SyncPoint::at(operation, Role::LateReceiver, call, wait, completion, 0));
}

void DelayAnalysis::replaysDone() {
    for (Timeline& line : m_timelines) {
        line.points.mergeBackward();
    }
}

void DelayAnalysis::keepPointsIn(ScratchFile* file, size_t blockEntries) {
    m_pointsFile = file;
    m_blockEntries = blockEntries;
    for (Timeline& line : m_timelines) {
        line.points.buildInBlocks(file, blockEntries);
    }
}

// The OpenMP barrier waits the master's wait states caused, as costs of their SPs (which keep
// their operation), before the pass.
void DelayAnalysis::seedOmpBarrierCosts(delay::Pass& pass, const delay::SyncPoints& points) const {
    for (const auto& [operation, cost] : m_ompBarrierCosts) {
        // The first SP at or after `operation`.
        size_t low = 0;
        size_t high = points.size();
        while (low < high) {
            const size_t middle = low + (high - low) / 2;
            if (points[middle].operation < operation) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        for (size_t k = low; k < points.size(); ++k) {
            const SyncPoint sp = points[k];
            if (sp.operation != operation) {
                break;
            }
            if (sp.wait > 0.0) {
                pass.addCost(static_cast<int>(k), delay::kOmpBarrier, cost);
                break;
            }
        }
    }
}

Status DelayAnalysis::run(const std::vector<ReplayOperation>& operations,
                          const std::vector<CallSpan>& spans, const std::vector<uint32_t>& paired,
                          const OperationProfile& profile, SpilledArray<ReplayRecord> partners,
                          std::vector<uint8_t> partnerWaited, std::vector<ThreadResult>& lanes) {
    // Each location's operations follow the previous one's: where each begins.
    timeline(static_cast<uint32_t>(lanes.size()));
    std::vector<size_t> first(m_timelines.size() + 1, operations.size());
    first[0] = 0;
    for (size_t k = operations.size(); k-- > 0;) {
        const uint32_t lane = spans[operations[k].span].lane;
        if (lane < m_timelines.size()) {
            first[lane] = k;
        }
    }
    for (size_t l = m_timelines.size(); l-- > 1;) {
        first[l - 1] = std::min(first[l - 1], first[l]);
    }
    for (size_t l = 0; l < m_timelines.size(); ++l) {
        delay::SyncPoints& points = m_timelines[l].points;
        if (points.inBlocks()) {
            // Merged, completed and written in one pass (kept from here on).
            points.completeInBlocks(operations, spans, m_events, partners, partnerWaited, first[l],
                                    first[l + 1], paired, m_transport.rank());
        } else {
            points.addPartnerPoints(operations, spans, m_events, partners, partnerWaited, first[l],
                                    first[l + 1]);
        }
    }
    // Not needed in the walk: freed before it.
    partners.clear();
    partnerWaited = {};
    delay::RankPass pass(m_transport);
    if (m_pointsFile != nullptr) {
        bool postedBeforeAwait = m_postedBeforeAwait;
        for (const Timeline& line : m_timelines) {
            postedBeforeAwait = postedBeforeAwait || line.points.partnerEndedBefore();
        }
        pass.walkInSlabs(std::max<size_t>(m_blockEntries, 1), postedBeforeAwait);
        pass.shared().posted.spillTo(m_pointsFile, std::max<size_t>(m_blockEntries, 1));
    }
    std::vector<SeverityRows*> rows;
    for (size_t l = 0; l < m_timelines.size(); ++l) {
        Timeline& line = m_timelines[l];
        if (!line.points.kept()) {
            line.points.resolvePartners(operations, paired, m_events, m_transport.rank());
        }
        delay::Pass& located = pass.add(m_defs, m_events, m_transport, m_result.tree, line.points,
                                        line.collectives, operations, spans, paired, profile,
                                        first[l], static_cast<uint32_t>(l), pass.shared());
        rows.push_back(l == 0 ? &m_result.severities : &lanes[l - 1].severities);
        if (l == 0) {
            seedOmpBarrierCosts(located, line.points);
        }
    }
    m_ompBarrierCosts = {};
    // Complete: the walk reads them (from disk in blocks when the rank has a scratch file), and
    // the retired ledger entries go there too.
    for (size_t l = 0; l < m_timelines.size(); ++l) {
        if (!m_timelines[l].points.kept()) {
            m_timelines[l].points.keep(m_pointsFile, m_blockEntries);
        }
        if (m_pointsFile != nullptr) {
            pass.location(l).ledger().spillTo(m_pointsFile, m_blockEntries);
        }
    }
    return pass.run(rows);
}

} // namespace waitscope::analysis
