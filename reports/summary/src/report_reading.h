// Reading a report for the summary: Reader (values per call path and rank, the first failure
// kept as an error), and the text and call-path helpers the summary and its advice share.
#pragma once

#include "waitscope/summary/summary.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace waitscope::summary::detail {

using report::CallTreeMode;
using report::MetricId;
using report::Report;

/// Seconds as the summary writes them ("1.23 s", "4.56 ms" below 10 ms).
std::string formatSeconds(double s);
/// A share as a percentage ("12.3 %").
std::string formatPercent(double share);
/// "rank 3" or "ranks 1, 2 and 5" (in rank order, at most `limit` named).
std::string rankList(const std::vector<RankValue>& ranks, size_t limit = 8);
/// rankList(ranks) followed by the verb that agrees with it: "rank 3 waits", "ranks 1 and 2 wait".
std::string ranksThat(const std::vector<RankValue>& ranks, const char* singular,
                      const char* plural);

/// The region role of an MPI function, for reports that do not record roles.
std::string roleFromName(const std::string& name);
/// The call path for display; an undefined program root shows the program's name.
std::string displayPath(const Report& report, report::CallNodeId cnode,
                        const std::string& programName);
/// The name of a call node's region; an undefined program root shows the program's name.
std::string nodeName(const Report& report, report::CallNodeId cnode,
                     const std::string& programName);
/// The call node itself, or its nearest caller in the user's code when it is a runtime frame.
report::CallNodeId nearestUserNode(const Report& report, report::CallNodeId cnode);
/// Whether `name` is MPI_Init, MPI_Init_thread or MPI_Finalize.
bool isInitOrFinalize(const std::string& name);
/// Whether the call node is MPI_Init or MPI_Finalize or lies below one of them.
bool insideInitOrFinalize(const Report& report, report::CallNodeId cnode);

/// Reads values through a report, turning the first failure into an error naming the metric.
class Reader {
public:
    explicit Reader(const Report& report) : m_report(report) {
        for (report::LocationId loc = 0; loc < report.locations().size(); ++loc) {
            std::optional<report::SystemNodeId> node = report.locations()[loc];
            std::int64_t rank = loc;
            while (node) {
                const report::SystemNode& n = report.systemNodes()[*node];
                if (n.kind == report::SystemKind::Process) {
                    rank = n.rank;
                    break;
                }
                node = n.parent;
            }
            m_rankOfLocation.push_back(rank);
        }
    }

    std::optional<MetricId> metric(const char* name) const {
        if (name == nullptr) {
            return std::nullopt;
        }
        auto id = m_report.findMetric(name);
        if (id && !m_report.metrics()[*id].available) {
            return std::nullopt;
        }
        return id;
    }

    double total(const char* name) {
        const auto id = metric(name);
        if (!id) {
            return 0.0;
        }
        auto v = m_report.total(*id);
        if (!v) {
            fail(name, v.error());
            return 0.0;
        }
        return *v;
    }

    std::vector<double> perCallNode(MetricId id) {
        auto v = m_report.callNodeValues(id, CallTreeMode::Exclusive);
        if (!v) {
            fail(m_report.metrics()[id].uniqueName.c_str(), v.error());
            return std::vector<double>(m_report.callNodes().size(), 0.0);
        }
        return *v;
    }

    /// Per-rank values of a metric at one call node (exclusive), indexed by location.
    std::vector<double> perLocation(MetricId id, report::CallNodeId cnode,
                                    CallTreeMode mode = CallTreeMode::Exclusive) {
        auto v = m_report.locationValues(id, cnode, mode);
        if (!v) {
            fail(m_report.metrics()[id].uniqueName.c_str(), v.error());
            return std::vector<double>(m_report.locations().size(), 0.0);
        }
        return *v;
    }

    /// Per-location values of a metric summed over all call nodes.
    std::vector<double> perLocationAll(MetricId id) {
        std::vector<double> sum(m_report.locations().size(), 0.0);
        for (report::CallNodeId root : m_report.rootCallNodes()) {
            const auto values = perLocation(id, root, CallTreeMode::Inclusive);
            for (size_t i = 0; i < sum.size(); ++i) {
                sum[i] += values[i];
            }
        }
        return sum;
    }

    /// Ranks with a nonzero value, largest first.
    std::vector<RankValue> ranksOf(const std::vector<double>& perLocationValues,
                                   double threshold) const {
        std::map<std::int64_t, double> byRank;
        for (size_t loc = 0; loc < perLocationValues.size(); ++loc) {
            byRank[m_rankOfLocation[loc]] += perLocationValues[loc];
        }
        std::vector<RankValue> out;
        for (const auto& [rank, v] : byRank) {
            if (v > threshold) {
                out.push_back({rank, v});
            }
        }
        std::stable_sort(out.begin(), out.end(), [](const RankValue& a, const RankValue& b) {
            return a.seconds > b.seconds;
        });
        return out;
    }

    std::vector<RankValue> allRanks(const std::vector<double>& perLocationValues) const {
        std::map<std::int64_t, double> byRank;
        for (size_t loc = 0; loc < perLocationValues.size(); ++loc) {
            byRank[m_rankOfLocation[loc]] += perLocationValues[loc];
        }
        std::vector<RankValue> out;
        out.reserve(byRank.size());
        for (const auto& [rank, v] : byRank) {
            out.push_back({rank, v});
        }
        return out;
    }

    Status status() const { return m_error ? Status(*m_error) : Status(); }

private:
    void fail(const char* name, const Error& error) {
        if (!m_error) {
            m_error = error.withContext(std::string("metric ") + name);
        }
    }

    const Report& m_report;
    std::vector<std::int64_t> m_rankOfLocation;
    std::optional<Error> m_error;
};

/// True for the diagnostics that count clock condition violations.
bool isClockViolation(std::string_view counter);
/// The clock condition violations of the report's diagnostics, with the MPI communication
/// calls (visits) they occur among.
ClockViolations clockViolations(const Report& report, Reader& reader);

/// One line: what bounds the run — computation, waiting, MPI's own work, or start-up
/// (advice.cpp).
std::string boundVerdict(const Summary& summary, double waitingOutsideStartup);
/// Adds the summary's advice from the findings and the report (advice.cpp).
void addAdvice(Summary& summary, const Report& report, Reader& reader);

} // namespace waitscope::summary::detail
