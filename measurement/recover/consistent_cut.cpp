// Finds the consistent cut of the ranks' events (see consistent_cut.h).
#include "consistent_cut.h"

#include "waitscope/measure/event_buffer.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace waitscope::measure {

namespace {

std::uint32_t commOf(const RecordEvent& e) {
    return static_cast<std::uint32_t>(e.x[0]);
}
std::uint32_t tagOf(const RecordEvent& e) {
    return static_cast<std::uint32_t>(e.x[0] >> 32);
}
bool isSend(const RecordEvent& e) {
    return e.eventKind() == EventKind::MpiSend || e.eventKind() == EventKind::MpiIsend;
}
bool isReceive(const RecordEvent& e) {
    return e.eventKind() == EventKind::MpiRecv || e.eventKind() == EventKind::MpiIrecv;
}
bool isCollective(const RecordEvent& e) {
    return e.eventKind() == EventKind::MpiCollectiveEnd ||
           e.eventKind() == EventKind::MpiCollectiveEndLarge ||
           e.eventKind() == EventKind::NbCollComplete;
}

/// The world rank of communicator rank `peer` of `comm`, seen from world rank `self`; -1 when
/// unknown.
long worldRankOf(const std::vector<CutComm>& comms, std::uint32_t comm, std::uint32_t peer,
                 std::uint32_t self) {
    if (comm >= comms.size())
        return -1;
    const CutComm& c = comms[comm];
    if (c.self)
        return peer == 0 ? static_cast<long>(self) : -1;
    return peer < c.members.size() ? static_cast<long>(c.members[peer]) : -1;
}

/// For each event, where its MPI call starts: the Enter of the innermost region open at it.
std::vector<std::size_t> callStarts(const std::vector<RecordEvent>& events) {
    std::vector<std::size_t> start(events.size());
    std::vector<std::size_t> open;
    for (std::size_t i = 0; i < events.size(); ++i) {
        start[i] = open.empty() ? i : open.back();
        if (events[i].eventKind() == EventKind::Enter)
            open.push_back(i);
        else if (events[i].eventKind() == EventKind::Leave && !open.empty())
            open.pop_back();
    }
    return start;
}

using Channel = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>;

} // namespace

std::vector<RankCut> consistentCut(const std::vector<std::vector<RecordEvent>>& ranks,
                                   const std::vector<CutComm>& comms) {
    const std::uint32_t size = static_cast<std::uint32_t>(ranks.size());
    std::vector<RankCut> cuts(size);
    std::vector<std::vector<std::size_t>> starts(size);
    for (std::uint32_t r = 0; r < size; ++r) {
        cuts[r].kept = ranks[r].size();
        starts[r] = callStarts(ranks[r]);
    }
    auto cutBefore = [&](std::uint32_t r, std::size_t event) {
        const std::size_t at = starts[r][event];
        if (at < cuts[r].kept) {
            cuts[r].kept = at;
            return true;
        }
        return false;
    };
    for (bool changed = true; changed;) {
        changed = false;
        // Collectives, by communicator, in order; and messages, by channel, in order.
        std::map<std::uint32_t, std::map<std::uint32_t, std::vector<std::size_t>>> collectives;
        std::map<Channel, std::vector<std::size_t>> sends, receives;
        for (std::uint32_t r = 0; r < size; ++r) {
            for (std::size_t i = 0; i < cuts[r].kept; ++i) {
                const RecordEvent& e = ranks[r][i];
                if (isCollective(e)) {
                    const std::uint32_t comm = commOf(e);
                    const bool member =
                        comm < comms.size() &&
                        (comms[comm].self ||
                         std::find(comms[comm].members.begin(), comms[comm].members.end(), r) !=
                             comms[comm].members.end());
                    if (!member) {
                        changed = cutBefore(r, i) || changed; // cannot be matched
                        break;
                    }
                    collectives[comm][r].push_back(i);
                } else if (isSend(e) || isReceive(e)) {
                    const long peer = worldRankOf(comms, commOf(e), e.a, r);
                    if (peer < 0 || peer >= static_cast<long>(size))
                        continue; // dropped below
                    const std::uint32_t p = static_cast<std::uint32_t>(peer);
                    if (isSend(e))
                        sends[{commOf(e), r, p, tagOf(e)}].push_back(i);
                    else
                        receives[{commOf(e), p, r, tagOf(e)}].push_back(i);
                }
            }
        }
        for (const auto& [comm, byRank] : collectives) {
            if (comms[comm].self)
                continue;
            std::size_t common = ~std::size_t{0};
            for (std::uint32_t m : comms[comm].members) {
                auto it = byRank.find(m);
                common = std::min(common, it == byRank.end() ? 0 : it->second.size());
            }
            for (const auto& [r, events] : byRank)
                if (events.size() > common)
                    changed = cutBefore(r, events[common]) || changed;
        }
        for (const auto& [channel, received] : receives) {
            auto it = sends.find(channel);
            const std::size_t sent = it == sends.end() ? 0 : it->second.size();
            if (received.size() > sent)
                changed = cutBefore(std::get<2>(channel), received[sent]) || changed;
        }
    }
    // Sends whose receive is gone, and messages with an unknown peer, leave the kept prefix.
    std::map<Channel, std::size_t> received;
    std::vector<std::map<std::uint64_t, bool>> droppedRequests(size);
    for (std::uint32_t r = 0; r < size; ++r)
        for (std::size_t i = 0; i < cuts[r].kept; ++i) {
            const RecordEvent& e = ranks[r][i];
            if (!isReceive(e))
                continue;
            const long peer = worldRankOf(comms, commOf(e), e.a, r);
            if (peer >= 0 && peer < static_cast<long>(size))
                ++received[{commOf(e), static_cast<std::uint32_t>(peer), r, tagOf(e)}];
        }
    for (std::uint32_t r = 0; r < size; ++r) {
        std::map<Channel, std::size_t> sentSoFar;
        std::vector<std::uint64_t> requests; // of dropped nonblocking sends
        for (std::size_t i = 0; i < cuts[r].kept; ++i) {
            const RecordEvent& e = ranks[r][i];
            bool drop = false;
            if (isSend(e) || isReceive(e)) {
                const long peer = worldRankOf(comms, commOf(e), e.a, r);
                if (peer < 0 || peer >= static_cast<long>(size)) {
                    drop = true;
                } else if (isSend(e)) {
                    Channel channel{commOf(e), r, static_cast<std::uint32_t>(peer), tagOf(e)};
                    auto it = received.find(channel);
                    drop = ++sentSoFar[channel] > (it == received.end() ? 0 : it->second);
                }
                if (drop) {
                    ++cuts[r].droppedMessages;
                    if (e.eventKind() == EventKind::MpiIsend)
                        requests.push_back(e.x[2]);
                }
            } else if (e.eventKind() == EventKind::MpiIsendComplete) {
                auto it = std::find(requests.begin(), requests.end(), e.x[0]);
                if (it != requests.end()) {
                    requests.erase(it);
                    drop = true;
                }
            }
            if (drop)
                cuts[r].dropped.push_back(i);
        }
    }
    return cuts;
}

} // namespace waitscope::measure
