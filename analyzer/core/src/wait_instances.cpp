// Wait-state instances as text: one line per instance, in nanosecond resolution.
#include "waitscope/analysis/wait_instances.h"

#include "decimal_line.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string_view>

namespace waitscope::analysis {

bool instanceTextBefore(const PatternInstance& a, const PatternInstance& b) {
    if (a.metric != b.metric) {
        return a.metric < b.metric;
    }
    return a.rank != b.rank ? a.rank < b.rank : a.enter < b.enter;
}

Result<WaitInstancesWriter> WaitInstancesWriter::create(const std::string& path) {
    WaitInstancesWriter writer;
    writer.m_path = path;
    writer.m_file.reset(std::fopen(path.c_str(), "w"));
    if (!writer.m_file) {
        return Error(path + ": cannot write");
    }
    std::fprintf(writer.m_file.get(), "# waitscope wait-state instances 1\n"
                                      "# pattern rank cnode enter exit severity (seconds)\n");
    return writer;
}

void WaitInstancesWriter::add(const PatternInstance& i) {
    DecimalLine()
        .text(metricInfo(i.metric).uniqueName)
        .number(i.rank)
        .number(i.node)
        .seconds(i.enter)
        .seconds(i.exit)
        .seconds(i.severity)
        .writeTo(m_file.get());
}

Status WaitInstancesWriter::finish() {
    const bool failed = std::ferror(m_file.get()) != 0;
    if (std::fclose(m_file.release()) != 0 || failed) {
        return Error(m_path + ": cannot write");
    }
    return Status::success();
}

void WaitInstancesWriter::CloseFile::operator()(FILE* file) const {
    std::fclose(file);
}

Status writeWaitInstances(const AnalysisResult& result, const std::string& path) {
    std::vector<const PatternInstance*> order;
    order.reserve(result.instances().size());
    for (const PatternInstance& instance : result.instances()) {
        order.push_back(&instance);
    }
    std::stable_sort(order.begin(), order.end(),
                     [](const PatternInstance* a, const PatternInstance* b) {
                         return instanceTextBefore(*a, *b);
                     });
    auto writer = WaitInstancesWriter::create(path);
    if (!writer) {
        return writer.error();
    }
    for (const PatternInstance* i : order) {
        writer->add(*i);
    }
    return writer->finish();
}

std::pair<double, double> waitingInterval(const PatternInstance& instance) {
    const double waited = std::min(instance.severity, instance.exit - instance.enter);
    switch (instance.metric) {
    case Metric::MpiInitCompletion:
    case Metric::MpiBarrierCompletion:
    case Metric::MpiNxnCompletion:
        return {instance.exit - waited, instance.exit};
    default:
        return {instance.enter, instance.enter + waited};
    }
}

namespace {

// The next space-separated field of `line` from `at` (moved past it); empty at the end.
std::string_view nextField(std::string_view line, size_t& at) {
    while (at < line.size() && line[at] == ' ') {
        ++at;
    }
    const size_t start = at;
    while (at < line.size() && line[at] != ' ') {
        ++at;
    }
    return line.substr(start, at - start);
}

// Parses all of `field` as a number into `value`.
template <typename T> bool parseField(std::string_view field, T& value) {
    const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
    return error == std::errc() && end == field.data() + field.size() && !field.empty();
}

} // namespace

Result<std::vector<PatternInstance>> readWaitInstances(const std::string& path) {
    // Read line by line with from_chars: a trace of 10^8 events has millions of instances,
    // and stream extraction of each number took most of the time of opening its timeline.
    std::ifstream in(path);
    if (!in) {
        return Error(path + ": cannot open");
    }
    // Reserved by the number of lines (a cheap pass over the file): growing by doubling would
    // hold up to three times the instances' memory at once.
    size_t lines = 0;
    std::vector<char> chunk(size_t{1} << 20);
    while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0) {
        lines += static_cast<size_t>(std::count(chunk.data(), chunk.data() + in.gcount(), '\n'));
    }
    in.clear();
    in.seekg(0);
    std::vector<PatternInstance> instances;
    instances.reserve(lines);
    std::string line;
    for (size_t number = 1; std::getline(in, line); ++number) {
        if (line.empty() || line[0] == '#') {
            continue;
        }
        size_t at = 0;
        const std::string_view name = nextField(line, at);
        PatternInstance i;
        const auto metric = metricByName(name);
        const bool parsed =
            parseField(nextField(line, at), i.rank) && parseField(nextField(line, at), i.node) &&
            parseField(nextField(line, at), i.enter) && parseField(nextField(line, at), i.exit) &&
            parseField(nextField(line, at), i.severity);
        if (!parsed || !metric) {
            return Error(path + ": line " + std::to_string(number) +
                         ": not 'pattern rank cnode enter exit severity'");
        }
        i.metric = *metric;
        instances.push_back(i);
    }
    return instances;
}

} // namespace waitscope::analysis
