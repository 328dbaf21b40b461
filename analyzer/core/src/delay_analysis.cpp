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
// each with its channel (communicator, tag, type) and position on it.
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
    : m_defs(definitions), m_events(events), m_transport(transport), m_result(result),
      m_points(definitions, transport.size()) {}

void DelayAnalysis::onLateSender(uint32_t operation, const CallSpan& call, double wait,
                                 double completion) {
    m_points.push(SyncPoint::at(operation, Role::LateSender, call, wait, completion, 0));
}

void DelayAnalysis::onLateReceiver(uint32_t operation, const CallSpan& call, double wait,
                                   double completion) {
    m_points.push(SyncPoint::at(operation, Role::LateReceiver, call, wait, completion, 0));
}

void DelayAnalysis::replaysDone() {
    // The SPs so far: the forward pass's in operation order, then the backward pass's.
    const auto backward = std::find_if(m_points.begin(), m_points.end(), [](const SyncPoint& p) {
        return p.role == Role::LateReceiver;
    });
    m_points.mergeTail(static_cast<size_t>(backward - m_points.begin()));
}

Status DelayAnalysis::run(const std::vector<ReplayOperation>& operations,
                          const std::vector<CallSpan>& spans, const std::vector<uint32_t>& paired,
                          const OperationProfile& profile, std::vector<ReplayRecord> partners,
                          std::vector<uint8_t> partnerWaited) {
    m_points.addPartnerPoints(operations, spans, m_events, partners, partnerWaited);
    // Not needed in the walk: freed before it.
    partners = {};
    partnerWaited = {};
    m_points.resolvePartners(operations, paired, m_events, m_transport.rank());
    delay::Pass pass(m_defs, m_events, m_transport, m_result, m_points, m_collectives, operations,
                     paired, profile);
    // The OpenMP barrier waits the master's wait states caused: their SPs keep their operation.
    for (const auto& [operation, cost] : m_ompBarrierCosts) {
        const auto it =
            std::lower_bound(m_points.begin(), m_points.end(), operation,
                             [](const SyncPoint& p, uint32_t op) { return p.operation < op; });
        for (auto k = it; k != m_points.end() && k->operation == operation; ++k) {
            if (k->wait > 0.0) {
                pass.addCost(static_cast<int>(k - m_points.begin()), delay::kOmpBarrier, cost);
                break;
            }
        }
    }
    m_ompBarrierCosts = {};
    return pass.run();
}

} // namespace waitscope::analysis
