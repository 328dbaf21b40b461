// A flat little format: counts followed by arrays, strings as length + bytes.
#include "waitscope/analysis/rank_result_codec.h"

#include <algorithm>
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

// Sparse: per metric, the row's length, how many values are not zero, and those as (node,
// value); most call paths of a rank have few of the metrics.
void putRows(Writer& w, const SeverityRows& rows) {
    for (size_t m = 0; m < kMetricCount; ++m) {
        const auto& row = rows.row(static_cast<Metric>(m));
        w.put<uint64_t>(row.size());
        const auto nonZero = static_cast<uint64_t>(
            std::count_if(row.begin(), row.end(), [](double v) { return v != 0.0; }));
        w.put<uint64_t>(nonZero);
        for (size_t n = 0; n < row.size(); ++n) {
            if (row[n] != 0.0) {
                w.put<uint32_t>(static_cast<uint32_t>(n));
                w.put<double>(row[n]);
            }
        }
    }
}

// Rows longer than the tree's `nodes` are refused, as are nodes out of order.
bool getRows(Reader& r, SeverityRows& rows, uint64_t nodes) {
    for (size_t m = 0; m < kMetricCount; ++m) {
        uint64_t length = 0, nonZero = 0;
        if (!r.get(length) || length > nodes || !r.get(nonZero) || nonZero > length) {
            return false;
        }
        auto& row = rows.row(static_cast<Metric>(m));
        row.assign(length, 0.0);
        uint64_t next = 0; // the least node the next value may have
        for (uint64_t k = 0; k < nonZero; ++k) {
            uint32_t node = 0;
            double v = 0.0;
            if (!r.get(node) || !r.get(v) || node < next || node >= length) {
                return false;
            }
            row[node] = v;
            next = static_cast<uint64_t>(node) + 1;
        }
    }
    return true;
}

void putTree(Writer& w, const CallTree& tree) {
    w.put<uint64_t>(tree.size());
    for (NodeId n = 0; n < tree.size(); ++n) {
        w.put<uint32_t>(tree.node(n).parent);
        w.put<uint32_t>(tree.node(n).region);
    }
}

// A tree whose parents follow their children, or with a path twice, is refused.
bool getTree(Reader& r, CallTree& tree, uint64_t& nodes) {
    if (!r.get(nodes)) {
        return false;
    }
    for (uint64_t n = 0; n < nodes; ++n) {
        uint32_t parent = 0, region = 0;
        if (!r.get(parent) || !r.get(region) || (parent != kNoNode && parent >= n)) {
            return false;
        }
        if (tree.child(parent, region) != n) {
            return false;
        }
    }
    return true;
}

} // namespace

std::vector<uint8_t> encodeRankResult(const RankResult& result) {
    Writer w;
    w.put<uint32_t>(result.rank);
    w.put<uint64_t>(result.events);
    putTree(w, result.tree);
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
    w.put<uint64_t>(result.spilledRuns.size());
    for (const SpilledRun& run : result.spilledRuns) {
        w.put<uint32_t>(run.process);
        w.put<uint64_t>(run.first);
        w.put<uint64_t>(run.count);
    }
    w.put<uint64_t>(result.criticalPath.size());
    for (const PathSegment& p : result.criticalPath) {
        w.put<double>(p.start);
        w.put<double>(p.end);
        w.put<uint32_t>(p.from);
        w.put<uint32_t>(p.to);
        w.put<uint64_t>(p.location);
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
    if (!r.get(result.rank) || !r.get(result.events) || !getTree(r, result.tree, nodes)) {
        return bad();
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
    uint64_t runs = 0;
    if (!r.get(runs) || runs > size) {
        return bad();
    }
    result.spilledRuns.resize(runs);
    for (SpilledRun& run : result.spilledRuns) {
        if (!r.get(run.process) || !r.get(run.first) || !r.get(run.count)) {
            return bad();
        }
        run.rank = result.rank;
    }
    uint64_t segments = 0;
    if (!r.get(segments) || segments > size) {
        return bad();
    }
    result.criticalPath.resize(segments);
    for (PathSegment& p : result.criticalPath) {
        if (!r.get(p.start) || !r.get(p.end) || !r.get(p.from) || !r.get(p.to) ||
            !r.get(p.location) || (p.from != kNoNode && p.from >= nodes) ||
            (p.to != kNoNode && p.to >= nodes)) {
            return bad();
        }
        p.rank = result.rank;
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

std::vector<uint8_t> encodeCallTree(const CallTree& tree) {
    Writer w;
    putTree(w, tree);
    return w.take();
}

Result<CallTree> decodeCallTree(const uint8_t* data, size_t size) {
    Reader r(data, size);
    CallTree tree;
    uint64_t nodes = 0;
    if (!getTree(r, tree, nodes) || !r.atEnd()) {
        return Error("call tree: malformed at byte " + std::to_string(r.position()));
    }
    return tree;
}

} // namespace waitscope::analysis
