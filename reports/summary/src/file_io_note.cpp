// The summary's note on MPI file I/O done by few ranks while the others wait at collective I/O
// ("rank 0 writes 1.2 GB alone while 63 ranks wait at collective I/O"), from the bytes of the
// OTF2 I/O records (io_bytes_read, io_bytes_written) and Wait at Collective I/O per rank.
#include "waitscope/summary/summary.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace waitscope::summary {
namespace {

std::string formatBytes(double bytes) {
    const char* units[] = {"bytes", "kB", "MB", "GB", "TB"};
    size_t unit = 0;
    while (bytes >= 1000.0 && unit + 1 < std::size(units)) {
        bytes /= 1000.0;
        ++unit;
    }
    char text[32];
    std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", bytes, units[unit]);
    return text;
}

std::map<std::int64_t, double> byRank(const std::vector<RankValue>& values) {
    std::map<std::int64_t, double> out;
    for (const RankValue& v : values) {
        out[v.rank] += v.seconds;
    }
    return out;
}

} // namespace

std::string fileIoNote(const std::vector<RankValue>& written, const std::vector<RankValue>& read,
                       const std::vector<RankValue>& collectiveWait, int ranks) {
    std::map<std::int64_t, double> bytes = byRank(written);
    double writtenTotal = 0, readTotal = 0;
    for (const RankValue& v : written) {
        writtenTotal += v.seconds;
    }
    for (const RankValue& v : read) {
        bytes[v.rank] += v.seconds;
        readTotal += v.seconds;
    }
    const double total = writtenTotal + readTotal;
    if (total <= 0.0 || ranks < 2) {
        return {};
    }
    // The fewest ranks that move 90 % of the bytes: "few" is at most a quarter of the ranks
    // (one of two or three).
    std::vector<std::pair<double, std::int64_t>> order;
    order.reserve(bytes.size());
    for (const auto& [rank, value] : bytes) {
        order.emplace_back(value, rank);
    }
    std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
        return a.first > b.first || (a.first == b.first && a.second < b.second);
    });
    std::vector<std::int64_t> movers;
    double moved = 0;
    for (const auto& [value, rank] : order) {
        if (moved >= 0.9 * total) {
            break;
        }
        movers.push_back(rank);
        moved += value;
    }
    if (movers.size() > std::max<size_t>(1, static_cast<size_t>(ranks) / 4)) {
        return {};
    }
    // The others that waited at collective I/O (more than a millisecond each).
    size_t waiting = 0;
    double waited = 0;
    for (const auto& [rank, seconds] : byRank(collectiveWait)) {
        if (seconds > 1e-3 && std::find(movers.begin(), movers.end(), rank) == movers.end()) {
            ++waiting;
            waited += seconds;
        }
    }
    if (waiting == 0) {
        return {};
    }
    std::sort(movers.begin(), movers.end());
    const bool writes = writtenTotal >= 0.9 * total, reads = readTotal >= 0.9 * total;
    const bool one = movers.size() == 1;
    std::string who = one ? "rank " : "ranks ";
    for (size_t i = 0; i < movers.size(); ++i) {
        who += (i > 0 ? "," : "") + std::to_string(movers[i]);
    }
    const std::string verb = writes  ? (one ? "writes" : "write")
                             : reads ? (one ? "reads" : "read")
                                     : (one ? "reads and writes" : "read and write");
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.3g s", waited);
    return "file I/O: " + who + " " + verb + " " + formatBytes(moved) +
           (one ? " alone" : " of " + formatBytes(total)) + " while " + std::to_string(waiting) +
           (waiting == 1 ? " rank waits" : " ranks wait") + " at collective I/O (" + seconds +
           " in all)";
}

} // namespace waitscope::summary
