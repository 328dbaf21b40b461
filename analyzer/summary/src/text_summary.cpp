// The summary as plain text for a terminal.
#include "waitscope/summary/summary.h"

#include <cstdarg>
#include <cstdio>

namespace waitscope::summary {
namespace {

void appendf(std::string& out, const char* format, ...) __attribute__((format(printf, 2, 3)));

void appendf(std::string& out, const char* format, ...) {
    char buffer[1024];
    va_list args;
    va_start(args, format);
    std::vsnprintf(buffer, sizeof buffer, format, args);
    va_end(args);
    out += buffer;
}

/// Breaks `text` into lines of at most 96 characters, indenting continuation lines.
std::string wrap(const std::string& text, size_t indent) {
    std::string out;
    size_t column = indent;
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find(' ', start);
        if (end == std::string::npos) {
            end = text.size();
        }
        const std::string word = text.substr(start, end - start);
        if (column + word.size() + 1 > 96 && column > indent) {
            out += '\n';
            out.append(indent, ' ');
            column = indent;
        } else if (start > 0) {
            out += ' ';
            ++column;
        }
        out += word;
        column += word.size();
        start = end + 1;
    }
    return out;
}

double percent(double part, double whole) {
    return whole > 0.0 ? 100.0 * part / whole : 0.0;
}

std::string ranksText(const std::vector<RankValue>& ranks) {
    std::string out;
    for (size_t i = 0; i < ranks.size() && i < 8; ++i) {
        char buffer[64];
        std::snprintf(buffer, sizeof buffer, "%s%lld (%.2f s)", i == 0 ? "" : ", ",
                      static_cast<long long>(ranks[i].rank), ranks[i].seconds);
        out += buffer;
    }
    if (ranks.size() > 8) {
        out += ", ... (" + std::to_string(ranks.size()) + " ranks)";
    }
    return out;
}

} // namespace

std::string renderText(const Summary& s) {
    std::string out;
    out += "Waitscope summary\n=================\n";
    appendf(out, "command:     %s\n", s.command.c_str());
    if (!s.source.empty()) {
        appendf(out, "report:      %s\n", s.source.c_str());
    }
    appendf(out, "ranks:       %d on %d node%s\n", s.ranks, s.nodes, s.nodes == 1 ? "" : "s");
    appendf(out, "wall time:   %.2f s (longest rank); %.2f s summed over ranks\n", s.wallSeconds,
            s.split.total);
    if (s.threads > 0) {
        appendf(out, "threads:     %d beside the ranks' main threads, %.2f s of the summed time\n",
                s.threads, s.threadSeconds);
    }
    const MeasurementCost& c = s.cost;
    if (c.known) {
        appendf(out,
                "measurement: in MPI_Init %.3f s, before MPI_Init %.3f s, own work during the "
                "run %.3f s,\n             %.0f buffer flushes (%.3f s), at MPI_Finalize %.3f s; "
                "%.0f events, %.1f KiB of trace\n",
                c.initHook, c.wrapBeforeInit, c.insideDuringRun, c.flushes, c.flushSeconds,
                c.atFinalize, c.events, c.traceBytes / 1024.0);
    }
    appendf(out, "verdict:     %s\n", wrap(c.verdict, 13).c_str());

    const TimeSplit& t = s.split;
    out += "\nWhere the time went (summed over ranks)\n";
    appendf(out, "  computation        %9.2f s  %5.1f %%\n", t.computation,
            percent(t.computation, t.total));
    appendf(out, "  MPI                %9.2f s  %5.1f %%\n", t.mpi, percent(t.mpi, t.total));
    appendf(out, "    point-to-point   %9.2f s  %5.1f %%\n", t.pointToPoint,
            percent(t.pointToPoint, t.total));
    appendf(out, "    collective       %9.2f s  %5.1f %%\n", t.collective,
            percent(t.collective, t.total));
    appendf(out, "    synchronization  %9.2f s  %5.1f %%\n", t.synchronization,
            percent(t.synchronization, t.total));
    appendf(out, "    init/finalize    %9.2f s  %5.1f %%\n", t.initFinalize,
            percent(t.initFinalize, t.total));
    if (t.otherMpi > 0.0005) {
        appendf(out, "    other MPI        %9.2f s  %5.1f %%\n", t.otherMpi,
                percent(t.otherMpi, t.total));
    }
    if (t.overhead > 0.0005) {
        appendf(out, "  measurement        %9.2f s  %5.1f %%\n", t.overhead,
                percent(t.overhead, t.total));
    }

    out += "\nTop findings (ranked by the time they cost the whole job)\n";
    if (s.findings.empty()) {
        out += "  none: no wait state costs a noticeable share of the run\n";
    }
    for (size_t i = 0; i < s.findings.size(); ++i) {
        const Finding& f = s.findings[i];
        appendf(out, "%2zu. %s (%s): %.2f s, %.1f %% of the total time\n", i + 1,
                f.displayName.c_str(), f.metric.c_str(), f.seconds, 100.0 * f.share);
        appendf(out, "    call path: %s\n", f.callPath.c_str());
        appendf(out, "    ranks:     %s\n", ranksText(f.ranks).c_str());
        for (const Cause& cause : f.causes) {
            appendf(out, "    caused by: %s %s in %s (%s, %.2f s)\n",
                    cause.ranks.size() == 1 ? "rank" : "ranks", ranksText(cause.ranks).c_str(),
                    cause.callPath.c_str(), cause.metric.c_str(), cause.seconds);
        }
    }
    if (!s.rootCauseAvailable) {
        out +=
            "  (root-cause metrics delay_*/imbalance_* are not in this report; the advice below\n"
            "   uses the computation per rank)\n";
    }

    out += "\nAdvice\n";
    for (const Advice& a : s.advice) {
        appendf(out, "  - %s\n    evidence: %s\n", wrap(a.text, 4).c_str(),
                wrap(a.evidence, 14).c_str());
    }
    if (!s.notes.empty()) {
        out += "\nNotes from the analysis\n";
        for (const std::string& note : s.notes) {
            appendf(out, "  %s\n", note.c_str());
        }
    }
    return out;
}

} // namespace waitscope::summary
