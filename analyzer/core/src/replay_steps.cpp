// The replays' exchanges in one step or in bounded steps (see replay_steps.h).
#include "replay_steps.h"

#include "waitscope/analysis/memory_budget.h"

#include <algorithm>
#include <string>

namespace waitscope::analysis {

ReplaySteps::ReplaySteps(RankState& state, Transport& transport, uint64_t stepOperations)
    : m_state(state), m_transport(transport), m_stepOperations(stepOperations) {
    if (m_stepOperations > 0) {
        const size_t comms = state.defs.communicators.size();
        m_contributed.assign(comms, 0);
        m_bound.assign(comms, 0);
    }
}

Status ReplaySteps::contribute(uint32_t comm, std::span<const double> values) {
    if (m_stepOperations == 0 || comm >= m_contributed.size()) {
        return m_transport.contribute(comm, values);
    }
    m_unsent[comm].emplace_back(values.begin(), values.end());
    return Status::success();
}

Result<ReplayRecord> ReplaySteps::receive(uint32_t comm, uint32_t source, uint32_t tag) {
    if (m_stepOperations == 0) {
        return m_transport.receive(comm, source, tag);
    }
    const auto found = m_records.find({comm, m_state.worldRankOf(comm, source), tag});
    if (found == m_records.end() || found->second.empty()) {
        return Error("rank " + std::to_string(m_state.result.rank) + ": no message from rank " +
                     std::to_string(source) + " with tag " + std::to_string(tag) +
                     " on communicator " + std::to_string(comm));
    }
    const ReplayRecord record = found->second.front();
    found->second.pop_front();
    --m_held;
    if (found->second.empty()) {
        m_records.erase(found);
    }
    return record;
}

Result<std::shared_ptr<const GatheredCollective>> ReplaySteps::gathered(uint32_t comm) {
    if (m_stepOperations == 0) {
        return m_transport.gathered(comm);
    }
    const auto found = m_collectives.find(comm);
    if (found == m_collectives.end() || found->second.empty()) {
        return Error("rank " + std::to_string(m_state.result.rank) +
                     ": no collective delivered on communicator " + std::to_string(comm));
    }
    std::shared_ptr<const GatheredCollective> collective = std::move(found->second.front());
    found->second.pop_front();
    return collective;
}

uint64_t replayStepOperations(const RankState& state) {
    if (state.input.windows == nullptr || state.scratch == nullptr) {
        return 0;
    }
    const uint64_t window = state.input.options.windowEvents;
    return window > 0 ? window : kMaxWindowEvents;
}

Status ReplaySteps::runInOneStep(const Post& post, const Consume& consume,
                                 const std::function<Status()>& postedAll) {
    const size_t total = m_state.operations.size();
    for (size_t i = 0; i < total; ++i) {
        const ReplayOperation& op = at(i);
        if (Status s = post(op, m_state.indexOf(op)); !s) {
            return s;
        }
    }
    if (postedAll) {
        if (Status s = postedAll(); !s) {
            return s;
        }
    }
    if (Status s = m_transport.exchange(); !s) {
        return s;
    }
    ++m_steps;
    m_peakRecords = m_postedNow;
    for (size_t i = 0; i < total; ++i) {
        const ReplayOperation& op = at(i);
        if (Status s = consume(op, m_state.indexOf(op)); !s) {
            return s;
        }
    }
    return Status::success();
}

// Every rank tells whether it has posted and contributed everything, and per communicator how
// many contributions it has posted; the bound of each communicator is what all its members have
// posted. Returns whether every rank had finished before this step.
Result<bool> ReplaySteps::agree(bool finished) {
    const size_t comms = m_contributed.size();
    std::vector<double> mine(comms + 1);
    mine[0] = finished ? 1.0 : 0.0;
    for (size_t c = 0; c < comms; ++c) {
        mine[c + 1] = static_cast<double>(m_contributed[c]);
    }
    for (const auto& [comm, unsent] : m_unsent) {
        mine[comm + 1] += static_cast<double>(unsent.size());
    }
    auto all = m_transport.allGather(kWorldComm, mine);
    if (!all) {
        return all.error();
    }
    for (size_t c = 0; c < comms; ++c) {
        m_bound[c] = static_cast<uint64_t>(mine[c + 1]);
    }
    return agreeOnStep(*all, mine.size(), 1, m_transport.size(), m_state.defs, m_bound);
}

bool agreeOnStep(const std::vector<double>& all, size_t width, size_t first, uint32_t ranks,
                 const trace::Definitions& defs, std::vector<uint64_t>& bound) {
    bool everyone = true;
    for (uint32_t r = 0; r < ranks; ++r) {
        everyone = everyone && all[r * width] != 0.0;
    }
    for (size_t c = 0; c < bound.size(); ++c) {
        const trace::Communicator& comm = defs.communicators[c];
        if (comm.isSelf) {
            continue;
        }
        for (const uint32_t member : comm.worldRanks) {
            if (member < ranks) {
                bound[c] =
                    std::min(bound[c], static_cast<uint64_t>(all[member * width + first + c]));
            }
        }
    }
    return everyone;
}

bool ReplaySteps::consumable(const Need& need) {
    switch (need.kind) {
    case Need::Kind::Record: {
        const uint32_t source = m_state.worldRankOf(need.comm, need.source);
        if (source == trace::kUndefined) {
            return true; // receive() names what is wrong
        }
        const auto found = m_records.find({need.comm, source, need.tag});
        return found != m_records.end() && !found->second.empty();
    }
    case Need::Kind::Collective: {
        const auto found = m_collectives.find(need.comm);
        return found != m_collectives.end() && !found->second.empty();
    }
    case Need::Kind::Nothing:
        break;
    }
    return true;
}

Status ReplaySteps::run(const Post& post, const Needs& needs, const Consume& consume,
                        const std::function<Status()>& postedAll) {
    if (m_stepOperations == 0) {
        return runInOneStep(post, consume, postedAll);
    }
    const size_t total = m_state.operations.size();
    size_t nextPost = 0;
    size_t nextConsume = 0;
    const auto consumeArrived = [&]() -> Status {
        for (; nextConsume < total; ++nextConsume) {
            const ReplayOperation& op = at(nextConsume);
            const uint32_t k = m_state.indexOf(op);
            if (!consumable(needs(op, k))) {
                break;
            }
            if (Status s = consume(op, k); !s) {
                return s;
            }
        }
        return Status::success();
    };
    for (;;) {
        bool finished = nextPost == total;
        for (const auto& [comm, unsent] : m_unsent) {
            finished = finished && unsent.empty();
        }
        // This step's operations: their records leave now, their contributions below.
        const size_t end = std::min<uint64_t>(total, nextPost + m_stepOperations);
        for (; nextPost < end; ++nextPost) {
            const ReplayOperation& op = at(nextPost);
            if (Status s = post(op, m_state.indexOf(op)); !s) {
                return s;
            }
            if (nextPost + 1 == total && postedAll) {
                if (Status s = postedAll(); !s) {
                    return s;
                }
            }
        }
        auto everyone = agree(finished);
        if (!everyone) {
            return everyone.error();
        }
        if (*everyone) {
            break;
        }
        // The collectives up to the agreed bound of their communicator: every member
        // contributes the same ones in this exchange.
        m_contributedNow.clear();
        for (auto& [comm, unsent] : m_unsent) {
            while (!unsent.empty() && m_contributed[comm] < m_bound[comm]) {
                if (Status s = m_transport.contribute(comm, unsent.front()); !s) {
                    return s;
                }
                unsent.pop_front();
                ++m_contributed[comm];
                ++m_contributedNow[comm];
            }
        }
        if (Status s = m_transport.exchange(); !s) {
            return s;
        }
        ++m_steps;
        m_peakRecords = std::max(m_peakRecords, m_postedNow);
        m_postedNow = 0;
        m_transport.takeRecords(
            [this](uint32_t comm, uint32_t source, uint32_t tag, const ReplayRecord& record) {
                m_records[{comm, source, tag}].push_back(record);
                ++m_held;
            });
        m_peakRecords = std::max(m_peakRecords, m_held);
        for (const auto& [comm, count] : m_contributedNow) {
            auto& queue = m_collectives[comm];
            for (uint64_t c = 0; c < count; ++c) {
                auto collective = m_transport.gathered(comm);
                if (!collective) {
                    return collective.error();
                }
                queue.push_back(std::move(*collective));
            }
        }
        if (Status s = consumeArrived(); !s) {
            return s;
        }
    }
    if (Status s = consumeArrived(); !s) {
        return s;
    }
    if (nextConsume < total) {
        return Error(
            "rank " + std::to_string(m_state.result.rank) + ": replay stalled at operation " +
            std::to_string(m_state.indexOf(at(nextConsume))) + ": what it waits for never arrived");
    }
    return Status::success();
}

} // namespace waitscope::analysis
