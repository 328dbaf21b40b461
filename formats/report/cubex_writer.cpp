// writeCubex: streams index/data members and anchor.xml into a ustar archive, following the
// id, row-order and layout rules of docs/cube4-format.md.
#include "row_order.h"
#include "severity_storage.h"
#include "tar_archive.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <memory>
#include <optional>
#include <sys/uio.h>
#include <unistd.h>
#include <waitscope/base/markup_escape.h>
#include <waitscope/report/cubex_writer.h>
#include <waitscope/report/metric_catalog.h>

namespace waitscope::report {
namespace {

/// Where the archive bytes go: a string, or a file written with gathered writes.
class Sink {
public:
    virtual ~Sink() = default;
    virtual bool write(const void* data, std::size_t size) = 0;
    bool write(const std::string& text) { return write(text.data(), text.size()); }
    /// Like write(), for bytes that stay unchanged until the archive is complete: a sink may
    /// keep a pointer to them instead of copying (the big data rows).
    virtual bool writeStable(const void* data, std::size_t size) { return write(data, size); }
};

class StringSink final : public Sink {
public:
    bool write(const void* data, std::size_t size) override {
        m_out.append(static_cast<const char*>(data), size);
        return true;
    }
    std::string m_out;
};

// Writes with writev(2): small pieces are copied into a buffer, stable rows are handed to the
// kernel where they lie, so the only copy of the data is the kernel's.
class FileSink final : public Sink {
public:
    explicit FileSink(int fd) : m_fd(fd), m_buffer(new char[kBufferSize]) {}
    bool write(const void* data, std::size_t size) override {
        if (size >= kBufferSize)
            return flush() && writeAll(static_cast<const char*>(data), size);
        if (m_used + size > kBufferSize && !flush())
            return false;
        char* at = m_buffer.get() + m_used;
        std::memcpy(at, data, size);
        m_used += size;
        return add(at, size);
    }
    bool writeStable(const void* data, std::size_t size) override {
        return add(static_cast<const char*>(data), size);
    }
    bool flush() {
        std::size_t first = 0;
        bool ok = true;
        while (ok && first < m_pieces.size()) {
            const int count =
                static_cast<int>(std::min<std::size_t>(m_pieces.size() - first, 1024));
            ssize_t written = ::writev(m_fd, m_pieces.data() + first, count);
            if (written < 0 && errno == EINTR)
                continue;
            if (written <= 0) {
                ok = false;
                break;
            }
            // Skip what was written; a partial write leaves the rest of a piece.
            auto left = static_cast<std::size_t>(written);
            while (left > 0 && left >= m_pieces[first].iov_len)
                left -= m_pieces[first++].iov_len;
            if (left > 0) {
                m_pieces[first].iov_base = static_cast<char*>(m_pieces[first].iov_base) + left;
                m_pieces[first].iov_len -= left;
            }
        }
        m_pieces.clear();
        m_pending = 0;
        m_used = 0;
        return ok;
    }

private:
    bool add(const char* data, std::size_t size) {
        if (size == 0)
            return true;
        iovec* last = m_pieces.empty() ? nullptr : &m_pieces.back();
        if (last && static_cast<char*>(last->iov_base) + last->iov_len == data)
            last->iov_len += size;
        else
            m_pieces.push_back(iovec{const_cast<char*>(data), size});
        m_pending += size;
        return m_pending < kFlushBytes && m_pieces.size() < kMaxPieces ? true : flush();
    }
    bool writeAll(const char* data, std::size_t size) {
        while (size > 0) {
            ssize_t written = ::write(m_fd, data, size);
            if (written < 0 && errno == EINTR)
                continue;
            if (written <= 0)
                return false;
            data += written;
            size -= static_cast<std::size_t>(written);
        }
        return true;
    }

    static constexpr std::size_t kBufferSize = 4 << 20;
    static constexpr std::size_t kFlushBytes = 16 << 20;
    static constexpr std::size_t kMaxPieces = 8192;
    int m_fd;
    std::unique_ptr<char[]> m_buffer;
    std::size_t m_used = 0;
    std::size_t m_pending = 0;
    std::vector<iovec> m_pieces;
};

std::string escapeXml(std::string_view text) {
    return escapeMarkup(text);
}

// Indentation as CubeW writes it, capped so that very deep call trees do not make anchor.xml
// grow quadratically (whitespace is insignificant to every CUBE reader).
std::string indent(std::size_t depth) {
    return std::string(2 * std::min<std::size_t>(depth, 40), ' ');
}

/// The ids the file uses: metrics and call nodes in pre-order, locations in system-tree order.
struct Numbering {
    std::vector<MetricId> metricOrder; // file id -> metric
    std::vector<std::uint32_t> metricFileId;
    std::vector<CallNodeId> cnodeOrder; // file id -> call node
    std::vector<std::uint32_t> cnodeFileId;
    std::vector<LocationId> locationOrder; // file column -> location
};

Numbering number(const Report& report) {
    Numbering n;
    const auto& metrics = report.metrics();
    std::vector<MetricId> stack;
    auto roots = report.rootMetrics();
    for (auto it = roots.rbegin(); it != roots.rend(); ++it)
        stack.push_back(*it);
    while (!stack.empty()) {
        MetricId m = stack.back();
        stack.pop_back();
        n.metricOrder.push_back(m);
        for (auto it = metrics[m].children.rbegin(); it != metrics[m].children.rend(); ++it)
            stack.push_back(*it);
    }
    n.metricFileId.assign(metrics.size(), 0);
    for (std::uint32_t i = 0; i < n.metricOrder.size(); ++i)
        n.metricFileId[n.metricOrder[i]] = i;

    n.cnodeOrder = detail::preOrder(report.callNodes());
    n.cnodeFileId.assign(report.callNodes().size(), 0);
    for (std::uint32_t i = 0; i < n.cnodeOrder.size(); ++i)
        n.cnodeFileId[n.cnodeOrder[i]] = i;

    const auto& nodes = report.systemNodes();
    std::vector<SystemNodeId> sstack;
    auto sroots = report.rootSystemNodes();
    for (auto it = sroots.rbegin(); it != sroots.rend(); ++it)
        sstack.push_back(*it);
    while (!sstack.empty()) {
        SystemNodeId s = sstack.back();
        sstack.pop_back();
        if (nodes[s].kind == SystemKind::Location)
            n.locationOrder.push_back(nodes[s].location);
        for (auto it = nodes[s].children.rbegin(); it != nodes[s].children.rend(); ++it)
            sstack.push_back(*it);
    }
    return n;
}

std::string derivedExpression(const Report& report, MetricId m) {
    const Metric& metric = report.metrics()[m];
    if (!metric.expression.empty())
        return metric.expression;
    std::string expression;
    for (MetricId child : metric.children) {
        if (!expression.empty())
            expression += " + ";
        expression += "metric::" + report.metrics()[child].uniqueName + "()";
    }
    return expression;
}

std::string anchorXml(const Report& report, const Numbering& n) {
    std::string x;
    x += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\n<cube version=\"4.4\">\n";
    // Cube tools look for these two; add them unless the report already carries them.
    if (!report.attribute("Cube anchor.xml syntax version"))
        x += "  <attr key=\"Cube anchor.xml syntax version\" value=\"4.4\"/>\n";
    if (!report.attribute("CubePL Version"))
        x += "  <attr key=\"CubePL Version\" value=\"1.1\"/>\n";
    for (const auto& [key, value] : report.attributes())
        x += "  <attr key=\"" + escapeXml(key) + "\" value=\"" + escapeXml(value) + "\"/>\n";
    x += "  <doc>\n    <mirrors>\n";
    for (const std::string& url : report.mirrors())
        x += "      <murl>" + escapeXml(url) + "</murl>\n";
    x += "    </mirrors>\n  </doc>\n  <metrics>\n";

    // Metrics: nested, in pre-order; close tags when the walk climbs back up.
    const auto& metrics = report.metrics();
    std::vector<MetricId> open;
    auto closeUntil = [&](std::optional<MetricId> parent) {
        while (!open.empty() && (!parent || open.back() != *parent)) {
            x += indent(open.size() + 1) + "</metric>\n";
            open.pop_back();
        }
    };
    for (MetricId m : n.metricOrder) {
        const Metric& metric = metrics[m];
        closeUntil(metric.parent);
        std::string in = indent(open.size() + 2);
        x += indent(open.size() + 1) + "<metric id=\"" + std::to_string(n.metricFileId[m]) +
             "\" type=\"" + std::string(toString(metric.kind)) + "\"" +
             (metric.ghost ? " viztype=\"GHOST\"" : "") + ">\n";
        // Empty texts of known metrics are filled from the shipped descriptions.
        const MetricInfo* info = findMetricInfo(metric.uniqueName);
        const std::string& displayName =
            metric.displayName.empty() && info ? info->displayName : metric.displayName;
        const std::string& description =
            metric.description.empty() && info ? info->description : metric.description;
        x += in + "<disp_name>" + escapeXml(displayName) + "</disp_name>\n";
        x += in + "<uniq_name>" + escapeXml(metric.uniqueName) + "</uniq_name>\n";
        x += in + "<dtype>" + std::string(toString(metric.dataType)) + "</dtype>\n";
        x += in + "<uom>" + escapeXml(metric.unit) + "</uom>\n";
        x += in + "<url>" + escapeXml(metric.url) + "</url>\n";
        x += in + "<descr>" + escapeXml(description) + "</descr>\n";
        if (isDerived(metric.kind))
            x += in + "<cubepl>" + escapeXml(derivedExpression(report, m)) + "</cubepl>\n";
        open.push_back(m);
    }
    closeUntil(std::nullopt);
    x += "  </metrics>\n  <program>\n";

    const auto& regions = report.regions();
    for (RegionId r = 0; r < regions.size(); ++r) {
        const Region& region = regions[r];
        x += "    <region id=\"" + std::to_string(r) + "\" mod=\"" + escapeXml(region.file) +
             "\" begin=\"" + std::to_string(region.beginLine) + "\" end=\"" +
             std::to_string(region.endLine) + "\">\n";
        x += "      <name>" + escapeXml(region.name) + "</name>\n";
        x += "      <mangled_name>" +
             escapeXml(region.mangledName.empty() ? region.name : region.mangledName) +
             "</mangled_name>\n";
        x += "      <paradigm>" + escapeXml(region.paradigm) + "</paradigm>\n";
        x += "      <role>" + escapeXml(region.role) + "</role>\n";
        x += "      <url>" + escapeXml(region.url) + "</url>\n";
        x += "      <descr>" + escapeXml(region.description) + "</descr>\n";
        x += "    </region>\n";
    }
    const auto& nodes = report.callNodes();
    std::vector<CallNodeId> openNodes;
    for (CallNodeId c : n.cnodeOrder) {
        const CallNode& node = nodes[c];
        while (!openNodes.empty() && (!node.parent || openNodes.back() != *node.parent)) {
            x += indent(openNodes.size() + 1) + "</cnode>\n";
            openNodes.pop_back();
        }
        x +=
            indent(openNodes.size() + 2) + "<cnode id=\"" + std::to_string(n.cnodeFileId[c]) + "\"";
        if (node.line >= 0)
            x += " line=\"" + std::to_string(node.line) + "\"";
        if (!node.file.empty())
            x += " mod=\"" + escapeXml(node.file) + "\"";
        x += " calleeId=\"" + std::to_string(node.region) + "\">\n";
        openNodes.push_back(c);
    }
    while (!openNodes.empty()) {
        x += indent(openNodes.size() + 1) + "</cnode>\n";
        openNodes.pop_back();
    }
    x += "  </program>\n  <system>\n";

    // System tree: systemtreenode / locationgroup / location, each numbered in walk order.
    const auto& snodes = report.systemNodes();
    std::vector<std::uint32_t> locationFileId(report.locations().size(), 0);
    for (std::uint32_t i = 0; i < n.locationOrder.size(); ++i)
        locationFileId[n.locationOrder[i]] = i;
    std::uint32_t treeIds = 0, groupIds = 0;
    struct Frame {
        SystemNodeId node;
        bool closing;
        std::size_t depth;
    };
    std::vector<Frame> stack;
    auto sroots = report.rootSystemNodes();
    for (auto it = sroots.rbegin(); it != sroots.rend(); ++it)
        stack.push_back({*it, false, 2});
    while (!stack.empty()) {
        Frame frame = stack.back();
        stack.pop_back();
        const SystemNode& s = snodes[frame.node];
        const char* element = s.kind == SystemKind::Process    ? "locationgroup"
                              : s.kind == SystemKind::Location ? "location"
                                                               : "systemtreenode";
        std::string in = indent(frame.depth);
        if (frame.closing) {
            x += in + "</" + element + ">\n";
            continue;
        }
        std::uint32_t id = s.kind == SystemKind::Process    ? groupIds++
                           : s.kind == SystemKind::Location ? locationFileId[s.location]
                                                            : treeIds++;
        x += in + "<" + element + " Id=\"" + std::to_string(id) + "\">\n";
        x += in + "  <name>" + escapeXml(s.name) + "</name>\n";
        if (s.kind == SystemKind::Machine || s.kind == SystemKind::Node) {
            x += in + "  <class>" + escapeXml(s.className) + "</class>\n";
        } else {
            x += in + "  <rank>" + std::to_string(s.rank) + "</rank>\n";
            x += in + "  <type>" + escapeXml(s.type) + "</type>\n";
        }
        stack.push_back({frame.node, true, frame.depth});
        for (auto it = s.children.rbegin(); it != s.children.rend(); ++it)
            stack.push_back({*it, false, frame.depth + 1});
    }
    if (!report.topologies().empty()) {
        x += "    <topologies>\n";
        for (const CartTopology& t : report.topologies()) {
            x += "      <cart name=\"" + escapeXml(t.name) + "\" ndims=\"" +
                 std::to_string(t.dimensions.size()) + "\">\n";
            for (const CartDimension& d : t.dimensions)
                x += "        <dim name=\"" + escapeXml(d.name) + "\" size=\"" +
                     std::to_string(d.size) + "\" periodic=\"" + (d.periodic ? "true" : "false") +
                     "\"/>\n";
            for (const auto& [location, coords] : t.coordinates) {
                x += "        <coord locId=\"" + std::to_string(locationFileId[location]) + "\">";
                for (std::size_t i = 0; i < coords.size(); ++i)
                    x += (i ? " " : "") + std::to_string(coords[i]);
                x += "</coord>\n";
            }
            x += "      </cart>\n";
        }
        x += "    </topologies>\n";
    }
    x += "  </system>\n</cube>\n";
    return x;
}

Status writeMember(Sink& sink, const std::string& name, const std::string& bytes,
                   std::int64_t mtime) {
    std::string header;
    detail::appendTarHeader(header, name, bytes.size(), mtime);
    std::string padding;
    detail::appendTarPadding(padding, bytes.size());
    if (!sink.write(header) || !sink.write(bytes) || !sink.write(padding))
        return Error("write failed");
    return Status::success();
}

// Writes the index and data members of one stored metric.
// Row order is a property of the tree shape and the metric kind: computed once per kind.
class RowOrders {
public:
    explicit RowOrders(const Report& report) : m_report(report) {}
    const std::vector<CallNodeId>& of(MetricKind kind) {
        // With pre-order file ids, the order computed on our own ids lists the same call nodes
        // (SIMPLE = file id order = pre-order).
        const MetricKind orderKind = kind == MetricKind::Simple ? MetricKind::Exclusive : kind;
        auto& order = m_orders[orderKind];
        if (!order)
            order = detail::rowOrder(m_report.callNodes(), orderKind);
        return *order;
    }

private:
    const Report& m_report;
    std::map<MetricKind, std::optional<std::vector<CallNodeId>>> m_orders;
};

Status writeMetric(Sink& sink, const Report& report, const Numbering& n, RowOrders& orders,
                   MetricId m, const std::string& base, std::int64_t mtime) {
    const Metric& metric = report.metrics()[m];
    const std::vector<CallNodeId>& order = orders.of(metric.kind);
    std::size_t width = report.locations().size();
    if (Status s = report.load(m); !s)
        return s;
    std::vector<std::uint64_t> scratch(width), permuted(width);
    auto loaded = detail::SeverityStorage::of(report).rows(m, width);
    if (!loaded)
        return loaded.error();
    const detail::MetricRows& rows = **loaded;
    // Owned rows are used in place; mapped ones are decoded into `scratch`.
    auto rowAt = [&](CallNodeId c) -> const std::uint64_t* {
        if (c >= rows.rowOf.size() || rows.rowOf[c] == detail::kNoRow)
            return nullptr;
        if (!rows.mapped)
            return rows.cells.data() + std::size_t(rows.rowOf[c]) * width;
        detail::SeverityStorage::readRow(rows, c, scratch.data(), width);
        return scratch.data();
    };

    // Pass 1: which rows hold a nonzero value (only those are stored, sparse index).
    std::vector<std::uint32_t> positions;
    for (std::uint32_t pos = 0; pos < order.size(); ++pos) {
        const std::uint64_t* row = rowAt(order[pos]);
        if (!row)
            continue;
        for (LocationId l = 0; l < width; ++l) {
            if (row[l] != 0) {
                positions.push_back(pos);
                break;
            }
        }
    }
    std::string index = "CUBEX.INDEX";
    auto putU32 = [](std::string& out, std::uint32_t v) {
        out.append(reinterpret_cast<const char*>(&v), 4);
    };
    putU32(index, 1);
    index.append("\0\0", 2);
    index += '\1';
    putU32(index, static_cast<std::uint32_t>(positions.size()));
    for (std::uint32_t pos : positions)
        putU32(index, pos);
    if (Status s = writeMember(sink, base + ".index", index, mtime); !s)
        return s;

    // Pass 2: the data member, streamed row by row.
    bool identity = true;
    for (std::size_t col = 0; col < width; ++col)
        identity = identity && n.locationOrder[col] == col;
    std::uint64_t size = 10 + std::uint64_t(positions.size()) * width * 8;
    std::string header;
    detail::appendTarHeader(header, base + ".data", size, mtime);
    header += "CUBEX.DATA";
    if (!sink.write(header))
        return Error("write failed");
    for (std::uint32_t pos : positions) {
        const std::uint64_t* out = rowAt(order[pos]);
        if (!identity) {
            for (std::size_t col = 0; col < width; ++col)
                permuted[col] = out[n.locationOrder[col]];
            out = permuted.data();
        }
        // Owned rows stay put while the archive is written; decoded or permuted ones do not.
        const bool stable = identity && !rows.mapped;
        if (!(stable ? sink.writeStable(out, width * 8) : sink.write(out, width * 8)))
            return Error("write failed");
    }
    std::string padding;
    detail::appendTarPadding(padding, size);
    if (!sink.write(padding))
        return Error("write failed");
    return Status::success();
}

Status writeArchive(Sink& sink, const Report& report, const WriteOptions& options) {
    Numbering n = number(report);
    RowOrders orders(report);
    for (MetricId m : n.metricOrder) {
        const Metric& metric = report.metrics()[m];
        if (isDerived(metric.kind))
            continue;
        if (!metric.available)
            return Error("metric '" + metric.uniqueName +
                         "' is not available: " + metric.unavailableReason);
        std::string base = (metric.ghost ? "ghost_" : "") + std::to_string(n.metricFileId[m]);
        if (Status s = writeMetric(sink, report, n, orders, m, base, options.timestamp); !s)
            return s.error().withContext("metric '" + metric.uniqueName + "'");
    }
    if (Status s = writeMember(sink, "anchor.xml", anchorXml(report, n), options.timestamp); !s)
        return s;
    std::string end(1024, '\0');
    if (!sink.write(end))
        return Error("write failed");
    return Status::success();
}

} // namespace

Status writeCubex(const Report& report, const std::string& path, const WriteOptions& options) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return Error(path + ": cannot create: " + std::strerror(errno));
    Status status;
    {
        FileSink sink(fd);
        status = writeArchive(sink, report, options);
        if (!sink.flush() && status)
            status = Error(std::string("write failed: ") + std::strerror(errno));
    }
    if (::close(fd) != 0 && status)
        status = Error(std::string("close failed: ") + std::strerror(errno));
    if (!status)
        return status.error().withContext(path);
    return Status::success();
}

Result<std::string> writeCubexToMemory(const Report& report, const WriteOptions& options) {
    StringSink sink;
    if (Status s = writeArchive(sink, report, options); !s)
        return s.error();
    return std::move(sink.m_out);
}

} // namespace waitscope::report
