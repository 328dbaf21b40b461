// Chrome trace export: the trace walk (trace_walk.h) written as JSON Trace Event objects as it
// comes, through a buffer with fast number formatting.
#include "chrome_trace.h"

#include "trace_walk.h"
#include "waitscope/analysis/metric.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <memory>
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

// Buffered output with fast number formatting.
class JsonOut {
public:
    explicit JsonOut(FILE* file) : m_file(file) { m_buffer.reserve(kFlush + 4096); }
    ~JsonOut() { flush(); }
    JsonOut(const JsonOut&) = delete;
    JsonOut& operator=(const JsonOut&) = delete;

    JsonOut& text(std::string_view s) {
        m_buffer.append(s);
        return *this;
    }
    JsonOut& number(uint64_t value) {
        char digits[24];
        const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
        m_buffer.append(digits, end);
        return *this;
    }
    /// Nanoseconds as microseconds with three decimals (negative values allowed).
    JsonOut& micros(int64_t nanoseconds) {
        if (nanoseconds < 0) {
            m_buffer += '-';
            nanoseconds = -nanoseconds;
        }
        const auto ns = static_cast<uint64_t>(nanoseconds);
        number(ns / 1000);
        const auto fraction = static_cast<unsigned>(ns % 1000);
        const char decimals[4] = {'.', static_cast<char>('0' + fraction / 100),
                                  static_cast<char>('0' + fraction / 10 % 10),
                                  static_cast<char>('0' + fraction % 10)};
        m_buffer.append(decimals, 4);
        return *this;
    }
    /// Starts the next element of the event array.
    JsonOut& next() {
        m_buffer.append(m_first ? "\n" : ",\n");
        m_first = false;
        if (m_buffer.size() >= kFlush) {
            flush();
        }
        return *this;
    }
    void flush() {
        if (!m_buffer.empty()) {
            std::fwrite(m_buffer.data(), 1, m_buffer.size(), m_file);
            m_buffer.clear();
        }
    }

private:
    static constexpr size_t kFlush = size_t{1} << 20;
    FILE* m_file;
    std::string m_buffer;
    bool m_first = true;
};

// Writes each visit as a complete event at its leave, message ends as flow events and wait
// states as slices on their rank's "wait states" thread.
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
        const bool known = region < m_names.size();
        m_out.next().text("{\"ph\":\"X\",\"name\":\"");
        if (known) {
            m_out.text(m_names[region]);
        } else {
            m_out.text(escaped(m_definitions.regionName(region)));
        }
        m_out.text("\",\"cat\":\"")
            .text(known ? m_categories[region] : "computation")
            .text("\",\"pid\":")
            .number(rank)
            .text(",\"tid\":")
            .number(tid)
            .text(",\"ts\":")
            .micros(enter)
            .text(",\"dur\":")
            .micros(time - enter)
            .text("}");
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
            .text(",\"ts\":")
            .micros(time)
            .text("}");
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
            .text(",\"ts\":")
            .micros(from)
            .text(",\"dur\":")
            .micros(to - from)
            .text(",\"args\":{\"pattern\":\"")
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

    const trace::Definitions& m_definitions;
    JsonOut& m_out;
    std::vector<std::string> m_names;      // escaped region names
    std::vector<const char*> m_categories; // per region
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
    {
        JsonOut out(file.get());
        JsonSink sink(input->archive.definitions, out);
        auto walked = walkTrace(*input, sink);
        if (!walked) {
            return walked.error();
        }
        counts = *walked;
    }
    std::fputs("\n]}\n", file.get());
    if (std::ferror(file.get()) != 0) {
        return Error(output + ": cannot write");
    }
    return counts;
}

} // namespace waitscope::exporter
