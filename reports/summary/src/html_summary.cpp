// The summary as one self-contained HTML page with inline SVG charts.
#include "waitscope/summary/summary.h"

#include <algorithm>
#include <cstdio>
#include <waitscope/base/markup_escape.h>

namespace waitscope::summary {
namespace {

std::string escape(const std::string& text) {
    return escapeMarkup(text);
}

/// Escaped markup with a line-break opportunity after each '/', so call paths wrap there.
std::string breakAfterSlashes(const std::string& markup) {
    std::string out;
    for (const char c : markup) {
        out += c;
        if (c == '/') {
            out += "<wbr>";
        }
    }
    return out;
}

/// Escaped text with its `backticked` code as <code> elements.
std::string withCode(const std::string& text) {
    std::string out;
    bool inCode = false;
    size_t start = 0;
    for (size_t i = 0; i <= text.size(); ++i) {
        if (i == text.size() || text[i] == '`') {
            std::string part = escape(text.substr(start, i - start));
            if (inCode) {
                part = breakAfterSlashes(part);
            }
            out += part;
            if (i < text.size()) {
                out += inCode ? "</code>" : "<code>";
                inCode = !inCode;
            }
            start = i + 1;
        }
    }
    return inCode ? out + "</code>" : out;
}

/// A call path in its short form, the full path on hover and in a details element that opens
/// below it (so the table keeps its width).
std::string pathCell(const std::string& shortPath, const std::string& fullPath) {
    if (shortPath == fullPath) {
        return "<code>" + breakAfterSlashes(escape(fullPath)) + "</code>";
    }
    return "<details><summary><code title=\"" + escape(fullPath) + "\">" + escape(shortPath) +
           "</code></summary><code class=\"path\">" + breakAfterSlashes(escape(fullPath)) +
           "</code></details>";
}

/// A call path in its short form with the full path on hover, for a line of running text.
std::string pathInText(const std::string& shortPath, const std::string& fullPath) {
    return "<code title=\"" + escape(fullPath) + "\">" + escape(shortPath) + "</code>";
}

/// Rank numbers in ascending order, at most `limit`, comma-separated.
std::string sortedRanks(const std::vector<RankValue>& values, size_t limit = 16) {
    std::vector<std::int64_t> ranks;
    ranks.reserve(values.size());
    for (const RankValue& v : values) {
        ranks.push_back(v.rank);
    }
    std::sort(ranks.begin(), ranks.end());
    std::string out;
    for (size_t i = 0; i < ranks.size() && i < limit; ++i) {
        out += (i ? ", " : "") + std::to_string(ranks[i]);
    }
    if (ranks.size() > limit) {
        out += ", ... (" + std::to_string(ranks.size()) + " ranks)";
    }
    return out;
}

std::string number(const char* format, double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, format, value);
    return buffer;
}

struct Slice {
    const char* label;
    double seconds;
    const char* colour;
};

/// A horizontal stacked bar of the time split with a legend below it.
std::string timeSplitChart(const TimeSplit& t) {
    const Slice slices[] = {
        {"computation", t.computation, "#4e79a7"},
        {"MPI point-to-point", t.pointToPoint, "#e15759"},
        {"MPI collective", t.collective, "#f28e2b"},
        {"MPI synchronization", t.synchronization, "#edc948"},
        {"MPI init/finalize", t.initFinalize, "#9c755f"},
        {"MPI file I/O", t.fileIo, "#59a14f"},
        {"MPI one-sided", t.oneSided, "#b07aa1"},
        {"other MPI", t.otherMpi, "#bab0ac"},
        {"measurement", t.overhead, "#76b7b2"},
    };
    const double width = 640.0;
    const double total = t.total > 0 ? t.total : 1.0;
    // Slices below 0.05 % are neither drawn nor listed: they would read as "0.0 %".
    const auto shown = [&](const Slice& s) { return s.seconds / total >= 0.0005; };
    int legendEntries = 0;
    for (const Slice& s : slices) {
        legendEntries += shown(s) ? 1 : 0;
    }
    const int height = 72 + 24 * ((legendEntries + 2) / 3);
    std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"660\" height=\"" +
                      std::to_string(height) + "\" role=\"img\" aria-label=\"time split\">\n";
    double x = 10.0;
    for (const Slice& s : slices) {
        const double w = width * s.seconds / total;
        if (!shown(s)) {
            continue;
        }
        svg += "<rect x=\"" + number("%.1f", x) + "\" y=\"10\" width=\"" + number("%.1f", w) +
               "\" height=\"40\" fill=\"" + s.colour + "\"><title>" + s.label + ": " +
               number("%.2f s", s.seconds) + "</title></rect>\n";
        x += w;
    }
    int i = 0;
    for (const Slice& s : slices) {
        if (!shown(s)) {
            continue;
        }
        const int col = i % 3;
        const int row = i / 3;
        const double lx = 10 + col * 215;
        const double ly = 72 + row * 24;
        svg += "<rect x=\"" + number("%.0f", lx) + "\" y=\"" + number("%.0f", ly) +
               "\" width=\"14\" height=\"14\" fill=\"" + s.colour + "\"/>";
        svg += "<text x=\"" + number("%.0f", lx + 20) + "\" y=\"" + number("%.0f", ly + 12) +
               "\" font-size=\"13\">" + s.label + " " +
               number("%.1f %%", 100.0 * s.seconds / total) + "</text>\n";
        ++i;
    }
    svg += "</svg>\n";
    return svg;
}

/// A vertical bar per rank: its waiting time in wait states.
std::string waitingChart(const std::vector<RankValue>& ranks, double wallSeconds) {
    const size_t n = std::max<size_t>(ranks.size(), 1);
    const double plotWidth = 600.0;
    const double barSlot = plotWidth / static_cast<double>(n);
    const double plotHeight = 160.0;
    double maxValue = wallSeconds > 0 ? wallSeconds : 0.0;
    for (const RankValue& r : ranks) {
        maxValue = std::max(maxValue, r.seconds);
    }
    if (maxValue <= 0.0) {
        maxValue = 1.0;
    }
    std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"680\" height=\"230\" "
                      "role=\"img\" aria-label=\"waiting time per rank\">\n";
    // Axis and a grid line at the wall time (the run's length) for scale.
    svg += "<line x1=\"60\" y1=\"10\" x2=\"60\" y2=\"" + number("%.0f", 10 + plotHeight) +
           "\" stroke=\"#333\"/>\n";
    svg += "<line x1=\"60\" y1=\"" + number("%.0f", 10 + plotHeight) + "\" x2=\"" +
           number("%.0f", 60 + plotWidth) + "\" y2=\"" + number("%.0f", 10 + plotHeight) +
           "\" stroke=\"#333\"/>\n";
    for (int tick = 0; tick <= 4; ++tick) {
        const double v = maxValue * tick / 4.0;
        const double y = 10 + plotHeight - plotHeight * tick / 4.0;
        svg += "<line x1=\"56\" y1=\"" + number("%.1f", y) + "\" x2=\"" +
               number("%.0f", 60 + plotWidth) + "\" y2=\"" + number("%.1f", y) +
               "\" stroke=\"#ddd\"/>";
        svg += "<text x=\"52\" y=\"" + number("%.1f", y + 4) +
               "\" font-size=\"11\" text-anchor=\"end\">" + number("%.2f s", v) + "</text>\n";
    }
    for (size_t i = 0; i < ranks.size(); ++i) {
        const double h = plotHeight * ranks[i].seconds / maxValue;
        const double x = 60 + barSlot * static_cast<double>(i) + barSlot * 0.15;
        svg += "<rect x=\"" + number("%.1f", x) + "\" y=\"" + number("%.1f", 10 + plotHeight - h) +
               "\" width=\"" + number("%.1f", barSlot * 0.7) + "\" height=\"" + number("%.1f", h) +
               "\" fill=\"#b6403a\"><title>rank " + std::to_string(ranks[i].rank) + ": " +
               number("%.2f s", ranks[i].seconds) + "</title></rect>";
        if (ranks.size() <= 64) {
            svg += "<text x=\"" + number("%.1f", x + barSlot * 0.35) + "\" y=\"" +
                   number("%.0f", 28 + plotHeight) + "\" font-size=\"11\" text-anchor=\"middle\">" +
                   std::to_string(ranks[i].rank) + "</text>";
        }
        svg += "\n";
    }
    svg += "<text x=\"" + number("%.0f", 60 + plotWidth / 2) + "\" y=\"" +
           number("%.0f", 50 + plotHeight) +
           "\" font-size=\"12\" text-anchor=\"middle\">rank</text>\n</svg>\n";
    return svg;
}

} // namespace

std::string renderHtml(const Summary& s) {
    std::string h;
    // Long call paths and commands wrap anywhere rather than widen the page: the page fits a
    // 1280 px window (checked in headless Chromium by the journey tests).
    h += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         "<title>Waitscope summary</title>\n<style>\n"
         "body{font-family:sans-serif;margin:24px;max-width:1100px;color:#222;background:#fff;"
         "overflow-wrap:anywhere}\n"
         "h1{font-size:24px;margin-bottom:4px}h2{font-size:18px;margin-top:28px;"
         "border-bottom:1px solid #ccc}\n"
         "table{border-collapse:collapse;max-width:100%}td,th{padding:3px 10px;text-align:left;"
         "vertical-align:top;overflow-wrap:anywhere}\n"
         "table.header th{width:8em;white-space:nowrap}\n"
         "table.findings{width:100%;table-layout:fixed}\n"
         "th{background:#f0f0f0}td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
         "code{background:#f4f4f4;padding:1px 3px;overflow-wrap:anywhere;white-space:normal}\n"
         "details summary{cursor:pointer}details code.path{display:block;margin-top:4px;"
         "font-size:12px}\n"
         ".verdict{font-weight:bold}\n"
         ".ok{color:#2a7a2a}.bad{color:#b02020}.warn{color:#a05a00}.unknown{color:#555}"
         ".evidence{color:#555;font-size:13px}\n"
         "svg{max-width:100%;height:auto}li{margin-bottom:6px}\n"
         "</style>\n</head>\n<body>\n";
    h += "<h1>Waitscope summary</h1>\n<table class=\"header\">\n";
    h += "<tr><th>command</th><td><code>" + escape(s.command) + "</code></td></tr>\n";
    if (!s.date.empty()) {
        h += "<tr><th>date</th><td>" + escape(s.date) + "</td></tr>\n";
    }
    if (!s.hosts.empty()) {
        std::string hosts;
        for (size_t i = 0; i < s.hosts.size() && i < 8; ++i) {
            hosts += (i ? ", " : "") + s.hosts[i];
        }
        if (s.hosts.size() > 8) {
            hosts += ", ...";
        }
        h += std::string("<tr><th>") + (s.hosts.size() == 1 ? "host" : "hosts") + "</th><td>" +
             escape(hosts) + " (" + std::to_string(s.nodes) + (s.nodes == 1 ? " node" : " nodes") +
             ")</td></tr>\n";
    }
    h += "<tr><th>ranks</th><td>" + std::to_string(s.ranks) + (s.ranks == 1 ? " rank" : " ranks") +
         " &times; " + std::to_string(s.threadsPerRank) +
         (s.threadsPerRank == 1 ? " thread" : " threads") + "</td></tr>\n";
    h += "<tr><th>wall time</th><td>" + number("%.2f s", s.wallSeconds) + " (longest rank); " +
         number("%.2f s", s.split.total) + " summed over ranks</td></tr>\n";
    if (!s.bound.empty()) {
        h += "<tr><th>verdict</th><td class=\"verdict\">" + escape(s.bound) + "</td></tr>\n";
    }
    if (!s.source.empty()) {
        h += "<tr><th>report</th><td><code>" + escape(s.source) + "</code></td></tr>\n";
    }
    if (s.threads > 0) {
        h += "<tr><th>threads</th><td>" + std::to_string(s.threads) +
             " beside the ranks' main threads, " + number("%.2f s", s.threadSeconds) +
             " of the summed time</td></tr>\n";
    }
    const MeasurementCost& c = s.cost;
    if (c.known) {
        h += "<tr><th>measurement</th><td>summed over " + std::to_string(s.ranks) +
             (s.ranks == 1 ? " rank" : " ranks") + ": in MPI_Init " + number("%.3f s", c.initHook) +
             ", before MPI_Init " + number("%.3f s", c.wrapBeforeInit) +
             ", own work during the run " + number("%.3f s", c.insideDuringRun) + ", " +
             number("%.0f", c.flushes) + " buffer flushes (" + number("%.3f s", c.flushSeconds) +
             "), at MPI_Finalize " + number("%.3f s", c.atFinalize) + "; " +
             number("%.0f", c.events) + " events, " +
             (c.traceBytes > 0 ? number("%.1f KiB", c.traceBytes / 1024.0) + " of trace"
                               : std::string("no trace")) +
             "</td></tr>\n";
        h += "<tr><th>dilation</th><td>" + escape(c.dilation) + "</td></tr>\n";
    }
    const char* effectClass =
        !c.known ? "unknown" : (c.disturbed ? "bad" : (c.startupDominated ? "warn" : "ok"));
    h += "<tr><th>effect</th><td class=\"" + std::string(effectClass) + "\">" + escape(c.verdict) +
         "</td></tr>\n</table>\n";

    h += "<h2>Where the time went</h2>\n" + timeSplitChart(s.split);
    h += "<h2>Top findings</h2>\n";
    if (!s.waitStatesAvailable) {
        h += "<p>Not available: a runtime profile has no wait-state metrics; measure with tracing "
             "(<code>waitscope analyze</code> without <code>--profile</code>) to find them.</p>\n";
    } else if (s.findings.empty()) {
        h += "<p>No wait state costs a noticeable share of the run.</p>\n";
    } else {
        h += "<table class=\"findings\">\n<colgroup><col style=\"width:2.5em\">"
             "<col style=\"width:12em\"><col><col style=\"width:7em\">"
             "<col style=\"width:5.5em\"><col style=\"width:5em\"></colgroup>\n"
             "<tr><th>#</th><th>pattern</th><th>call path</th><th>ranks</th>"
             "<th>time</th><th>share</th></tr>\n";
        for (size_t i = 0; i < s.findings.size(); ++i) {
            const Finding& f = s.findings[i];
            const std::string ranks = sortedRanks(f.ranks);
            h += "<tr><td>" + std::to_string(i + 1) + "</td><td>" + escape(f.displayName) +
                 " <code>" + escape(f.metric) + "</code></td><td>" +
                 pathCell(f.shortPath, f.callPath) + "</td><td>" + ranks +
                 "</td><td class=\"num\">" + number("%.2f s", f.seconds) +
                 "</td><td class=\"num\">" + number("%.1f %%", 100.0 * f.share) + "</td></tr>\n";
            for (const Cause& cause : f.causes) {
                const std::string causeRanks = sortedRanks(cause.ranks);
                h += "<tr><td></td><td colspan=\"5\" class=\"evidence\">caused by " +
                     std::string(cause.ranks.size() == 1 ? "rank " : "ranks ") + causeRanks +
                     " in " + pathInText(cause.shortPath, cause.callPath) + " (" +
                     escape(cause.metric) + ", " + number("%.2f s", cause.seconds) +
                     ")</td></tr>\n";
            }
        }
        h += "</table>\n";
    }
    h += "<h2>Waiting time per rank</h2>\n" + waitingChart(s.waitingPerRank, s.wallSeconds);
    h += "<h2>Advice</h2>\n<ul>\n";
    for (const Advice& a : s.advice) {
        h += "<li>" + withCode(a.text) +
             "<br><span class=\"evidence\">evidence: " + withCode(a.evidence) + "</span></li>\n";
    }
    h += "</ul>\n";
    std::vector<std::string> notes = s.notes;
    if (const std::string clock = clockViolationNote(s); !clock.empty()) {
        notes.push_back(clock);
    }
    if (!notes.empty()) {
        h += "<h2>Notes from the analysis</h2>\n<ul>\n";
        for (const std::string& note : notes) {
            h += "<li>" + withCode(note) + "</li>\n";
        }
        h += "</ul>\n";
    }
    h += "</body>\n</html>\n";
    return h;
}

} // namespace waitscope::summary
