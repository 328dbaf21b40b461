// Hatchet literal export: precomputes each metric's per-node values, then writes the tree.
#include "hatchet_literal.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace waitscope::exporter {
namespace {

using namespace report;

void writeString(std::ostream& out, const std::string& text) {
    out << '"';
    for (unsigned char c : text) {
        if (c == '"' || c == '\\') {
            out << '\\' << c;
        } else if (c < 0x20) {
            char buffer[8];
            std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
            out << buffer;
        } else {
            out << c;
        }
    }
    out << '"';
}

void writeNumber(std::ostream& out, double value) {
    if (!std::isfinite(value)) {
        out << "null"; // JSON has no infinities; pandas reads null as NaN
        return;
    }
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.17g", value);
    out << buffer;
}

/// One column of the export: a name and a value per call node.
struct Column {
    std::string name;
    std::vector<double> values;
};

class LiteralWriter {
public:
    LiteralWriter(const Report& report, std::ostream& out) : m_report(report), m_out(out) {}

    Status addColumns(const HatchetOptions& options) {
        for (MetricId m = 0; m < m_report.metrics().size(); ++m) {
            const Metric& metric = m_report.metrics()[m];
            if (isDerived(metric.kind) || !metric.available)
                continue;
            auto exclusive = m_report.callNodeValues(m, CallTreeMode::Exclusive);
            if (!exclusive)
                return exclusive.error();
            auto inclusive = m_report.callNodeValues(m, CallTreeMode::Inclusive);
            if (!inclusive)
                return inclusive.error();
            m_columns.push_back({metric.uniqueName, std::move(*exclusive)});
            m_columns.push_back({metric.uniqueName + " (inc)", std::move(*inclusive)});
            if (!options.perRank)
                continue;
            const std::size_t nodes = m_report.callNodes().size();
            std::vector<std::vector<double>> byLocation(m_report.locations().size(),
                                                        std::vector<double>(nodes, 0.0));
            for (CallNodeId c = 0; c < nodes; ++c) {
                auto values = m_report.locationValues(m, c, CallTreeMode::Exclusive);
                if (!values)
                    return values.error();
                for (LocationId l = 0; l < values->size(); ++l)
                    byLocation[l][c] = (*values)[l];
            }
            for (LocationId l = 0; l < byLocation.size(); ++l) {
                const SystemNode& location = m_report.systemNodes()[m_report.locations()[l]];
                const SystemNode& process = m_report.systemNodes()[*location.parent];
                std::string name = metric.uniqueName + " [rank " + std::to_string(process.rank);
                if (process.children.size() > 1)
                    name += " thread " + std::to_string(location.rank);
                m_columns.push_back({name + "]", std::move(byLocation[l])});
            }
        }
        return {};
    }

    void write() {
        m_out << '[';
        bool first = true;
        for (CallNodeId root : m_report.rootCallNodes()) {
            m_out << (first ? "\n" : ",\n");
            first = false;
            writeNode(root, 1);
        }
        m_out << "\n]\n";
    }

private:
    void writeNode(CallNodeId id, int depth) {
        const std::string indent(static_cast<std::size_t>(depth) * 2, ' ');
        const CallNode& node = m_report.callNodes()[id];
        m_out << indent << "{\"frame\": {\"name\": ";
        writeString(m_out, m_report.regions()[node.region].name);
        m_out << ", \"type\": \"function\"}, \"metrics\": {";
        for (std::size_t i = 0; i < m_columns.size(); ++i) {
            m_out << (i ? ", " : "");
            writeString(m_out, m_columns[i].name);
            m_out << ": ";
            writeNumber(m_out, m_columns[i].values[id]);
        }
        m_out << '}';
        if (!node.children.empty()) {
            m_out << ", \"children\": [";
            for (std::size_t i = 0; i < node.children.size(); ++i) {
                m_out << (i ? ",\n" : "\n");
                writeNode(node.children[i], depth + 1);
            }
            m_out << '\n' << indent << ']';
        }
        m_out << '}';
    }

    const Report& m_report;
    std::ostream& m_out;
    std::vector<Column> m_columns;
};

} // namespace

Status writeHatchetLiteral(const Report& report, std::ostream& out, const HatchetOptions& options) {
    LiteralWriter writer(report, out);
    if (Status s = writer.addColumns(options); !s)
        return s;
    writer.write();
    return {};
}

} // namespace waitscope::exporter
