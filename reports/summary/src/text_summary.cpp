// The summary as plain text for a terminal.
#include "waitscope/summary/summary.h"

#include <cstdio>
#include <string_view>

namespace waitscope::summary {
namespace {

/// Lines are at most this many characters (code points) long.
constexpr size_t kWidth = 100;

std::string format(const char* pattern, double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, pattern, value);
    return buffer;
}

/// The number of characters (UTF-8 code points) of `text`.
size_t width(const std::string& text) {
    size_t n = 0;
    for (const char c : text) {
        n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
    }
    return n;
}

/// Splits a word too long for a line into pieces of at most `room` characters, each ending
/// after a '/' where there is one (call paths), else cut at `room`.
std::vector<std::string> splitLongWord(const std::string& word, size_t room) {
    std::vector<std::string> pieces;
    std::string rest = word;
    while (width(rest) > room) {
        // The byte offset of the character at position `room`.
        size_t limit = 0;
        for (size_t chars = 0; limit < rest.size() && chars < room; ++limit) {
            if ((static_cast<unsigned char>(rest[limit]) & 0xC0) != 0x80) {
                ++chars;
            }
        }
        while (limit < rest.size() && (static_cast<unsigned char>(rest[limit]) & 0xC0) == 0x80) {
            --limit; // not inside a character
        }
        const size_t slash = rest.rfind('/', limit - 1);
        const size_t cut = slash != std::string::npos && slash > 0 ? slash + 1 : limit;
        pieces.push_back(rest.substr(0, cut));
        rest = rest.substr(cut);
    }
    pieces.push_back(rest);
    return pieces;
}

/// Whether the word of `text` starting at `at` is a unit ("s", "ms", "%"), maybe followed by
/// punctuation.
bool isUnit(const std::string& text, size_t at) {
    for (const std::string_view unit : {"%", "s", "ms"}) {
        if (text.compare(at, unit.size(), unit) == 0) {
            const size_t after = at + unit.size();
            if (after == text.size() ||
                std::string_view(" ,;.:)").find(text[after]) != std::string_view::npos) {
                return true;
            }
        }
    }
    return false;
}

/// Breaks `text` into lines of at most kWidth characters, the first starting at column
/// `indent` (the label before it), continuation lines indented by `indent` spaces. Words
/// longer than a line (call paths) are broken after a '/'.
std::string wrap(const std::string& text, size_t indent) {
    const size_t room = kWidth - indent;
    std::string out;
    size_t column = 0; // characters on the current line after the indent
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find(' ', start);
        // A unit stays with its number: "0.92 s", "3.00 ms", "10.2 %)" are not broken apart.
        while (end != std::string::npos && isUnit(text, end + 1)) {
            end = text.find(' ', end + 1);
        }
        if (end == std::string::npos) {
            end = text.size();
        }
        const std::string word = text.substr(start, end - start);
        const std::vector<std::string> pieces = splitLongWord(word, room);
        for (size_t k = 0; k < pieces.size(); ++k) {
            const size_t w = width(pieces[k]);
            // A word's later pieces continue it without a space.
            size_t gap = k == 0 && column > 0 ? 1 : 0;
            if (column > 0 && column + gap + w > room) {
                out += '\n';
                out.append(indent, ' ');
                column = 0;
                gap = 0;
            }
            out.append(gap, ' ');
            out += pieces[k];
            column += gap + w;
        }
        start = end + 1;
    }
    return out;
}

/// A labelled line: "label:" padded to 13 columns, the text wrapped below it.
std::string field(const char* label, const std::string& text) {
    std::string out = std::string(label) + ":";
    out.append(out.size() < 13 ? 13 - out.size() : 1, ' ');
    return out + wrap(text, 13) + "\n";
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

std::string splitLine(const char* label, double seconds, double total) {
    char buffer[128];
    std::snprintf(buffer, sizeof buffer, "  %-19s%9.2f s  %5.1f %%\n", label, seconds,
                  percent(seconds, total));
    return buffer;
}

/// Advice text for a terminal: the `backticks` that mark code are dropped.
std::string plain(const std::string& text) {
    std::string out;
    for (const char c : text) {
        if (c != '`') {
            out += c;
        }
    }
    return out;
}

std::string hostsText(const Summary& s) {
    std::string out;
    for (size_t i = 0; i < s.hosts.size() && i < 4; ++i) {
        out += (i ? ", " : "") + s.hosts[i];
    }
    if (s.hosts.size() > 4) {
        out += ", ...";
    }
    return out + " (" + std::to_string(s.nodes) + (s.nodes == 1 ? " node)" : " nodes)");
}

} // namespace

std::string renderText(const Summary& s) {
    std::string out;
    out += "Waitscope summary\n=================\n";
    out += field("command", s.command);
    if (!s.date.empty()) {
        out += field("date", s.date);
    }
    if (!s.hosts.empty()) {
        out += field(s.hosts.size() == 1 ? "host" : "hosts", hostsText(s));
    }
    out += field("ranks", std::to_string(s.ranks) + (s.ranks == 1 ? " rank" : " ranks") +
                              " \u00d7 " + std::to_string(s.threadsPerRank) +
                              (s.threadsPerRank == 1 ? " thread" : " threads"));
    out += field("wall time", format("%.2f s (longest rank); ", s.wallSeconds) +
                                  format("%.2f s summed over ranks", s.split.total));
    if (!s.bound.empty()) {
        out += field("verdict", s.bound);
    }
    if (!s.source.empty()) {
        out += field("report", s.source);
    }
    if (s.threads > 0) {
        out += field("threads", std::to_string(s.threads) + " beside the ranks' main threads, " +
                                    format("%.2f s of the summed time", s.threadSeconds));
    }
    const MeasurementCost& c = s.cost;
    if (c.known) {
        out += field(
            "measurement",
            "summed over " + std::to_string(s.ranks) + (s.ranks == 1 ? " rank" : " ranks") +
                ": in MPI_Init " + format("%.3f s", c.initHook) + ", before MPI_Init " +
                format("%.3f s", c.wrapBeforeInit) + ", own work during the run " +
                format("%.3f s", c.insideDuringRun) + ", " +
                format("%.0f buffer flushes", c.flushes) + " (" + format("%.3f s", c.flushSeconds) +
                "), at MPI_Finalize " + format("%.3f s", c.atFinalize) + "; " +
                format("%.0f events", c.events) + ", " +
                (c.traceBytes > 0 ? format("%.1f KiB of trace", c.traceBytes / 1024.0)
                                  : std::string("no trace")));
        out += field("dilation", c.dilation);
    }
    out += field("effect", c.verdict);

    const TimeSplit& t = s.split;
    out += "\nWhere the time went (summed over ranks)\n";
    out += splitLine("computation", t.computation, t.total);
    out += splitLine("MPI", t.mpi, t.total);
    out += splitLine("  point-to-point", t.pointToPoint, t.total);
    out += splitLine("  collective", t.collective, t.total);
    out += splitLine("  synchronization", t.synchronization, t.total);
    out += splitLine("  init/finalize", t.initFinalize, t.total);
    if (t.fileIo > 0.0005) {
        out += splitLine("  file I/O", t.fileIo, t.total);
    }
    if (t.oneSided > 0.0005) {
        out += splitLine("  one-sided", t.oneSided, t.total);
    }
    if (t.otherMpi > 0.0005) {
        out += splitLine("  other MPI", t.otherMpi, t.total);
    }
    if (percent(t.overhead, t.total) >= 0.05) {
        out += splitLine("measurement", t.overhead, t.total);
    }

    out += "\nTop findings (ranked by the time they cost the whole job)\n";
    if (!s.waitStatesAvailable) {
        out += "  " +
               wrap("not available: a runtime profile has no wait-state metrics; measure with "
                    "tracing (waitscope analyze without --profile) to find them",
                    2) +
               "\n";
    } else if (s.findings.empty()) {
        out += "  none: no wait state costs a noticeable share of the run\n";
    }
    for (size_t i = 0; i < s.findings.size(); ++i) {
        const Finding& f = s.findings[i];
        char title[256];
        std::snprintf(title, sizeof title, "%2zu. ", i + 1);
        out += title +
               wrap(f.displayName + " (" + f.metric + "): " + format("%.2f s, ", f.seconds) +
                        format("%.1f %% of the total time", 100.0 * f.share),
                    4) +
               "\n";
        out += "    call path: " + wrap(f.shortPath, 15) + "\n";
        if (f.shortPath != f.callPath) {
            out += "    full path: " + wrap(f.callPath, 15) + "\n";
        }
        out += "    ranks:     " + wrap(ranksText(f.ranks), 15) + "\n";
        for (const Cause& cause : f.causes) {
            out += "    caused by: " +
                   wrap(std::string(cause.ranks.size() == 1 ? "rank " : "ranks ") +
                            ranksText(cause.ranks) + " in " + cause.shortPath + " (" +
                            cause.metric + format(", %.2f s)", cause.seconds),
                        15) +
                   "\n";
        }
    }
    if (s.waitStatesAvailable && !s.rootCauseAvailable) {
        out +=
            "  (root-cause metrics delay_*/imbalance_* are not in this report; the advice below\n"
            "   uses the computation per rank)\n";
    }

    out += "\nAdvice\n";
    for (const Advice& a : s.advice) {
        out += "  - " + wrap(plain(a.text), 4) + "\n";
        out += "    evidence: " + wrap(plain(a.evidence), 14) + "\n";
    }
    std::vector<std::string> notes = s.notes;
    if (const std::string clock = clockViolationNote(s); !clock.empty()) {
        notes.push_back(clock);
    }
    if (!notes.empty()) {
        out += "\nNotes from the analysis\n";
        for (const std::string& note : notes) {
            out += "  " + wrap(plain(note), 2) + "\n";
        }
    }
    return out;
}

} // namespace waitscope::summary
