// Reference reports written by Scalasca 2.6 / Score-P 8.4: they open, their values equal what
// Scalasca printed and what an independent reader extracted, and their trees are consistent.
#include "report_printer.h"
#include "test_support.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <sstream>
#include <waitscope/report/cubex_reader.h>

using namespace waitscope::report;
using namespace waitscope::report::test;

namespace {

bool close(double a, double b, double relative = 1e-9, double absolute = 1e-12) {
    return std::fabs(a - b) <= absolute + relative * std::max(std::fabs(a), std::fabs(b));
}

// The totals table of tests/data/reference/README.md: program -> metric -> value.
std::map<std::string, std::map<std::string, double>> readmeTotals() {
    std::istringstream in(readFile(referenceDir() + "/README.md"));
    std::string line;
    std::vector<std::string> programs;
    std::map<std::string, std::map<std::string, double>> totals;
    auto cells = [](const std::string& row) {
        std::vector<std::string> out;
        std::string cell;
        std::istringstream s(row);
        while (std::getline(s, cell, '|')) {
            auto b = cell.find_first_not_of(' ');
            auto e = cell.find_last_not_of(' ');
            out.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
        }
        return out;
    };
    while (std::getline(in, line)) {
        if (line.rfind("| metric |", 0) == 0) {
            auto header = cells(line);
            programs.assign(header.begin() + 2, header.end());
            continue;
        }
        if (programs.empty() || line.rfind("| ", 0) != 0)
            continue;
        auto row = cells(line);
        for (std::size_t i = 0; i < programs.size() && i + 2 < row.size(); ++i)
            totals[programs[i]][row[1]] = std::stod(row[i + 2]);
    }
    return totals;
}

// Parses the CSV printed by `waitscope report --csv FILE`: metric -> total.
std::map<std::string, double> printedTotals(const Report& report) {
    std::ostringstream out;
    REQUIRE(printMetricTotals(report, out, OutputFormat::Csv));
    std::istringstream in(out.str());
    std::string line;
    std::getline(in, line);
    CHECK(line == "metric,display_name,unit,total");
    std::map<std::string, double> totals;
    while (std::getline(in, line)) {
        auto first = line.find(',');
        auto last = line.rfind(',');
        if (last + 1 < line.size())
            totals[line.substr(0, first)] = std::stod(line.substr(last + 1));
    }
    return totals;
}

} // namespace

TEST_CASE("every reference report opens", "[report][reference]") {
    for (const std::string& program : referencePrograms()) {
        for (const char* file : {"trace.cubex", "scout.cubex", "profile.cubex"}) {
            std::string path = referenceDir() + "/" + program + "/" + file;
            INFO(path);
            auto report = readCubex(path);
            REQUIRE(report);
            CHECK(report->locations().size() == 4);
            CHECK(!report->metrics().empty());
            CHECK(!report->callNodes().empty());
            for (MetricId m = 0; m < report->metrics().size(); ++m) {
                INFO(report->metrics()[m].uniqueName);
                CHECK(report->load(m));
            }
        }
    }
}

TEST_CASE("printed totals equal the values Scalasca printed", "[report][reference]") {
    auto table = readmeTotals();
    REQUIRE(table.size() == referencePrograms().size());
    for (const auto& [program, metrics] : table) {
        auto report = readCubex(referenceDir() + "/" + program + "/trace.cubex");
        REQUIRE(report);
        auto printed = printedTotals(*report);
        REQUIRE(metrics.size() >= 30);
        for (const auto& [metric, expected] : metrics) {
            INFO(program << " " << metric << " expected " << expected);
            REQUIRE(printed.count(metric) == 1);
            // The table has four decimals.
            CHECK(std::fabs(printed[metric] - expected) <= 0.5e-4 + 1e-12);
        }
    }
}

TEST_CASE("values equal an independent reader's per metric, call path and rank",
          "[report][reference]") {
    for (const std::string& program : referencePrograms()) {
        auto report = readCubex(referenceDir() + "/" + program + "/trace.cubex");
        REQUIRE(report);
        Json json = parseJson(readFile(referenceDir() + "/" + program + "/scalasca.json"));
        REQUIRE(json.members.size() > 100);
        for (const auto& [name, entry] : json.members) {
            INFO(program << " " << name);
            auto metric = report->findMetric(name);
            REQUIRE(metric);
            auto total = report->total(*metric);
            REQUIRE(total);
            CHECK(close(*total, entry["total"].number));
            auto perNode = report->callNodeValues(*metric, CallTreeMode::Exclusive);
            REQUIRE(perNode);
            for (const auto& [path, value] : entry["per_path"].members) {
                INFO(path);
                auto cnode = report->findCallPath(path);
                REQUIRE(cnode);
                CHECK(close((*perNode)[*cnode], value.number, 1e-9, 1e-12));
            }
            for (const auto& [path, ranks] : entry["per_path_rank"].members) {
                auto cnode = report->findCallPath(path);
                REQUIRE(cnode);
                for (const auto& [rank, value] : ranks.members) {
                    INFO(path << " rank " << rank);
                    auto process = report->findProcess(std::stoll(rank));
                    REQUIRE(process);
                    auto v = report->value(*metric, *cnode, *process, CallTreeMode::Exclusive,
                                           SystemMode::Inclusive);
                    REQUIRE(v);
                    CHECK(close(*v, value.number, 1e-9, 1e-12));
                }
            }
        }
    }
}

TEST_CASE("inclusive equals exclusive plus children for every call node", "[report][property]") {
    for (const std::string& program : referencePrograms()) {
        for (const char* file : {"trace.cubex", "scout.cubex", "profile.cubex"}) {
            auto report = readCubex(referenceDir() + "/" + program + "/" + file);
            REQUIRE(report);
            const auto& nodes = report->callNodes();
            for (MetricId m = 0; m < report->metrics().size(); ++m) {
                const Metric& metric = report->metrics()[m];
                if (metric.dataType == DataType::MinDouble ||
                    metric.dataType == DataType::MaxDouble)
                    continue;
                INFO(program << "/" << file << " " << metric.uniqueName);
                auto incl = report->callNodeValues(m, CallTreeMode::Inclusive);
                auto excl = report->callNodeValues(m, CallTreeMode::Exclusive);
                REQUIRE(incl);
                REQUIRE(excl);
                for (CallNodeId c = 0; c < nodes.size(); ++c) {
                    double sum = (*excl)[c];
                    for (CallNodeId child : nodes[c].children)
                        sum += (*incl)[child];
                    CHECK(close((*incl)[c], sum, 1e-9, 1e-12));
                }
            }
        }
    }
}

TEST_CASE("system-tree values are sums of their locations", "[report][property]") {
    for (const std::string& program : referencePrograms()) {
        auto report = readCubex(referenceDir() + "/" + program + "/trace.cubex");
        REQUIRE(report);
        const auto& system = report->systemNodes();
        for (MetricId m = 0; m < report->metrics().size(); ++m) {
            INFO(program << " " << report->metrics()[m].uniqueName);
            for (CallNodeId c = 0; c < report->callNodes().size(); ++c) {
                for (SystemNodeId s = 0; s < system.size(); ++s) {
                    auto whole =
                        report->value(m, c, s, CallTreeMode::Inclusive, SystemMode::Inclusive);
                    REQUIRE(whole);
                    double sum = 0;
                    for (SystemNodeId child : system[s].children) {
                        auto part = report->value(m, c, child, CallTreeMode::Inclusive,
                                                  SystemMode::Inclusive);
                        REQUIRE(part);
                        sum += *part;
                    }
                    auto own =
                        report->value(m, c, s, CallTreeMode::Inclusive, SystemMode::Exclusive);
                    REQUIRE(own);
                    CHECK(close(*whole, sum + *own));
                    if (system[s].kind != SystemKind::Location)
                        CHECK(*own == 0.0);
                }
            }
        }
    }
}

TEST_CASE("metric-exclusive values subtract the child metrics", "[report][reference]") {
    auto report = readCubex(referenceDir() + "/late_sender/trace.cubex");
    REQUIRE(report);
    MetricId execution = *report->findMetric("execution");
    MetricId comp = *report->findMetric("comp");
    MetricId mpi = *report->findMetric("mpi");
    auto own = report->total(execution, MetricMode::Exclusive);
    REQUIRE(own);
    CHECK(close(*own, *report->total(execution) - *report->total(comp) - *report->total(mpi), 1e-9,
                1e-12));
}

TEST_CASE("scout and trace reports agree on stored patterns", "[report][reference]") {
    auto scout = readCubex(referenceDir() + "/late_sender/scout.cubex");
    auto trace = readCubex(referenceDir() + "/late_sender/trace.cubex");
    REQUIRE(scout);
    REQUIRE(trace);
    for (const char* name : {"time", "visits", "mpi_latesender", "mpi_barrier_wait"}) {
        INFO(name);
        auto a = scout->total(*scout->findMetric(name));
        auto b = trace->total(*trace->findMetric(name));
        REQUIRE(a);
        REQUIRE(b);
        CHECK(close(*a, *b, 1e-6));
    }
    // The remapping.spec member of scout.cubex is ignored, attributes are read.
    CHECK(scout->attribute("Creator") == std::optional<std::string>("Scalasca Trace Analyzer 2.6"));
}

TEST_CASE("printer views list call paths, ranks and attributes", "[report][printer]") {
    auto report = readCubex(referenceDir() + "/late_sender/trace.cubex");
    REQUIRE(report);
    std::ostringstream top;
    REQUIRE(printTopCallPaths(*report, "mpi_latesender", 1, CallTreeMode::Exclusive, top,
                              OutputFormat::Csv));
    CHECK(top.str().find("late_sender/main/MPI_Recv,2.02588") != std::string::npos);
    std::ostringstream ranks;
    REQUIRE(printRankDistribution(*report, "time", "late_sender/main/MPI_Recv",
                                  CallTreeMode::Exclusive, ranks, OutputFormat::Csv));
    CHECK(ranks.str().rfind("rank,process,value\n0,MPI Rank 0,0\n1,MPI Rank 1,1.0321", 0) == 0);
    std::ostringstream attributes;
    REQUIRE(printAttributes(*report, attributes, OutputFormat::Text));
    CHECK(attributes.str().find("CubePL Version = 1.1") != std::string::npos);
    std::ostringstream bad;
    auto status = printTopCallPaths(*report, "no_such_metric", 3, CallTreeMode::Exclusive, bad,
                                    OutputFormat::Text);
    REQUIRE(!status);
    CHECK(status.error().message() == "no metric 'no_such_metric' in this report");
}

TEST_CASE("reading reports its stages in order with a growing fraction", "[report][reference]") {
    std::vector<std::pair<std::string, double>> told;
    auto report = readCubex(referenceDir() + "/late_sender/trace.cubex",
                            [&told](std::string_view stage, double fraction) {
                                told.emplace_back(std::string(stage), fraction);
                            });
    REQUIRE(report);
    std::vector<std::string> stages;
    for (std::size_t i = 0; i < told.size(); ++i) {
        if (i > 0)
            CHECK(told[i].second >= told[i - 1].second);
        CHECK(told[i].second >= 0.0);
        CHECK(told[i].second <= 1.0);
        if (stages.empty() || stages.back() != told[i].first)
            stages.push_back(told[i].first);
    }
    CHECK(stages == std::vector<std::string>{"indexing archive", "parsing anchor.xml",
                                             "building call tree", "building system tree"});
}
