// A flat little format: counts followed by arrays, strings as length + bytes.
#include "waitscope/analysis/rank_result_codec.h"

#include <cstring>
#include <string>

namespace waitscope::analysis {
namespace {

class Writer {
public:
    template <class T> void put(const T& value) {
        const auto* bytes = reinterpret_cast<const uint8_t*>(&value);
        m_out.insert(m_out.end(), bytes, bytes + sizeof(T));
    }
    void putString(const std::string& text) {
        put<uint64_t>(text.size());
        m_out.insert(m_out.end(), text.begin(), text.end());
    }
    std::vector<uint8_t> take() { return std::move(m_out); }

private:
    std::vector<uint8_t> m_out;
};

class Reader {
public:
    Reader(const uint8_t* data, size_t size) : m_data(data), m_size(size) {}
    template <class T> bool get(T& value) {
        if (m_pos + sizeof(T) > m_size) {
            return false;
        }
        std::memcpy(&value, m_data + m_pos, sizeof(T));
        m_pos += sizeof(T);
        return true;
    }
    bool getString(std::string& text) {
        uint64_t length = 0;
        if (!get(length) || m_pos + length > m_size) {
            return false;
        }
        text.assign(reinterpret_cast<const char*>(m_data + m_pos), length);
        m_pos += length;
        return true;
    }
    size_t position() const { return m_pos; }
    bool atEnd() const { return m_pos == m_size; }

private:
    const uint8_t* m_data;
    size_t m_size;
    size_t m_pos = 0;
};

void putRows(Writer& w, const SeverityRows& rows) {
    for (size_t m = 0; m < kMetricCount; ++m) {
        const auto& row = rows.row(static_cast<Metric>(m));
        w.put<uint64_t>(row.size());
        for (double v : row) {
            w.put<double>(v);
        }
    }
}

// Rows longer than the tree's `nodes` are refused.
bool getRows(Reader& r, SeverityRows& rows, uint64_t nodes) {
    for (size_t m = 0; m < kMetricCount; ++m) {
        uint64_t length = 0;
        if (!r.get(length) || length > nodes) {
            return false;
        }
        auto& row = rows.row(static_cast<Metric>(m));
        row.resize(length);
        for (double& v : row) {
            if (!r.get(v)) {
                return false;
            }
        }
    }
    return true;
}

} // namespace

std::vector<uint8_t> encodeRankResult(const RankResult& result) {
    Writer w;
    w.put<uint32_t>(result.rank);
    w.put<uint64_t>(result.events);
    w.put<uint64_t>(result.tree.size());
    for (NodeId n = 0; n < result.tree.size(); ++n) {
        w.put<uint32_t>(result.tree.node(n).parent);
        w.put<uint32_t>(result.tree.node(n).region);
    }
    putRows(w, result.severities);
    for (const PatternSamples& samples : result.patterns) {
        w.put<uint64_t>(samples.severities.size());
        for (float v : samples.severities) {
            w.put<float>(v);
        }
        w.put<double>(samples.sum);
        w.put<double>(samples.sumSquares);
        w.put<double>(samples.minimum);
        w.put<double>(samples.maximum);
        w.put<uint64_t>(samples.mostSevere.size());
        for (const PatternInstance& i : samples.mostSevere) {
            w.put<uint8_t>(static_cast<uint8_t>(i.metric));
            w.put<uint32_t>(i.node);
            w.put<uint32_t>(i.rank);
            w.put<double>(i.enter);
            w.put<double>(i.exit);
            w.put<double>(i.severity);
        }
    }
    w.put<uint64_t>(result.instances.size());
    for (const PatternInstance& i : result.instances) {
        w.put<uint8_t>(static_cast<uint8_t>(i.metric));
        w.put<uint32_t>(i.node);
        w.put<double>(i.enter);
        w.put<double>(i.exit);
        w.put<double>(i.severity);
    }
    // Diagnostics by their registry index: all analysis processes are the same build.
    w.put<uint64_t>(result.diagnostics.size());
    result.diagnostics.forEachCounted([&w](experiment::Diagnostic diagnostic, uint64_t count) {
        w.put<uint8_t>(static_cast<uint8_t>(diagnostic));
        w.put<uint64_t>(count);
    });
    w.put<uint64_t>(result.threads.size());
    for (const ThreadResult& thread : result.threads) {
        w.put<uint64_t>(thread.location);
        w.putString(thread.name);
        w.put<uint64_t>(thread.events);
        putRows(w, thread.severities);
    }
    w.put<uint64_t>(result.warnings.size());
    for (const std::string& warning : result.warnings) {
        w.putString(warning);
    }
    return w.take();
}

Result<RankResult> decodeRankResult(const uint8_t* data, size_t size) {
    Reader r(data, size);
    RankResult result;
    const auto bad = [&r] {
        return Error("rank result: malformed at byte " + std::to_string(r.position()));
    };
    uint64_t nodes = 0;
    if (!r.get(result.rank) || !r.get(result.events) || !r.get(nodes)) {
        return bad();
    }
    for (uint64_t n = 0; n < nodes; ++n) {
        uint32_t parent = 0, region = 0;
        if (!r.get(parent) || !r.get(region) || (parent != kNoNode && parent >= n)) {
            return bad();
        }
        if (result.tree.child(parent, region) != n) {
            return bad();
        }
    }
    if (!getRows(r, result.severities, nodes)) {
        return bad();
    }
    for (PatternSamples& samples : result.patterns) {
        uint64_t count = 0;
        if (!r.get(count) || count > size) {
            return bad();
        }
        samples.severities.resize(count);
        for (float& v : samples.severities) {
            if (!r.get(v)) {
                return bad();
            }
        }
        uint64_t kept = 0;
        if (!r.get(samples.sum) || !r.get(samples.sumSquares) || !r.get(samples.minimum) ||
            !r.get(samples.maximum) || !r.get(kept) || kept > PatternSamples::kKept) {
            return bad();
        }
        for (uint64_t k = 0; k < kept; ++k) {
            PatternInstance i;
            uint8_t metric = 0;
            if (!r.get(metric) || metric >= kMetricCount || !r.get(i.node) || !r.get(i.rank) ||
                !r.get(i.enter) || !r.get(i.exit) || !r.get(i.severity) || i.node >= nodes) {
                return bad();
            }
            i.metric = static_cast<Metric>(metric);
            samples.mostSevere.push_back(i);
        }
    }
    uint64_t instances = 0;
    if (!r.get(instances) || instances > size) {
        return bad();
    }
    result.instances.resize(instances);
    for (PatternInstance& i : result.instances) {
        uint8_t metric = 0;
        if (!r.get(metric) || metric >= kMetricCount || !r.get(i.node) || !r.get(i.enter) ||
            !r.get(i.exit) || !r.get(i.severity) || i.node >= nodes) {
            return bad();
        }
        i.metric = static_cast<Metric>(metric);
        i.rank = result.rank;
    }
    uint64_t diagnostics = 0;
    if (!r.get(diagnostics) || diagnostics > experiment::kDiagnosticCount) {
        return bad();
    }
    for (uint64_t k = 0; k < diagnostics; ++k) {
        uint8_t diagnostic = 0;
        uint64_t count = 0;
        if (!r.get(diagnostic) || diagnostic >= experiment::kDiagnosticCount || !r.get(count)) {
            return bad();
        }
        result.diagnostics[static_cast<experiment::Diagnostic>(diagnostic)] = count;
    }
    uint64_t threads = 0;
    if (!r.get(threads) || threads > size) {
        return bad();
    }
    for (uint64_t k = 0; k < threads; ++k) {
        ThreadResult thread;
        if (!r.get(thread.location) || !r.getString(thread.name) || !r.get(thread.events) ||
            !getRows(r, thread.severities, nodes)) {
            return bad();
        }
        result.threads.push_back(std::move(thread));
    }
    uint64_t warnings = 0;
    if (!r.get(warnings) || warnings > size) {
        return bad();
    }
    for (uint64_t k = 0; k < warnings; ++k) {
        std::string warning;
        if (!r.getString(warning)) {
            return bad();
        }
        result.warnings.push_back(std::move(warning));
    }
    if (!r.atEnd()) {
        return bad();
    }
    return result;
}

} // namespace waitscope::analysis
