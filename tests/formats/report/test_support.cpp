// Implementation of the report test helpers.
#include "test_support.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace waitscope::report::test {

std::string referenceDir() {
    return WAITSCOPE_REFERENCE_DIR;
}

const std::vector<std::string>& referencePrograms() {
    static const std::vector<std::string> programs = {
        "early_reduce",   "late_broadcast",  "late_receiver", "late_sender",
        "nb_late_sender", "wait_at_barrier", "wait_nxn"};
    return programs;
}

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

std::string writeTempFile(const std::string& name, const std::string& bytes) {
    std::string path = std::string(WAITSCOPE_TEST_TMP_DIR) + "/" + name;
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path;
}

std::string tarOf(const std::vector<TarMember>& members) {
    std::string out;
    for (const auto& [name, bytes] : members) {
        char h[512] = {};
        std::strncpy(h, name.c_str(), 99);
        std::snprintf(h + 100, 8, "%07o", 0644);
        std::snprintf(h + 108, 8, "%07o", 0);
        std::snprintf(h + 116, 8, "%07o", 0);
        std::snprintf(h + 124, 12, "%011llo", static_cast<unsigned long long>(bytes.size()));
        std::snprintf(h + 136, 12, "%011o", 0);
        std::memset(h + 148, ' ', 8);
        h[156] = '0';
        std::memcpy(h + 257, "ustar", 6);
        h[263] = '0'; // version "00"
        h[264] = '0';
        unsigned sum = 0;
        for (unsigned char c : h)
            sum += c;
        std::snprintf(h + 148, 8, "%06o", sum);
        out.append(h, 512);
        out += bytes;
        out.append((512 - bytes.size() % 512) % 512, '\0');
    }
    out.append(1024, '\0');
    return out;
}

std::vector<TarMember> untar(const std::string& archive) {
    std::vector<TarMember> members;
    std::size_t pos = 0;
    while (pos + 512 <= archive.size()) {
        const char* h = archive.data() + pos;
        if (h[0] == '\0')
            break;
        std::string name(h, strnlen(h, 100));
        std::size_t size = std::strtoull(std::string(h + 124, 12).c_str(), nullptr, 8);
        char type = h[156];
        pos += 512;
        if (pos + size > archive.size())
            break;
        if (type == '0' || type == '\0')
            members.push_back({name, archive.substr(pos, size)});
        pos += (size + 511) / 512 * 512;
    }
    return members;
}

namespace {
template <class T> T must(Result<T> result) {
    if (!result)
        throw std::runtime_error(result.error().message());
    return std::move(result).value();
}
void must(const Status& status) {
    if (!status)
        throw std::runtime_error(status.error().message());
}
} // namespace

Report makeSampleReport() {
    Report r;
    r.setAttribute("Creator", "Waitscope tests");
    r.setAttribute("note", "quotes \" and <angles> & ampersands");
    r.addMirror("https://example.org/metrics/");
    MetricId time =
        must(r.addMetric("time", std::nullopt, DataType::Double, MetricKind::Inclusive));
    MetricId execution =
        must(r.addMetric("execution", time, DataType::Double, MetricKind::Exclusive));
    MetricId mpi = must(r.addMetric("mpi", execution, DataType::Double, MetricKind::Exclusive));
    MetricId late =
        must(r.addMetric("mpi_latesender", mpi, DataType::Double, MetricKind::Exclusive));
    MetricId visits =
        must(r.addMetric("visits", std::nullopt, DataType::Uint64, MetricKind::Exclusive));
    MetricId signedCount =
        must(r.addMetric("custom_signed", std::nullopt, DataType::Int64, MetricKind::Simple));
    MetricId minTime =
        must(r.addMetric("min_time", std::nullopt, DataType::MinDouble, MetricKind::Exclusive));
    MetricId maxTime =
        must(r.addMetric("max_time", std::nullopt, DataType::MaxDouble, MetricKind::Exclusive));
    Metric derived;
    derived.uniqueName = "time_minus_mpi";
    derived.displayName = "Time without MPI";
    derived.kind = MetricKind::PostDerived;
    derived.expression = "metric::time() - metric::mpi()";
    MetricId derivedId = must(r.addMetric(derived));
    Metric ghost;
    ghost.uniqueName = "bytes_received";
    ghost.displayName = "Bytes received";
    ghost.unit = "bytes";
    ghost.dataType = DataType::Uint64;
    ghost.kind = MetricKind::Inclusive;
    ghost.ghost = true;
    MetricId ghostId = must(r.addMetric(ghost));
    (void)derivedId;

    RegionId mainRegion = must(r.addRegion({.name = "main",
                                            .file = "prog.c",
                                            .beginLine = 3,
                                            .endLine = 40,
                                            .paradigm = "compiler",
                                            .role = "function"}));
    RegionId recv = must(
        r.addRegion({.name = "MPI_Recv", .file = "MPI", .paradigm = "mpi", .role = "point2point"}));
    RegionId work = must(r.addRegion({.name = "work",
                                      .file = "prog.c",
                                      .beginLine = 50,
                                      .endLine = 60,
                                      .paradigm = "compiler",
                                      .role = "function"}));
    RegionId other =
        must(r.addRegion({.name = "helper_thread", .paradigm = "user", .role = "function"}));
    CallNodeId root = must(r.addCallNode(mainRegion, std::nullopt));
    CallNodeId w = must(r.addCallNode(work, root, 12));
    CallNodeId rv = must(r.addCallNode(recv, root, 14));
    CallNodeId wr = must(r.addCallNode(recv, w, 55));
    CallNodeId root2 = must(r.addCallNode(other, std::nullopt));
    CallNodeId r2w = must(r.addCallNode(work, root2, 7));
    // A child added after other nodes: ids are not in pre-order, the writer renumbers.
    CallNodeId late1 = must(r.addCallNode(work, rv, 99));

    SystemNodeId m1 = must(r.addMachine("cluster A"));
    SystemNodeId n1 = must(r.addNode(m1, "node 0"));
    SystemNodeId m2 = must(r.addMachine("cluster B"));
    SystemNodeId p0 = must(r.addProcess(n1, "MPI Rank 0", 0));
    SystemNodeId p1 = must(r.addProcess(m2, "MPI Rank 1", 1));
    SystemNodeId t00 = must(r.addThread(p0, "Master thread", 0));
    SystemNodeId t10 = must(r.addThread(p1, "Master thread", 0));
    SystemNodeId t01 = must(r.addThread(p0, "Thread 1", 1));
    (void)t00;
    (void)t10;
    (void)t01;
    CartTopology topo;
    topo.name = "Process x Thread";
    topo.dimensions = {{"Process", 2, false}, {"Thread", 2, true}};
    topo.coordinates = {{0, {0, 0}}, {1, {1, 0}}, {2, {0, 1}}};
    must(r.addTopology(topo));

    std::vector<CallNodeId> nodes = {root, w, rv, wr, root2, r2w, late1};
    LocationId locations = static_cast<LocationId>(r.locations().size());
    double x = 0.125;
    for (CallNodeId c : nodes) {
        for (LocationId l = 0; l < locations; ++l) {
            x = x * 1.37 + 0.01 * (c + 1) + 0.001 * l;
            if (x > 10)
                x -= 9.5;
            must(r.setSeverity(execution, c, l, x));
            must(r.setSeverity(mpi, c, l, x / 3));
            if (c == rv || c == wr)
                must(r.setSeverity(late, c, l, x / 5));
            must(r.setSeverityUint64(visits, c, l, c * 10 + l + 1));
            must(r.setSeverityInt64(signedCount, c, l, static_cast<std::int64_t>(c) - 3 * l));
            must(r.setSeverity(minTime, c, l, x / 7));
            must(r.setSeverity(maxTime, c, l, x * 2));
        }
    }
    // time is INCLUSIVE: store inclusive values computed from execution (+ a little overhead).
    for (CallNodeId c : nodes)
        for (LocationId l = 0; l < locations; ++l) {
            auto v = r.locationValues(execution, c, CallTreeMode::Inclusive);
            must(r.setSeverity(time, c, l, (*v)[l] + 0.5));
        }
    must(r.setSeverityUint64(ghostId, root, 1, 4096));
    must(r.setSeverityUint64(ghostId, w, 1, 1024));
    return r;
}

// ---- JSON -------------------------------------------------------------------------------------

const Json& Json::operator[](const std::string& key) const {
    auto it = members.find(key);
    if (it == members.end())
        throw std::runtime_error("json: no member '" + key + "'");
    return it->second;
}

namespace {

class JsonParser {
public:
    explicit JsonParser(const std::string& text) : m_text(text) {}
    Json parse() {
        Json value = parseValue();
        skip();
        if (m_pos != m_text.size())
            throw std::runtime_error("json: trailing data");
        return value;
    }

private:
    void skip() {
        while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos])))
            ++m_pos;
    }
    char next() {
        skip();
        if (m_pos >= m_text.size())
            throw std::runtime_error("json: unexpected end");
        return m_text[m_pos];
    }
    void expect(char c) {
        if (next() != c)
            throw std::runtime_error(std::string("json: expected ") + c);
        ++m_pos;
    }
    std::string parseString() {
        expect('"');
        std::string out;
        while (m_pos < m_text.size() && m_text[m_pos] != '"') {
            char c = m_text[m_pos++];
            if (c == '\\' && m_pos < m_text.size()) {
                char e = m_text[m_pos++];
                out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
            } else {
                out += c;
            }
        }
        ++m_pos;
        return out;
    }
    Json parseValue() {
        char c = next();
        Json value;
        if (c == '{' || c == '[') {
            char close = c == '{' ? '}' : ']';
            ++m_pos;
            value.type = Json::Type::Object;
            std::size_t index = 0;
            if (next() == close) {
                ++m_pos;
                return value;
            }
            for (;;) {
                std::string key;
                if (c == '{') {
                    key = parseString();
                    expect(':');
                } else {
                    key = std::to_string(index++);
                }
                value.members[key] = parseValue();
                char d = next();
                ++m_pos;
                if (d == close)
                    return value;
                if (d != ',')
                    throw std::runtime_error("json: expected ,");
            }
        }
        if (c == '"') {
            value.type = Json::Type::String;
            value.text = parseString();
            return value;
        }
        if (m_text.compare(m_pos, 4, "true") == 0 || m_text.compare(m_pos, 5, "false") == 0) {
            value.type = Json::Type::Bool;
            value.number = m_text[m_pos] == 't';
            m_pos += m_text[m_pos] == 't' ? 4 : 5;
            return value;
        }
        if (m_text.compare(m_pos, 4, "null") == 0) {
            m_pos += 4;
            return value;
        }
        char* end = nullptr;
        value.type = Json::Type::Number;
        value.number = std::strtod(m_text.c_str() + m_pos, &end);
        if (end == m_text.c_str() + m_pos)
            throw std::runtime_error("json: bad value");
        m_pos = static_cast<std::size_t>(end - m_text.c_str());
        return value;
    }

    const std::string& m_text;
    std::size_t m_pos = 0;
};

} // namespace

Json parseJson(const std::string& text) {
    return JsonParser(text).parse();
}

} // namespace waitscope::report::test
