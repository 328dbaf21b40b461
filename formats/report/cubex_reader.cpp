// readCubex: indexes the tar archive, parses anchor.xml with pugixml and installs a lazy
// loader that decodes a metric's index and data members on first use.
#include "cubepl_linear.h"
#include "mapped_file.h"
#include "report_assembly.h"
#include "row_order.h"
#include "severity_storage.h"
#include "tar_archive.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <mutex>
#include <pugixml.hpp>
#include <set>
#include <waitscope/report/cubex_reader.h>
#include <zlib.h>

namespace waitscope::report {
namespace {

using detail::kNoRow;
using detail::MetricRows;

/// How one metric's values are laid out in its data member.
struct FileMetric {
    std::string memberBase; ///< "12" or "ghost_0": member names without .index/.data
    unsigned elementSize = 8;
    bool signedElements = false;
    bool floatElements = false;
    bool stored = false;
};

bool parseInt(std::string_view text, std::int64_t& value) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t' || text.front() == '\n'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\n'))
        text.remove_suffix(1);
    if (text.empty())
        return false;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc() && end == text.data() + text.size();
}

std::string childText(const pugi::xml_node& node, const char* name) {
    return node.child(name).text().as_string();
}

// Element-type widths for the CUBE integer types narrower than 8 bytes; the model widens them.
struct NarrowType {
    const char* name;
    unsigned size;
    bool isSigned;
    DataType widened;
};
constexpr NarrowType kNarrowTypes[] = {
    {"INT8", 1, true, DataType::Int64},     {"UINT8", 1, false, DataType::Uint64},
    {"CHAR", 1, true, DataType::Int64},     {"INT16", 2, true, DataType::Int64},
    {"UINT16", 2, false, DataType::Uint64}, {"INT32", 4, true, DataType::Int64},
    {"UINT32", 4, false, DataType::Uint64},
};
// Types CUBE knows whose values are not plain numbers: such metrics load as unavailable.
constexpr const char* kUnsupportedTypes[] = {"RATE",      "COMPLEX",    "TAU_ATOMIC",
                                             "HISTOGRAM", "SCALE_FUNC", "NDOUBLES"};

class AnchorParser {
public:
    AnchorParser(detail::ReportAssembly& assembly, std::vector<FileMetric>& files,
                 std::string where, const ReadProgress& progress)
        : m_assembly(assembly), m_report(assembly.report()), m_files(files),
          m_where(std::move(where)), m_progress(progress) {}

    Status parse(std::string_view xml) {
        pugi::xml_document doc;
        pugi::xml_parse_result parsed =
            doc.load_buffer(xml.data(), xml.size(), pugi::parse_default, pugi::encoding_utf8);
        if (!parsed)
            return Error(m_where + ": malformed XML at offset " + std::to_string(parsed.offset) +
                         ": " + parsed.description());
        tell("building call tree", kParsed);
        pugi::xml_node cube = doc.child("cube");
        if (!cube)
            return Error(m_where + ": no <cube> root element");
        for (pugi::xml_node attr : cube.children("attr"))
            m_report.setAttribute(attr.attribute("key").as_string(),
                                  attr.attribute("value").as_string());
        for (pugi::xml_node murl : cube.child("doc").child("mirrors").children("murl"))
            m_report.addMirror(murl.text().as_string());
        // A report without one of its three trees has no values to show: refuse it rather
        // than show zeros.
        for (const char* part : {"metrics", "program", "system"})
            if (!cube.child(part))
                return error(std::string("no <") + part + "> element");
        if (Status s = parseMetrics(cube.child("metrics")); !s)
            return s;
        if (m_report.metrics().empty())
            return error("no metrics");
        if (Status s = parseProgram(cube.child("program")); !s)
            return s;
        if (m_report.callNodes().empty())
            return error("no call paths (<cnode>)");
        tell("building system tree", kCallTreeBuilt);
        if (Status s = parseSystem(cube.child("system")); !s)
            return s;
        if (m_report.locations().empty())
            return error("no locations");
        resolveDerived();
        return Status::success();
    }

private:
    // Fractions of the whole read at which the stages begin and end: the XML parse is most of it.
    static constexpr double kParsed = 0.6;
    static constexpr double kCallTreeBuilt = 0.95;

    Error error(const std::string& what) const { return Error(m_where + ": " + what); }
    void tell(std::string_view stage, double fraction) const {
        if (m_progress)
            m_progress(stage, fraction);
    }

    Status parseMetrics(pugi::xml_node metrics) {
        // Iterative pre-order walk: nesting depth comes from the file and must not overflow
        // the stack.
        std::vector<std::pair<pugi::xml_node, std::optional<MetricId>>> stack;
        std::vector<pugi::xml_node> top;
        for (pugi::xml_node m : metrics.children("metric"))
            top.push_back(m);
        for (auto it = top.rbegin(); it != top.rend(); ++it)
            stack.emplace_back(*it, std::nullopt);
        std::set<std::int64_t> ids;
        std::set<std::string> names;
        while (!stack.empty()) {
            auto [node, parent] = stack.back();
            stack.pop_back();
            std::int64_t id = 0;
            if (!parseInt(node.attribute("id").as_string(), id))
                return error("metric without a valid id attribute");
            Metric metric;
            metric.uniqueName = childText(node, "uniq_name");
            std::string label = "metric " + std::to_string(id);
            if (metric.uniqueName.empty())
                return error(label + ": missing <uniq_name>");
            label = "metric " + std::to_string(id) + " '" + metric.uniqueName + "'";
            if (!ids.insert(id).second)
                return error(label + ": duplicate metric id " + std::to_string(id));
            if (!names.insert(metric.uniqueName).second)
                return error(label + ": duplicate unique name");
            metric.displayName = childText(node, "disp_name");
            metric.unit = childText(node, "uom");
            metric.url = childText(node, "url");
            metric.description = childText(node, "descr");
            metric.expression = childText(node, "cubepl");
            metric.ghost = std::string_view(node.attribute("viztype").as_string()) == "GHOST";
            metric.parent = parent;
            std::string kindText = node.attribute("type").as_string();
            auto kind = parseMetricKind(kindText.empty() ? "EXCLUSIVE" : kindText);
            if (!kind)
                return error(label + ": unknown metric type '" + kindText + "'");
            metric.kind = *kind;
            FileMetric file;
            file.memberBase = (metric.ghost ? "ghost_" : "") + std::to_string(id);
            file.stored = !isDerived(metric.kind);
            std::string typeText = childText(node, "dtype");
            if (auto type = parseDataType(typeText)) {
                metric.dataType = *type;
            } else if (auto narrow =
                           std::find_if(std::begin(kNarrowTypes), std::end(kNarrowTypes),
                                        [&](const NarrowType& t) { return typeText == t.name; });
                       narrow != std::end(kNarrowTypes)) {
                metric.dataType = narrow->widened;
                file.elementSize = narrow->size;
                file.signedElements = narrow->isSigned;
            } else if (std::find(std::begin(kUnsupportedTypes), std::end(kUnsupportedTypes),
                                 typeText) != std::end(kUnsupportedTypes)) {
                metric.available = false;
                metric.unavailableReason = "data type " + typeText + " is not supported";
                file.stored = false;
            } else {
                return error(label + ": unknown data type '" + typeText + "'");
            }
            m_fileIds.push_back(id);
            MetricId mine = m_assembly.appendMetric(std::move(metric));
            m_files.push_back(std::move(file));
            std::vector<pugi::xml_node> children;
            for (pugi::xml_node child : node.children("metric"))
                children.push_back(child);
            for (auto it = children.rbegin(); it != children.rend(); ++it)
                stack.emplace_back(*it, mine);
        }
        for (std::int64_t id : m_fileIds)
            if (id < 0 || id >= static_cast<std::int64_t>(m_fileIds.size()))
                return error("metric id " + std::to_string(id) + " out of range (" +
                             std::to_string(m_fileIds.size()) + " metrics)");
        return Status::success();
    }

    Status parseProgram(pugi::xml_node program) {
        std::vector<pugi::xml_node> regionNodes;
        for (pugi::xml_node r : program.children("region"))
            regionNodes.push_back(r);
        std::vector<Region> regions(regionNodes.size());
        std::vector<bool> seen(regionNodes.size(), false);
        for (pugi::xml_node node : regionNodes) {
            std::int64_t id = 0;
            if (!parseInt(node.attribute("id").as_string(), id))
                return error("region without a valid id attribute");
            if (id < 0 || id >= static_cast<std::int64_t>(regions.size()))
                return error("region id " + std::to_string(id) + " out of range (" +
                             std::to_string(regions.size()) + " regions)");
            if (seen[id])
                return error("duplicate region id " + std::to_string(id));
            seen[id] = true;
            Region& region = regions[id];
            region.name = childText(node, "name");
            region.mangledName = childText(node, "mangled_name");
            region.file = node.attribute("mod").as_string();
            std::int64_t line = -1;
            region.beginLine = parseInt(node.attribute("begin").as_string(), line) ? int(line) : -1;
            line = -1;
            region.endLine = parseInt(node.attribute("end").as_string(), line) ? int(line) : -1;
            region.paradigm = childText(node, "paradigm");
            region.role = childText(node, "role");
            region.url = childText(node, "url");
            region.description = childText(node, "descr");
        }
        for (Region& region : regions)
            m_assembly.appendRegion(std::move(region));

        // Call nodes: count first so ids can be checked against the total.
        std::vector<std::pair<pugi::xml_node, std::optional<CallNodeId>>> stack;
        std::vector<pugi::xml_node> order;
        for (pugi::xml_node c : program.children("cnode"))
            order.push_back(c);
        std::size_t count = 0;
        {
            std::vector<pugi::xml_node> walk(order.begin(), order.end());
            while (!walk.empty()) {
                pugi::xml_node n = walk.back();
                walk.pop_back();
                ++count;
                for (pugi::xml_node c : n.children("cnode"))
                    walk.push_back(c);
            }
        }
        std::vector<CallNode> nodes(count);
        std::vector<bool> used(count, false);
        std::size_t built = 0;
        for (auto it = order.rbegin(); it != order.rend(); ++it)
            stack.emplace_back(*it, std::nullopt);
        while (!stack.empty()) {
            auto [node, parent] = stack.back();
            stack.pop_back();
            std::int64_t id = 0, callee = 0;
            if (!parseInt(node.attribute("id").as_string(), id))
                return error("cnode without a valid id attribute");
            if (id < 0 || id >= static_cast<std::int64_t>(count))
                return error("cnode id " + std::to_string(id) + " out of range (" +
                             std::to_string(count) + " cnodes)");
            if (used[id])
                return error("duplicate cnode id " + std::to_string(id));
            used[id] = true;
            if (!parseInt(node.attribute("calleeId").as_string(), callee))
                return error("cnode " + std::to_string(id) + ": missing calleeId");
            if (callee < 0 || callee >= static_cast<std::int64_t>(regions.size()))
                return error("cnode " + std::to_string(id) + ": calleeId " +
                             std::to_string(callee) + " out of range (" +
                             std::to_string(regions.size()) + " regions)");
            if (++built % 16384 == 0)
                tell("building call tree",
                     kParsed + (kCallTreeBuilt - kParsed) * double(built) / double(count));
            CallNode& cnode = nodes[id];
            cnode.region = static_cast<RegionId>(callee);
            cnode.parent = parent;
            std::int64_t line = -1;
            cnode.line = parseInt(node.attribute("line").as_string(), line) ? int(line) : -1;
            cnode.file = node.attribute("mod").as_string();
            if (parent)
                nodes[*parent].children.push_back(static_cast<CallNodeId>(id));
            std::vector<pugi::xml_node> children;
            for (pugi::xml_node c : node.children("cnode"))
                children.push_back(c);
            for (auto c = children.rbegin(); c != children.rend(); ++c)
                stack.emplace_back(*c, static_cast<CallNodeId>(id));
        }
        m_assembly.setCallNodes(std::move(nodes));
        return Status::success();
    }

    Status parseSystem(pugi::xml_node system) {
        std::vector<SystemNode> nodes;
        std::set<std::int64_t> treeIds, groupIds, locationIds;
        std::vector<std::pair<pugi::xml_node, std::optional<SystemNodeId>>> stack;
        std::vector<pugi::xml_node> top;
        for (pugi::xml_node n : system.children("systemtreenode"))
            top.push_back(n);
        for (auto it = top.rbegin(); it != top.rend(); ++it)
            stack.emplace_back(*it, std::nullopt);
        while (!stack.empty()) {
            auto [node, parent] = stack.back();
            stack.pop_back();
            std::string element = node.name();
            std::int64_t id = 0;
            if (!parseInt(node.attribute("Id").as_string(), id))
                return error(element + " without a valid Id attribute");
            SystemNode out;
            out.name = childText(node, "name");
            out.parent = parent;
            std::int64_t rank = 0;
            std::vector<pugi::xml_node> children;
            if (element == "systemtreenode") {
                if (!treeIds.insert(id).second)
                    return error("duplicate systemtreenode Id " + std::to_string(id));
                out.className = childText(node, "class");
                out.kind =
                    (!parent && out.className != "node") ? SystemKind::Machine : SystemKind::Node;
                for (pugi::xml_node c : node.children()) {
                    std::string_view n = c.name();
                    if (n == "systemtreenode" || n == "locationgroup")
                        children.push_back(c);
                }
            } else if (element == "locationgroup") {
                if (!parent)
                    return error("locationgroup " + std::to_string(id) +
                                 " outside a systemtreenode");
                if (!groupIds.insert(id).second)
                    return error("duplicate locationgroup Id " + std::to_string(id));
                out.kind = SystemKind::Process;
                out.type = childText(node, "type");
                out.rank = parseInt(childText(node, "rank"), rank) ? rank : 0;
                for (pugi::xml_node c : node.children("location"))
                    children.push_back(c);
            } else {
                if (!locationIds.insert(id).second)
                    return error("duplicate location Id " + std::to_string(id));
                out.kind = SystemKind::Location;
                out.type = childText(node, "type");
                out.rank = parseInt(childText(node, "rank"), rank) ? rank : 0;
                out.location = static_cast<LocationId>(id);
            }
            auto mine = static_cast<SystemNodeId>(nodes.size());
            if (parent)
                nodes[*parent].children.push_back(mine);
            nodes.push_back(std::move(out));
            for (auto it = children.rbegin(); it != children.rend(); ++it)
                stack.emplace_back(*it, mine);
        }
        for (std::int64_t id : locationIds)
            if (id < 0 || id >= static_cast<std::int64_t>(locationIds.size()))
                return error("location Id " + std::to_string(id) + " out of range (" +
                             std::to_string(locationIds.size()) + " locations)");
        m_assembly.setSystemNodes(std::move(nodes));

        for (pugi::xml_node cart : system.child("topologies").children("cart")) {
            CartTopology topology;
            topology.name = cart.attribute("name").as_string();
            for (pugi::xml_node dim : cart.children("dim")) {
                CartDimension d;
                d.name = dim.attribute("name").as_string();
                d.size = dim.attribute("size").as_llong();
                d.periodic = std::string_view(dim.attribute("periodic").as_string()) == "true";
                topology.dimensions.push_back(d);
            }
            for (pugi::xml_node coord : cart.children("coord")) {
                std::int64_t loc = 0;
                if (!parseInt(coord.attribute("locId").as_string(), loc))
                    continue; // older files place processes/threads; not modelled
                if (loc < 0 || loc >= static_cast<std::int64_t>(locationIds.size()))
                    return error("topology '" + topology.name + "': locId " + std::to_string(loc) +
                                 " out of range");
                std::vector<std::int64_t> values;
                std::string text = coord.text().as_string();
                std::size_t pos = 0;
                while (pos < text.size()) {
                    std::size_t end = text.find_first_of(" \t\n", pos);
                    if (end == std::string::npos)
                        end = text.size();
                    std::int64_t v = 0;
                    if (end > pos) {
                        if (!parseInt(std::string_view(text).substr(pos, end - pos), v))
                            return error("topology '" + topology.name + "': bad coordinate '" +
                                         text + "'");
                        values.push_back(v);
                    }
                    pos = end + 1;
                }
                if (values.size() != topology.dimensions.size())
                    return error("topology '" + topology.name + "': coordinate of location " +
                                 std::to_string(loc) + " has the wrong number of dimensions");
                topology.coordinates.emplace_back(static_cast<LocationId>(loc), std::move(values));
            }
            m_assembly.appendTopology(std::move(topology));
        }
        return Status::success();
    }

    // Marks derived metrics whose expressions are not linear as unavailable.
    void resolveDerived() {
        // Metric access goes through a const reference; availability is patched via a copy.
        std::vector<std::pair<MetricId, std::string>> unavailable;
        const auto& metrics = m_report.metrics();
        for (MetricId m = 0; m < metrics.size(); ++m) {
            if (!isDerived(metrics[m].kind) || metrics[m].expression.empty())
                continue;
            std::string why;
            auto terms = detail::parseLinearCubePL(
                metrics[m].expression,
                [this](std::string_view name) { return m_report.findMetric(name); }, why);
            if (!terms)
                unavailable.emplace_back(m, "CubePL expression not evaluated (" + why + ")");
        }
        m_unavailable = std::move(unavailable);
    }

public:
    std::vector<std::pair<MetricId, std::string>> m_unavailable;

private:
    detail::ReportAssembly& m_assembly;
    Report& m_report; ///< the report being assembled, for lookups and checked setters
    std::vector<FileMetric>& m_files;
    std::vector<std::int64_t> m_fileIds;
    std::string m_where;
    const ReadProgress& m_progress;
};

std::uint32_t readU32(const unsigned char* p, bool swap) {
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return swap ? __builtin_bswap32(v) : v;
}

std::uint64_t readU64(const unsigned char* p, bool swap) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return swap ? __builtin_bswap64(v) : v;
}

/// Everything the lazy loader needs, shared by all metrics of one report.
struct LoadContext {
    detail::TarArchive archive;
    std::vector<FileMetric> files;
    std::vector<CallNode> nodes;
    std::vector<MetricKind> kinds;
    std::size_t width = 0;
    std::mutex orderMutex;
    std::vector<CallNodeId> preOrder, wideOrder, idOrder;
    bool ordersReady = false;

    const std::vector<CallNodeId>& orderFor(MetricKind kind) {
        std::lock_guard<std::mutex> lock(orderMutex);
        if (!ordersReady) {
            preOrder = detail::rowOrder(nodes, MetricKind::Exclusive);
            wideOrder = detail::rowOrder(nodes, MetricKind::Inclusive);
            idOrder = detail::rowOrder(nodes, MetricKind::Simple);
            ordersReady = true;
        }
        if (kind == MetricKind::Inclusive)
            return wideOrder;
        if (kind == MetricKind::Simple)
            return idOrder;
        return preOrder;
    }

    Status load(MetricId metric, MetricRows& rows) {
        const FileMetric& file = files[metric];
        const std::string& name = archive.name();
        std::string indexName = file.memberBase + ".index";
        std::string dataName = file.memberBase + ".data";
        const detail::TarMember* indexMember = archive.find(indexName);
        const detail::TarMember* dataMember = archive.find(dataName);
        if (!indexMember && !dataMember) {
            // Score-P writes no members for a metric without any value: all zero.
            rows.rowOf.assign(nodes.size(), kNoRow);
            return Status::success();
        }
        if (!indexMember)
            return Error(name + ": member '" + indexName + "' missing");
        if (!dataMember)
            return Error(name + ": member '" + dataName + "' missing");
        std::string_view index = archive.bytes(*indexMember);
        std::string_view data = archive.bytes(*dataMember);
        auto bad = [&](const std::string& member, const std::string& what) {
            return Error(name + ": " + member + ": " + what);
        };
        const auto* ip = reinterpret_cast<const unsigned char*>(index.data());
        if (index.size() < 18 || std::memcmp(ip, "CUBEX.INDEX", 11) != 0)
            return bad(indexName, "not a CUBEX.INDEX header");
        std::uint32_t marker;
        std::memcpy(&marker, ip + 11, 4);
        bool swap = false;
        if (marker == 0x01000000u)
            swap = true;
        else if (marker != 1u)
            return bad(indexName, "bad byte-order marker " + std::to_string(marker));
        unsigned format = ip[17];
        const std::vector<CallNodeId>& order = orderFor(kinds[metric]);
        std::size_t cnodeCount = nodes.size();
        rows.rowOf.assign(cnodeCount, kNoRow);
        std::size_t rowCount = 0;
        if (format == 1) {
            if (index.size() < 22)
                return bad(indexName, "sparse index without a row count");
            std::uint32_t n = readU32(ip + 18, swap);
            if (std::uint64_t(n) * 4 > index.size() - 22)
                return bad(indexName,
                           "index is shorter than its row count " + std::to_string(n) + " says");
            if (n > cnodeCount)
                return bad(indexName, "index lists " + std::to_string(n) + " rows for " +
                                          std::to_string(cnodeCount) + " cnodes");
            std::int64_t previous = -1;
            for (std::uint32_t k = 0; k < n; ++k) {
                std::uint32_t position = readU32(ip + 22 + 4 * std::size_t(k), swap);
                if (position >= cnodeCount)
                    return bad(indexName, "row " + std::to_string(position) + " out of range (" +
                                              std::to_string(cnodeCount) + " cnodes)");
                if (std::int64_t(position) <= previous)
                    return bad(indexName, "rows not in ascending order");
                previous = position;
                rows.rowOf[order[position]] = k;
            }
            rowCount = n;
        } else if (format == 3 || format == 0) {
            for (std::size_t pos = 0; pos < cnodeCount; ++pos)
                rows.rowOf[order[pos]] = static_cast<std::uint32_t>(pos);
            rowCount = cnodeCount;
        } else {
            return bad(indexName, "unsupported index format " + std::to_string(format));
        }

        const auto* dp = reinterpret_cast<const unsigned char*>(data.data());
        std::uint64_t rowBytes = std::uint64_t(width) * file.elementSize;
        std::uint64_t expected = rowBytes * rowCount;
        if (data.size() >= 10 && std::memcmp(dp, "CUBEX.DATA", 10) == 0) {
            if (data.size() - 10 < expected)
                return bad(dataName, "data is shorter than its index says: " +
                                         std::to_string(data.size() - 10) + " bytes of rows, " +
                                         std::to_string(expected) + " expected");
            rows.mapped = dp + 10;
            rows.elementSize = file.elementSize;
            rows.swapBytes = swap;
            rows.signedElements = file.signedElements;
            rows.floatElements = file.floatElements;
            return Status::success();
        }
        if (data.size() >= 11 && std::memcmp(dp, "ZCUBEX.DATA", 11) == 0)
            return loadCompressed(rows, dataName, data, swap, expected, rowCount, file);
        return bad(dataName, "not a CUBEX.DATA header");
    }

    // ZCUBEX.DATA: a table of {uncompressed offset, compressed offset, compressed size}, then
    // one zlib stream per block; blocks are inflated into owned cells.
    Status loadCompressed(MetricRows& rows, const std::string& dataName, std::string_view data,
                          bool swap, std::uint64_t expected, std::size_t rowCount,
                          const FileMetric& file) {
        const std::string& name = archive.name();
        auto bad = [&](const std::string& what) {
            return Error(name + ": " + dataName + ": " + what);
        };
        const auto* dp = reinterpret_cast<const unsigned char*>(data.data());
        if (data.size() < 19)
            return bad("compressed header truncated");
        std::uint64_t blocks = readU64(dp + 11, swap);
        if (blocks > (data.size() - 19) / 24)
            return bad("compressed block table is longer than the member");
        std::vector<unsigned char> plain(static_cast<std::size_t>(expected));
        std::uint64_t covered = 0;
        for (std::uint64_t b = 0; b < blocks; ++b) {
            const unsigned char* entry = dp + 19 + 24 * b;
            std::uint64_t uoff = readU64(entry, swap);
            std::uint64_t coff = readU64(entry + 8, swap);
            std::uint64_t csize = readU64(entry + 16, swap);
            if (coff > data.size() || csize > data.size() - coff)
                return bad("compressed block " + std::to_string(b) + " runs past the member");
            if (uoff > expected)
                return bad("compressed block " + std::to_string(b) + " offset out of range");
            z_stream stream{};
            if (inflateInit(&stream) != Z_OK)
                return bad("zlib initialization failed");
            stream.next_in = const_cast<Bytef*>(dp + coff);
            stream.avail_in = static_cast<uInt>(csize);
            stream.next_out = plain.data() + uoff;
            stream.avail_out = static_cast<uInt>(expected - uoff);
            int rc = inflate(&stream, Z_FINISH);
            std::uint64_t produced = stream.total_out;
            inflateEnd(&stream);
            if (rc != Z_STREAM_END)
                return bad("compressed block " + std::to_string(b) + " is corrupt");
            covered += produced;
        }
        if (covered < expected)
            return bad(
                "decompressed data is shorter than its index says: " + std::to_string(covered) +
                " bytes, " + std::to_string(expected) + " expected");
        return finishOwned(rows, plain, swap, rowCount, file);
    }

    Status finishOwned(MetricRows& rows, const std::vector<unsigned char>& plain, bool swap,
                       std::size_t rowCount, const FileMetric& file) {
        // Decode through a temporary mapped view so narrow types and byte order are handled
        // by the same code as uncompressed members.
        MetricRows view = rows;
        view.mapped = plain.data();
        view.swapBytes = swap;
        view.elementSize = file.elementSize;
        view.signedElements = file.signedElements;
        view.floatElements = file.floatElements;
        rows.cells.assign(rowCount * width, 0);
        for (CallNodeId c = 0; c < rows.rowOf.size(); ++c)
            if (rows.rowOf[c] != kNoRow)
                detail::SeverityStorage::readRow(view, c, rows.cells.data() + rows.rowOf[c] * width,
                                                 width);
        rows.mapped = nullptr;
        return Status::success();
    }
};

Result<Report> readArchive(std::shared_ptr<detail::MappedFile> file, const std::string& name,
                           const ReadProgress& progress) {
    if (progress)
        progress("indexing archive", 0.0);
    auto archive = detail::TarArchive::index(file, name);
    if (!archive)
        return archive.error();
    const detail::TarMember* anchor = archive->find("anchor.xml");
    if (!anchor)
        return Error(name + ": not a CUBE4 report (.cubex): no member 'anchor.xml'");
    detail::ReportAssembly assembly;
    const Report& report = assembly.report();
    auto context = std::make_shared<LoadContext>();
    AnchorParser parser(assembly, context->files, name + ": anchor.xml", progress);
    if (progress)
        progress("parsing anchor.xml", 0.05);
    if (Status s = parser.parse(archive->bytes(*anchor)); !s)
        return s.error();
    for (const auto& [metric, why] : parser.m_unavailable) {
        assembly.setMetricUnavailable(metric, why);
    }
    // Score-P leaves out the members of a metric without values, but never those of all
    // metrics: an archive with nothing beside anchor.xml lost its data.
    bool anyStored = false;
    for (MetricId m = 0; m < report.metrics().size(); ++m)
        anyStored = anyStored || context->files[m].stored;
    if (anyStored && archive->members().size() == 1)
        return Error(name + ": holds no metric data (no member besides anchor.xml)");
    context->archive = std::move(*archive);
    context->nodes = report.callNodes();
    context->width = report.locations().size();
    std::vector<bool> lazy(report.metrics().size(), false);
    for (MetricId m = 0; m < report.metrics().size(); ++m) {
        context->kinds.push_back(report.metrics()[m].kind);
        lazy[m] = context->files[m].stored;
    }
    auto loader = [context](MetricId metric, MetricRows& rows) {
        return context->load(metric, rows);
    };
    assembly.setStorage(std::make_unique<detail::SeverityStorage>(loader, std::move(lazy)));
    return std::move(assembly).finish();
}

} // namespace

Result<Report> readCubex(const std::string& path, const ReadProgress& progress) {
    auto file = detail::MappedFile::open(path);
    if (!file)
        return file.error();
    return readArchive(*file, path, progress);
}

Result<Report> readCubexFromMemory(std::string bytes, const std::string& name) {
    return readArchive(detail::MappedFile::fromBytes(std::move(bytes)), name, {});
}

} // namespace waitscope::report
