// bench_report: builds a synthetic report (call paths x locations x metrics), writes it, and
// times opening it and printing the metric-tree totals. Run on demand, not by ctest:
//   bench_report write FILE [cnodes] [locations] [metrics] [density]
//   bench_report read FILE
// `density` is the fraction of call paths that carry values for a metric (1 = dense).
#include "report_printer.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <waitscope/report/cubex_reader.h>
#include <waitscope/report/cubex_writer.h>

using namespace waitscope::report;
using Clock = std::chrono::steady_clock;

namespace {

// CPU seconds (user + system) used by this process so far: robust against a busy machine.
double cpuSeconds() {
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

double seconds(Clock::time_point since) {
    return std::chrono::duration<double>(Clock::now() - since).count();
}

// VmRSS / VmHWM of this process in MiB.
std::string memory() {
    std::ifstream status("/proc/self/status");
    std::string line, out;
    while (std::getline(status, line))
        if (line.rfind("VmRSS", 0) == 0 || line.rfind("VmHWM", 0) == 0)
            out += line.substr(0, line.find(':')) + "=" +
                   std::to_string(std::stol(line.substr(line.find(':') + 1)) / 1024) + "MiB ";
    return out;
}

int write(const std::string& path, std::size_t cnodes, std::size_t locations, std::size_t metrics,
          double density) {
    auto start = Clock::now();
    Report report;
    std::mt19937_64 rng(42);
    std::vector<MetricId> ids;
    MetricId root =
        *report.addMetric("time", std::nullopt, DataType::Double, MetricKind::Inclusive);
    ids.push_back(root);
    for (std::size_t m = 1; m < metrics; ++m)
        ids.push_back(*report.addMetric("synthetic_" + std::to_string(m), ids[(m - 1) / 4],
                                        m % 5 == 0 ? DataType::Uint64 : DataType::Double,
                                        MetricKind::Inclusive));
    for (int r = 0; r < 1000; ++r)
        (void)report.addRegion({.name = "region_" + std::to_string(r), .paradigm = "user"});
    (void)report.addCallNode(0, std::nullopt);
    for (std::size_t c = 1; c < cnodes; ++c) {
        // A random recursive tree: bushy, depth around 30 for 100,000 nodes.
        auto parent = static_cast<CallNodeId>(rng() % c);
        (void)report.addCallNode(static_cast<RegionId>(rng() % 1000), parent,
                                 static_cast<int>(c % 500));
    }
    SystemNodeId machine = *report.addMachine("machine");
    SystemNodeId node = *report.addNode(machine, "node");
    for (std::size_t l = 0; l < locations; ++l) {
        SystemNodeId p =
            *report.addProcess(node, "MPI Rank " + std::to_string(l), static_cast<std::int64_t>(l));
        (void)report.addThread(p, "Master thread", 0);
    }
    std::uniform_real_distribution<double> value(0.0, 1.0);
    auto threshold = static_cast<std::uint64_t>(density * 1000.0);
    std::vector<double> doubles(locations);
    std::vector<std::uint64_t> integers(locations);
    for (MetricId m : ids) {
        bool integer = report.metrics()[m].dataType == DataType::Uint64;
        for (CallNodeId c = 0; c < cnodes; ++c) {
            if (c != 0 && (rng() % 1000) >= threshold)
                continue;
            for (LocationId l = 0; l < locations; ++l) {
                doubles[l] = value(rng);
                integers[l] = rng() % 1000;
            }
            waitscope::Status s = integer ? report.setSeverityRowUint64(m, c, integers)
                                          : report.setSeverityRow(m, c, doubles);
            if (!s) {
                std::cerr << s.error().message() << '\n';
                return 1;
            }
        }
    }
    std::printf("build: %.2f s (%zu call paths x %zu locations x %zu metrics, density %.2f) %s\n",
                seconds(start), cnodes, locations, metrics, density, memory().c_str());
    start = Clock::now();
    double cpu = cpuSeconds();
    waitscope::Status status = writeCubex(report, path);
    cpu = cpuSeconds() - cpu;
    if (!status) {
        std::cerr << status.error().message() << '\n';
        return 1;
    }
    double t = seconds(start);
    struct stat info {};
    ::stat(path.c_str(), &info);
    double mib = static_cast<double>(info.st_size) / (1 << 20);
    std::printf("write: %.2f s wall, %.2f s cpu, %.0f MiB, %.0f MiB/s wall, %.0f MiB/s cpu "
                "(into the page cache)\n",
                t, cpu, mib, mib / t, mib / cpu);
    return 0;
}

int read(const std::string& path) {
    auto start = Clock::now();
    double cpu = cpuSeconds();
    auto report = readCubex(path);
    if (!report) {
        std::cerr << report.error().message() << '\n';
        return 1;
    }
    std::printf("open: %.3f s (%zu metrics, %zu call paths, %zu locations) %s\n", seconds(start),
                report->metrics().size(), report->callNodes().size(), report->locations().size(),
                memory().c_str());
    start = Clock::now();
    std::ostringstream out;
    if (!printMetricTotals(*report, out, OutputFormat::Text))
        return 1;
    std::printf("metric-tree totals: %.3f s (%zu bytes of output) %s\n", seconds(start),
                out.str().size(), memory().c_str());
    std::printf("open + totals: %.3f s cpu\n", cpuSeconds() - cpu);
    std::printf("first lines:\n%s\n", out.str().substr(0, 300).c_str());
    start = Clock::now();
    auto all = report->callNodeValues(0, CallTreeMode::Exclusive);
    std::printf("exclusive values of every call path for one metric (loads all its rows): %.3f s "
                "%s\n",
                seconds(start), memory().c_str());
    return all ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
    if (argc >= 3 && std::string(argv[1]) == "write") {
        std::size_t cnodes = argc > 3 ? std::stoul(argv[3]) : 100000;
        std::size_t locations = argc > 4 ? std::stoul(argv[4]) : 256;
        std::size_t metrics = argc > 5 ? std::stoul(argv[5]) : 60;
        double density = argc > 6 ? std::stod(argv[6]) : 0.1;
        return write(argv[2], cnodes, locations, metrics, density);
    }
    if (argc == 3 && std::string(argv[1]) == "read")
        return read(argv[2]);
    std::cerr << "usage: bench_report write FILE [cnodes] [locations] [metrics] [density]\n"
                 "       bench_report read FILE\n";
    return 2;
}
