// Chrome trace export: the trace walk (trace_walk.h) written as JSON Trace Event objects as it
// comes, in a tight loop: per visit a prepared prefix and two hand-formatted numbers copied
// into a large buffer, written out on a second thread while the next one fills.
#include "chrome_trace.h"

#include "background_writer.h"
#include "trace_walk.h"
#include "waitscope/analysis/metric.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace waitscope::exporter {
namespace {

// `text` as the inside of a JSON string.
std::string escaped(const std::string& text) {
    std::string out;
    for (const char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char code[8];
            std::snprintf(code, sizeof code, "\\u%04x", static_cast<unsigned>(c));
            out += code;
        } else {
            out += c;
        }
    }
    return out;
}

// Output into one large buffer handed to the writer when full: fixed pieces copied, numbers
// formatted by hand (two digits per step), no stream and no allocation per event.
class JsonOut {
public:
    explicit JsonOut(BackgroundWriter& writer)
        : m_writer(writer), m_buffer(kSize, '\0'), m_at(m_buffer.data()) {}
    ~JsonOut() { flush(); }
    JsonOut(const JsonOut&) = delete;
    JsonOut& operator=(const JsonOut&) = delete;

    /// Makes room for `bytes` more (one event's worth at most; long names go in pieces).
    void room(size_t bytes) {
        if (static_cast<size_t>(m_buffer.data() + m_buffer.size() - m_at) < bytes) {
            flush();
        }
    }
    JsonOut& text(std::string_view s) {
        while (s.size() > kSize / 2) { // a long name, in pieces
            text(s.substr(0, kSize / 2));
            s.remove_prefix(kSize / 2);
        }
        room(s.size());
        std::memcpy(m_at, s.data(), s.size());
        m_at += s.size();
        return *this;
    }
    /// Appends without a room check: the caller made room for the event.
    void raw(const char* data, size_t bytes) {
        std::memcpy(m_at, data, bytes);
        m_at += bytes;
    }
    JsonOut& number(uint64_t value) {
        room(24);
        m_at = digits(m_at, value);
        return *this;
    }
    /// Nanoseconds as microseconds with three decimals (negative values allowed); no room check.
    void micros(int64_t nanoseconds) {
        if (nanoseconds < 0) {
            *m_at++ = '-';
            nanoseconds = -nanoseconds;
        }
        const auto ns = static_cast<uint64_t>(nanoseconds);
        m_at = digits(m_at, ns / 1000);
        const auto fraction = static_cast<unsigned>(ns % 1000);
        m_at[0] = '.';
        m_at[1] = static_cast<char>('0' + fraction / 100);
        std::memcpy(m_at + 2, kPairs + 2 * (fraction % 100), 2);
        m_at += 4;
    }
    /// Starts the next element of the event array.
    JsonOut& next() {
        room(4);
        if (!m_first) {
            *m_at++ = ',';
        }
        *m_at++ = '\n';
        m_first = false;
        return *this;
    }
    /// Hands what the buffer holds to the writer and goes on in the one it hands back.
    void flush() {
        if (m_at != m_buffer.data()) {
            m_writer.write(m_buffer, static_cast<size_t>(m_at - m_buffer.data()));
            if (m_buffer.size() != kSize) {
                m_buffer.resize(kSize); // a new buffer; one written before is kept as it is
            }
            m_at = m_buffer.data();
        }
    }

private:
    // Small enough that the buffers in flight stay in the shared cache for the writer.
    static constexpr size_t kSize = size_t{1} << 20;
    static constexpr char kPairs[] =
        "00010203040506070809101112131415161718192021222324252627282930"
        "31323334353637383940414243444546474849505152535455565758596061"
        "62636465666768697071727374757677787980818283848586878889909192"
        "93949596979899";

    // Writes `value` in decimal at `out`; returns the end.
    static char* digits(char* out, uint64_t value) {
        char reversed[24];
        char* at = reversed + sizeof reversed;
        while (value >= 100) {
            at -= 2;
            std::memcpy(at, kPairs + 2 * (value % 100), 2);
            value /= 100;
        }
        if (value >= 10) {
            at -= 2;
            std::memcpy(at, kPairs + 2 * value, 2);
        } else {
            *--at = static_cast<char>('0' + value);
        }
        const auto length = static_cast<size_t>(reversed + sizeof reversed - at);
        std::memcpy(out, at, length);
        return out + length;
    }

    BackgroundWriter& m_writer;
    std::string m_buffer; // kSize bytes, filled up to m_at
    char* m_at;
    bool m_first = true;
};

// Writes each visit as a complete event at its leave, message ends as flow events and wait
// states as slices on their rank's "wait states" thread. A visit is its region's fixed prefix
// (name, category), the location's ids and two numbers: each location gets its prefixes made
// once, on its first visit of the region.
class JsonSink : public TraceSink {
public:
    JsonSink(const trace::Definitions& definitions, JsonOut& out)
        : m_definitions(definitions), m_out(out) {
        const size_t count = definitions.regions.size();
        m_names.reserve(count);
        m_categories.reserve(count);
        for (size_t r = 0; r < count; ++r) {
            m_names.push_back(escaped(definitions.regions[r].name));
            m_categories.push_back(categoryOf(definitions.regions[r]));
        }
    }

    void process(uint32_t rank, const std::string& name) override {
        metadata("process_name", rank, nullptr, name);
    }
    void thread(uint32_t rank, uint32_t tid, const std::string& name) override {
        metadata("thread_name", rank, &tid, name);
    }
    void enter(uint32_t, uint32_t, uint32_t, int64_t) override {}
    void leave(uint32_t rank, uint32_t tid, uint32_t region, int64_t enter, int64_t time) override {
        if (rank != m_rank || tid != m_tid) {
            startLocation(rank, tid);
        }
        if (region >= m_prefixes.size()) {
            m_prefixes.resize(region + 1);
        }
        std::string& prefix = m_prefixes[region];
        if (prefix.empty()) {
            const bool known = region < m_names.size();
            prefix = "{\"ph\":\"X\",\"name\":\"" +
                     (known ? m_names[region] : escaped(m_definitions.regionName(region))) +
                     "\",\"cat\":\"" + (known ? m_categories[region] : "computation") + "\"" +
                     m_ids + ",\"ts\":";
        }
        m_out.next();
        m_out.room(prefix.size() + 2 * 24 + 16);
        m_out.raw(prefix.data(), prefix.size());
        m_out.micros(enter);
        m_out.raw(",\"dur\":", 7);
        m_out.micros(time - enter);
        m_out.raw("}", 1);
    }
    void messageEnd(bool sendEnd, uint32_t rank, uint32_t tid, int64_t time, uint64_t id) override {
        m_out.next()
            .text(sendEnd ? "{\"ph\":\"s\"" : "{\"ph\":\"f\",\"bp\":\"e\"")
            .text(",\"name\":\"message\",\"cat\":\"message\",\"id\":")
            .number(id)
            .text(",\"pid\":")
            .number(rank)
            .text(",\"tid\":")
            .number(tid)
            .text(",\"ts\":");
        m_out.room(24);
        m_out.micros(time);
        m_out.text("}");
    }
    void waitState(const analysis::PatternInstance& i, uint32_t tid, int64_t from,
                   int64_t to) override {
        const std::string_view name = analysis::metricInfo(i.metric).displayName;
        m_out.next()
            .text("{\"ph\":\"X\",\"name\":\"")
            .text(name)
            .text("\",\"cat\":\"wait state\",\"cname\":\"terrible\",\"pid\":")
            .number(i.rank)
            .text(",\"tid\":")
            .number(tid)
            .text(",\"ts\":");
        m_out.room(24);
        m_out.micros(from);
        m_out.text(",\"dur\":");
        m_out.room(24);
        m_out.micros(to - from);
        m_out.text(",\"args\":{\"pattern\":\"")
            .text(analysis::metricInfo(i.metric).uniqueName)
            .text("\",\"cnode\":")
            .number(i.node)
            .text("}}");
    }

private:
    void metadata(const char* what, uint32_t pid, const uint32_t* tid, const std::string& name) {
        m_out.next().text("{\"ph\":\"M\",\"name\":\"").text(what).text("\",\"pid\":").number(pid);
        if (tid != nullptr) {
            m_out.text(",\"tid\":").number(*tid);
        }
        m_out.text(",\"args\":{\"name\":\"").text(escaped(name)).text("\"}}");
    }
    void startLocation(uint32_t rank, uint32_t tid) {
        m_rank = rank;
        m_tid = tid;
        m_ids = ",\"pid\":" + std::to_string(rank) + ",\"tid\":" + std::to_string(tid);
        m_prefixes.clear();
    }

    const trace::Definitions& m_definitions;
    JsonOut& m_out;
    std::vector<std::string> m_names;      // escaped region names
    std::vector<const char*> m_categories; // per region
    uint32_t m_rank = UINT32_MAX;          // the location whose prefixes are made
    uint32_t m_tid = UINT32_MAX;
    std::string m_ids;                   // ,"pid":R,"tid":T
    std::vector<std::string> m_prefixes; // per region: the visit up to its start time
};

} // namespace

Result<ChromeTraceCounts> writeChromeTrace(const std::string& experiment,
                                           const std::string& instancesFile,
                                           const std::string& output, bool timeCorrect) {
    auto input = readExportInput(experiment, instancesFile, timeCorrect);
    if (!input) {
        return input.error();
    }
    const std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(output.c_str(), "w"), &std::fclose);
    if (!file) {
        return Error(output + ": cannot write");
    }
    std::fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", file.get());
    ChromeTraceCounts counts;
    bool written = false;
    {
        BackgroundWriter writer(file.get());
        JsonOut out(writer);
        JsonSink sink(input->archive.definitions, out);
        auto walked = walkTrace(*input, sink);
        if (!walked) {
            return walked.error();
        }
        counts = *walked;
        out.flush();
        written = writer.finish();
    }
    std::fputs("\n]}\n", file.get());
    if (!written || std::ferror(file.get()) != 0) {
        return Error(output + ": cannot write");
    }
    return counts;
}

} // namespace waitscope::exporter
