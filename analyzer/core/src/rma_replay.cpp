// The one-sided part of the forward replay. Score-P's RMA records (docs/rma_records.md) tell an
// origin what it did, never what happened at the target, so the ranks exchange:
//
//   window collectives   each member's call times (enter, exit) on the window's communicator,
//                        queued after the rank's MPI collectives and consumed after them
//   fence epochs         per fence, to every other member: the end of this rank's last
//                        transfer into it in the closing epoch (or none)
//   PSCW epochs          per MPI_Win_post, to each origin of its group: the post's time; per
//                        MPI_Win_complete, to each target of its group: the complete's time and
//                        the end of the last transfer into that target
//   lock epochs          per lock ... unlock, to the target: the lock type, the release time
//                        and the epoch's calls; per lock_all ... unlock_all, a shared lock
//                        epoch to every member of the window (its transfers to that member
//                        between the two calls); the target finds Lock Contention and Wait for
//                        Progress (from its own MPI calls) and sends each origin its findings
//                        back in a second exchange
//
// Records travel on the window's communicator (lock epochs on the world) with tags above the
// MPI tag range, one channel per window and kind, in posting order: the k-th post a rank
// receives from a target is that target's k-th post naming it.
#include "rma_replay.h"

#include "rma_patterns.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>

namespace waitscope::analysis {
namespace {

using trace::EventKind;

// Tags of the replay's one-sided records: above MPI's tag range (at most INT_MAX).
enum class RmaChannel : uint32_t { Fence = 1, Post = 2, Complete = 3, Lock = 4, LockResult = 5 };
uint32_t tagOf(uint32_t window, RmaChannel channel) {
    return 0xC0000000u | (window & 0x07FFFFFFu) << 3 | static_cast<uint32_t>(channel);
}

// The communicator rank of world rank `world` in `comm` (kUndefined when not a member).
uint32_t commRankOfWorld(const trace::Definitions& defs, uint32_t comm, uint32_t world,
                         uint32_t self) {
    if (comm >= defs.communicators.size()) {
        return trace::kUndefined;
    }
    const trace::Communicator& c = defs.communicators[comm];
    if (c.isSelf) {
        return world == self ? 0 : trace::kUndefined;
    }
    const auto found = std::find(c.worldRanks.begin(), c.worldRanks.end(), world);
    return found == c.worldRanks.end() ? trace::kUndefined
                                       : static_cast<uint32_t>(found - c.worldRanks.begin());
}

// The members of the group a one-sided synchronization names, as ranks of `comm`.
std::vector<uint32_t> groupInComm(const RankState& state, uint32_t group, uint32_t comm) {
    std::vector<uint32_t> ranks;
    if (group >= state.defs.groups.size()) {
        return ranks;
    }
    for (uint32_t world : state.defs.groups[group].worldRanks) {
        const uint32_t rank = commRankOfWorld(state.defs, comm, world, state.result.rank);
        if (rank != trace::kUndefined) {
            ranks.push_back(rank);
        }
    }
    return ranks;
}

// The size of `comm` as the replay sees it (0 when unknown).
size_t commSize(const RankState& state, uint32_t comm) {
    if (comm >= state.defs.communicators.size()) {
        return 0;
    }
    const trace::Communicator& c = state.defs.communicators[comm];
    return c.isSelf ? 1 : c.worldRanks.size();
}

// Whether a window's collective is replayed: one of a known communicator with other members.
bool replayedCollective(const RankState& state, const RmaEvent& event, uint32_t comm) {
    return event.kind == EventKind::RmaCollectiveEnd && commSize(state, comm) >= 2;
}

bool isTransfer(EventKind kind) {
    return kind == EventKind::RmaPut || kind == EventKind::RmaGet || kind == EventKind::RmaAtomic;
}

bool isLockRequest(EventKind kind) {
    return kind == EventKind::RmaRequestLock || kind == EventKind::RmaTryLock ||
           kind == EventKind::RmaAcquireLock;
}

// An origin's lock epoch on one target while it is open.
struct OpenLock {
    bool exclusive = false;
    std::vector<uint32_t> calls; // spans
};

// An origin's MPI_Win_lock_all epoch on a window while it is open: a shared lock on every member.
struct OpenLockAll {
    uint32_t lockCall = 0;                               // span
    std::map<uint32_t, std::vector<uint32_t>> transfers; // spans, per target (window rank)
};

} // namespace

Status postRmaRecords(RankState& state, Transport& transport) {
    RmaTimeline& rma = *state.rma;
    // Per window: the end of the last transfer into each communicator rank in the open epoch.
    std::map<uint32_t, std::map<uint32_t, double>> lastTransferTo;
    // Per (window, target): the open lock epoch.
    std::map<std::pair<uint32_t, uint32_t>, OpenLock> locks;
    // Per window: the open MPI_Win_lock_all epoch.
    std::map<uint32_t, OpenLockAll> lockAlls;
    std::vector<uint64_t> lockCounts(transport.size(), 0);
    std::vector<std::vector<double>> lockRecords(transport.size());
    // Queues a closed lock epoch of `window` for its target, world rank `world`.
    const auto queueLockEpoch = [&](uint32_t world, uint32_t window, bool exclusive, double release,
                                    std::vector<uint32_t> calls) {
        std::vector<double>& out = lockRecords[world];
        out.insert(out.end(), {static_cast<double>(window), exclusive ? 1.0 : 0.0,
                               static_cast<double>(calls.size()), release});
        for (uint32_t call : calls) {
            out.insert(out.end(), {rma.spans[call].enter, rma.spans[call].exit});
        }
        ++lockCounts[world];
        rma.sentLocks.push_back(RmaTimeline::SentLockEpoch{world, std::move(calls)});
    };
    for (const RmaEvent& event : rma.events) {
        const uint32_t window = event.record.window;
        const uint32_t comm = state.defs.windowComm(window);
        if (comm == trace::kUndefined) {
            continue;
        }
        const CallSpan& span = rma.spans[event.span];
        const uint32_t target = event.record.remote;
        if (isTransfer(event.kind) && target != trace::kUndefined) {
            // A transfer of a lock epoch belongs to that epoch, not to the active-target one.
            const auto open = locks.find({window, target});
            if (open != locks.end()) {
                if (open->second.calls.back() != event.span) {
                    open->second.calls.push_back(event.span);
                }
                continue;
            }
            const auto all = lockAlls.find(window);
            if (all != lockAlls.end()) {
                std::vector<uint32_t>& calls = all->second.transfers[target];
                if (calls.empty() || calls.back() != event.span) {
                    calls.push_back(event.span);
                }
                continue;
            }
            double& last = lastTransferTo[window].try_emplace(target, kNoTransfer).first->second;
            last = std::max(last, span.exit);
        } else if (replayedCollective(state, event, comm)) {
            Status s = state.pathCollectives
                           ? transport.contribute(comm, std::array{span.enter, span.exit, 0.0})
                           : transport.contribute(comm, std::array{span.enter, span.exit});
            if (!s) {
                return s;
            }
            if (event.call == RmaCallKind::Fence) {
                const std::map<uint32_t, double>& sent = lastTransferTo[window];
                const uint32_t own = state.commRankOf(comm);
                for (uint32_t member = 0; member < commSize(state, comm); ++member) {
                    if (member == own) {
                        continue;
                    }
                    const auto found = sent.find(member);
                    const double last = found == sent.end() ? kNoTransfer : found->second;
                    if (Status f = transport.send(comm, member, tagOf(window, RmaChannel::Fence),
                                                  ReplayRecord{last, 0.0, 0.0});
                        !f) {
                        return f;
                    }
                }
                lastTransferTo.erase(window);
            }
        } else if (event.kind == EventKind::RmaGroupSync) {
            if (event.call == RmaCallKind::Post) {
                for (uint32_t origin : groupInComm(state, event.record.remote, comm)) {
                    if (Status s = transport.send(comm, origin, tagOf(window, RmaChannel::Post),
                                                  ReplayRecord{event.time, 0.0, 0.0});
                        !s) {
                        return s;
                    }
                }
            } else if (event.call == RmaCallKind::Start) {
                lastTransferTo.erase(window);
            } else if (event.call == RmaCallKind::Complete) {
                const std::map<uint32_t, double>& sent = lastTransferTo[window];
                for (uint32_t targetRank : groupInComm(state, event.record.remote, comm)) {
                    const auto found = sent.find(targetRank);
                    const double last = found == sent.end() ? kNoTransfer : found->second;
                    if (Status s =
                            transport.send(comm, targetRank, tagOf(window, RmaChannel::Complete),
                                           ReplayRecord{event.time, last, 0.0});
                        !s) {
                        return s;
                    }
                }
                lastTransferTo.erase(window);
            }
        } else if (isLockRequest(event.kind) && target != trace::kUndefined) {
            OpenLock& open = locks[{window, target}];
            open.exclusive = event.record.exclusive;
            open.calls.assign(1, event.span);
        } else if (isLockRequest(event.kind)) {
            lockAlls[window] = OpenLockAll{event.span, {}};
        } else if (event.kind == EventKind::RmaReleaseLock && target != trace::kUndefined) {
            const auto open = locks.find({window, target});
            const uint32_t world = state.worldRankOf(comm, target);
            if (open == locks.end() || world == trace::kUndefined || world >= transport.size()) {
                continue;
            }
            std::vector<uint32_t> calls = std::move(open->second.calls);
            if (calls.back() != event.span) {
                calls.push_back(event.span);
            }
            queueLockEpoch(world, window, open->second.exclusive, event.time, std::move(calls));
            locks.erase(open);
        } else if (event.kind == EventKind::RmaReleaseLock) {
            // MPI_Win_unlock_all: a shared lock epoch on each member of the window.
            const auto open = lockAlls.find(window);
            if (open == lockAlls.end()) {
                continue;
            }
            const auto members = static_cast<uint32_t>(commSize(state, comm));
            for (uint32_t member = 0; member < members; ++member) {
                const uint32_t world = state.worldRankOf(comm, member);
                if (world == trace::kUndefined || world >= transport.size()) {
                    continue;
                }
                std::vector<uint32_t> calls{open->second.lockCall};
                const auto sent = open->second.transfers.find(member);
                if (sent != open->second.transfers.end()) {
                    calls.insert(calls.end(), sent->second.begin(), sent->second.end());
                }
                if (calls.back() != event.span) {
                    calls.push_back(event.span);
                }
                queueLockEpoch(world, window, false, event.time, std::move(calls));
            }
            lockAlls.erase(open);
        }
    }
    // The lock epochs go to their targets on the world, their numbers ahead by an all-to-all.
    for (uint32_t world = 0; world < lockRecords.size(); ++world) {
        const std::vector<double>& out = lockRecords[world];
        for (size_t k = 0; k + 1 < out.size(); k += 2) {
            if (Status s = transport.send(kWorldComm, world, tagOf(0, RmaChannel::Lock),
                                          ReplayRecord{out[k], out[k + 1], 0.0});
                !s) {
                return s;
            }
        }
    }
    auto from = transport.allToAll(lockCounts);
    if (!from) {
        return from.error();
    }
    rma.lockEpochsFrom = std::move(*from);
    return Status::success();
}

namespace {

// Lock Contention and Wait for Progress on this rank as a target: reads the origins' epochs,
// finds the waits per window and sends each origin its findings, per epoch in the order it sent
// them: a record (the contended call, its wait), one with the number of calls that waited for
// progress, and one per such call (the call, its wait).
Status findLockWaits(RankState& state, Transport& transport) {
    const RmaTimeline& rma = *state.rma;
    const uint32_t lockTag = tagOf(0, RmaChannel::Lock);
    std::map<uint32_t, std::vector<LockEpoch>> byWindow;
    // Per origin, in its sending order: (window, index in byWindow[window]).
    std::vector<std::vector<std::pair<uint32_t, size_t>>> received(rma.lockEpochsFrom.size());
    for (uint32_t origin = 0; origin < rma.lockEpochsFrom.size(); ++origin) {
        for (uint64_t k = 0; k < rma.lockEpochsFrom[origin]; ++k) {
            auto head = transport.receive(kWorldComm, origin, lockTag);
            auto tail = head ? transport.receive(kWorldComm, origin, lockTag) : head;
            if (!tail) {
                return tail.error();
            }
            LockEpoch epoch;
            epoch.origin = origin;
            epoch.exclusive = head->exit != 0.0;
            epoch.release = tail->exit;
            const auto window = static_cast<uint32_t>(head->enter);
            const auto calls = static_cast<size_t>(tail->enter);
            for (size_t c = 0; c < calls; ++c) {
                auto call = transport.receive(kWorldComm, origin, lockTag);
                if (!call) {
                    return call.error();
                }
                epoch.calls.emplace_back(kNoNode, call->enter, call->exit);
            }
            std::vector<LockEpoch>& epochs = byWindow[window];
            received[origin].emplace_back(window, epochs.size());
            epochs.push_back(std::move(epoch));
        }
    }
    std::map<uint32_t, std::vector<LockWait>> waits;
    for (const auto& [window, epochs] : byWindow) {
        waits[window] = lockContention(epochs);
    }
    for (uint32_t origin = 0; origin < received.size(); ++origin) {
        for (const auto& [window, index] : received[origin]) {
            const LockWait& wait = waits[window][index];
            const std::vector<double> progress = progressWaits(byWindow[window][index], rma.inMpi);
            const auto waited =
                std::count_if(progress.begin(), progress.end(), [](double w) { return w > 0.0; });
            const uint32_t tag = tagOf(0, RmaChannel::LockResult);
            for (const ReplayRecord& head :
                 {ReplayRecord{static_cast<double>(wait.call), wait.waited, 0.0},
                  ReplayRecord{static_cast<double>(waited), 0.0, 0.0}}) {
                if (Status s = transport.send(kWorldComm, origin, tag, head); !s) {
                    return s;
                }
            }
            for (size_t c = 0; c < progress.size(); ++c) {
                if (progress[c] <= 0.0) {
                    continue;
                }
                if (Status s =
                        transport.send(kWorldComm, origin, tag,
                                       ReplayRecord{static_cast<double>(c), progress[c], 0.0});
                    !s) {
                    return s;
                }
            }
        }
    }
    return Status::success();
}

// What the targets found for one call of this rank's lock epochs; a call of a lock_all epoch
// hears from every member and keeps the longest waits (it ended after the last one).
struct CallLockWaits {
    double contention = 0.0;
    double progress = 0.0;
};

// Receives the targets' findings on this rank's lock epochs (findLockWaits()) and records them
// per call, in the order the calls first appear in the epochs sent: Lock Contention, and Wait
// for Progress beyond it (rma_wait_for_progress.cpp), each as synchronization (lock, unlock) or
// communication (a transfer).
Status recordLockWaits(RankState& state, Transport& transport) {
    const RmaTimeline& rma = *state.rma;
    std::map<uint32_t, CallLockWaits> bySpan;
    std::vector<uint32_t> order;
    const auto waitsOf = [&](uint32_t span) -> CallLockWaits& {
        const auto [found, added] = bySpan.try_emplace(span);
        if (added) {
            order.push_back(span);
        }
        return found->second;
    };
    const uint32_t tag = tagOf(0, RmaChannel::LockResult);
    for (const RmaTimeline::SentLockEpoch& sent : rma.sentLocks) {
        auto found = transport.receive(kWorldComm, sent.target, tag);
        auto counted = found ? transport.receive(kWorldComm, sent.target, tag) : found;
        if (!counted) {
            return counted.error();
        }
        const auto call = static_cast<size_t>(found->enter);
        if (found->exit > 0.0 && call < sent.calls.size()) {
            CallLockWaits& waits = waitsOf(sent.calls[call]);
            waits.contention = std::max(waits.contention, found->exit);
        }
        const auto progressCalls = static_cast<uint64_t>(counted->enter);
        for (uint64_t k = 0; k < progressCalls; ++k) {
            auto progress = transport.receive(kWorldComm, sent.target, tag);
            if (!progress) {
                return progress.error();
            }
            const auto index = static_cast<size_t>(progress->enter);
            if (index < sent.calls.size()) {
                CallLockWaits& waits = waitsOf(sent.calls[index]);
                waits.progress = std::max(waits.progress, progress->exit);
            }
        }
    }
    for (uint32_t span : order) {
        const CallLockWaits& waits = bySpan[span];
        const uint32_t region = rma.regions[span];
        const bool transfer =
            region < rma.callKinds.size() && rma.callKinds[region] == RmaCallKind::Transfer;
        if (waits.contention > 0.0) {
            state.sink.record(transfer ? Metric::MpiRmaCommLockCompetition
                                       : Metric::MpiRmaSyncLockCompetition,
                              rma.spans[span], waits.contention);
        }
        // Both from the call's enter: the progress the call waited for after the lock's release.
        if (waits.progress > waits.contention) {
            state.sink.record(transfer ? Metric::MpiRmaCommWaitForProgress
                                       : Metric::MpiRmaSyncWaitForProgress,
                              rma.spans[span], waits.progress - waits.contention);
        }
    }
    return Status::success();
}

// An origin's access epoch while it is open (per window).
struct OpenAccess {
    AccessEpoch epoch;
    std::set<uint32_t> targets; // the ranks it transferred to
};

} // namespace

Status replayRma(RankState& state, Transport& transport) {
    const RmaTimeline& rma = *state.rma;
    PatternSink& sink = state.sink;
    std::map<uint32_t, OpenAccess> access;
    // Per window, the members this rank transferred to since the last fence, outside access
    // and lock epochs.
    std::map<uint32_t, std::set<uint32_t>> fenceTargets;
    // (window, target) of open lock epochs; target kUndefined for MPI_Win_lock_all's
    std::set<std::pair<uint32_t, uint32_t>> locked;
    for (const RmaEvent& event : rma.events) {
        const uint32_t window = event.record.window;
        const uint32_t comm = state.defs.windowComm(window);
        if (comm == trace::kUndefined) {
            continue;
        }
        const CallSpan& span = rma.spans[event.span];
        if (isLockRequest(event.kind)) {
            locked.insert({window, event.record.remote});
        } else if (event.kind == EventKind::RmaReleaseLock) {
            locked.erase({window, event.record.remote});
        } else if (isTransfer(event.kind) && event.record.remote != trace::kUndefined) {
            const auto open = access.find(window);
            if (open == access.end() && locked.count({window, event.record.remote}) == 0 &&
                locked.count({window, trace::kUndefined}) == 0) {
                fenceTargets[window].insert(event.record.remote);
            }
            if (open != access.end()) {
                std::vector<CallSpan>& transfers = open->second.epoch.transfers;
                if (transfers.empty() || transfers.back().enter != span.enter) {
                    transfers.push_back(span);
                }
                open->second.targets.insert(event.record.remote);
            }
        } else if (replayedCollective(state, event, comm)) {
            auto gathered = transport.gathered(comm);
            if (!gathered) {
                return gathered.error();
            }
            const uint32_t own = state.commRankOf(comm);
            if ((*gathered)->width() < 2 || own >= (*gathered)->members()) {
                return Error("rank " + std::to_string(state.result.rank) +
                             ": malformed exchange of window " + std::to_string(window) +
                             " on communicator " + std::to_string(comm));
            }
            const CollectiveView view{span, gathered->get(), own, trace::kUndefined};
            if (event.call == RmaCallKind::Create) {
                detectRmaCollectiveWait(view, Metric::MpiRmaWaitAtCreate, kNoTransfer, sink);
            } else if (event.call == RmaCallKind::Free) {
                detectRmaCollectiveWait(view, Metric::MpiRmaWaitAtFree, kNoTransfer, sink);
            } else if (event.call == RmaCallKind::Fence) {
                double lastIn = kNoTransfer;
                std::set<uint32_t> partners = std::move(fenceTargets[window]);
                fenceTargets.erase(window);
                for (uint32_t member = 0; member < view.members(); ++member) {
                    if (member == own) {
                        continue;
                    }
                    auto record = transport.receive(comm, member, tagOf(window, RmaChannel::Fence));
                    if (!record) {
                        return record.error();
                    }
                    if (record->enter > kNoTransfer) {
                        lastIn = std::max(lastIn, record->enter);
                        partners.insert(member);
                    }
                }
                partners.erase(own);
                detectRmaCollectiveWait(view, Metric::MpiRmaWaitAtFence, lastIn, sink);
                // A fence synchronizes with every other member; those that neither accessed
                // this rank nor were accessed by it in the epoch did not need to be.
                const double pairs = static_cast<double>(view.members() - 1);
                sink.add(Metric::MpiRmaPairsyncCount, span.node, pairs);
                sink.add(Metric::MpiRmaPairsyncUnneededCount, span.node,
                         pairs - static_cast<double>(partners.size()));
            }
        } else if (event.kind == EventKind::RmaGroupSync && event.call == RmaCallKind::Start) {
            OpenAccess& open = access[window];
            open = OpenAccess{};
            open.epoch.start = span;
            for (uint32_t targetRank : groupInComm(state, event.record.remote, comm)) {
                auto post = transport.receive(comm, targetRank, tagOf(window, RmaChannel::Post));
                if (!post) {
                    return post.error();
                }
                open.epoch.lastPost = std::max(open.epoch.lastPost, post->enter);
            }
        } else if (event.kind == EventKind::RmaGroupSync && event.call == RmaCallKind::Complete) {
            const auto open = access.find(window);
            const std::vector<uint32_t> group = groupInComm(state, event.record.remote, comm);
            size_t accessed = 0;
            if (open != access.end()) {
                open->second.epoch.complete = span;
                detectLatePost(open->second.epoch, sink);
                for (uint32_t targetRank : group) {
                    accessed += open->second.targets.count(targetRank);
                }
                access.erase(open);
            }
            sink.add(Metric::MpiRmaPairsyncCount, span.node, static_cast<double>(group.size()));
            sink.add(Metric::MpiRmaPairsyncUnneededCount, span.node,
                     static_cast<double>(group.size() - accessed));
        } else if (event.kind == EventKind::RmaGroupSync && event.call == RmaCallKind::Wait &&
                   event.record.level != 0) {
            const std::vector<uint32_t> group = groupInComm(state, event.record.remote, comm);
            double lastComplete = kNoTransfer;
            double lastTransfer = kNoTransfer;
            size_t accessed = 0;
            for (uint32_t origin : group) {
                auto complete =
                    transport.receive(comm, origin, tagOf(window, RmaChannel::Complete));
                if (!complete) {
                    return complete.error();
                }
                lastComplete = std::max(lastComplete, complete->enter);
                lastTransfer = std::max(lastTransfer, complete->exit);
                accessed += complete->exit > kNoTransfer ? 1 : 0;
            }
            detectEarlyWait(span, lastComplete, lastTransfer, sink);
            sink.add(Metric::MpiRmaPairsyncCount, span.node, static_cast<double>(group.size()));
            sink.add(Metric::MpiRmaPairsyncUnneededCount, span.node,
                     static_cast<double>(group.size() - accessed));
        }
    }
    // Lock Contention and Wait for Progress: the targets' findings back to the origins.
    if (Status s = findLockWaits(state, transport); !s) {
        return s;
    }
    if (Status s = transport.exchange(); !s) {
        return s;
    }
    return recordLockWaits(state, transport);
}

} // namespace waitscope::analysis
