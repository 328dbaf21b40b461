// The metric catalog: parses the embedded share/metrics files on first use.
#include <algorithm>
#include <map>
#include <waitscope/report/metric_catalog.h>

namespace waitscope::report {
namespace detail {
const std::vector<std::string_view>& embeddedMetricFiles();
}

namespace {

std::string_view trim(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\n' || text.front() == '\r'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\n' || text.back() == '\r'))
        text.remove_suffix(1);
    return text;
}

// A file is "---", "key: value" lines, "---", then the description (paragraphs joined).
bool parseFile(std::string_view text, MetricInfo& info, int& order) {
    text = trim(text);
    if (text.substr(0, 3) != "---")
        return false;
    std::size_t end = text.find("\n---", 3);
    if (end == std::string_view::npos)
        return false;
    std::string_view header = text.substr(3, end - 3);
    std::string_view body = trim(text.substr(end + 4));
    while (!header.empty()) {
        std::size_t newline = header.find('\n');
        std::string_view line = trim(header.substr(0, newline));
        header =
            newline == std::string_view::npos ? std::string_view() : header.substr(newline + 1);
        std::size_t colon = line.find(':');
        if (colon == std::string_view::npos)
            continue;
        std::string_view key = trim(line.substr(0, colon));
        std::string value(trim(line.substr(colon + 1)));
        if (key == "name")
            info.uniqueName = value;
        else if (key == "display")
            info.displayName = value;
        else if (key == "parent")
            info.parent = value;
        else if (key == "unit")
            info.unit = value;
        else if (key == "type")
            info.dataType = parseDataType(value).value_or(DataType::Double);
        else if (key == "derived")
            info.derived = value == "yes";
        else if (key == "order")
            order = std::atoi(value.c_str());
    }
    std::string description;
    for (char c : body)
        description += c == '\n' ? ' ' : c;
    info.description = description;
    return !info.uniqueName.empty();
}

std::vector<MetricInfo> buildCatalog() {
    std::vector<std::pair<int, MetricInfo>> entries;
    for (std::string_view file : detail::embeddedMetricFiles()) {
        MetricInfo info;
        int order = 0;
        if (parseFile(file, info, order))
            entries.emplace_back(order, std::move(info));
    }
    std::stable_sort(entries.begin(), entries.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<MetricInfo> catalog;
    for (auto& entry : entries)
        catalog.push_back(std::move(entry.second));
    return catalog;
}

} // namespace

const std::vector<MetricInfo>& metricCatalog() {
    // Function-local static: built on first use, no static constructor in the library.
    static const std::vector<MetricInfo> catalog = buildCatalog();
    return catalog;
}

const MetricInfo* findMetricInfo(std::string_view uniqueName) {
    for (const MetricInfo& info : metricCatalog())
        if (info.uniqueName == uniqueName)
            return &info;
    return nullptr;
}

} // namespace waitscope::report

namespace waitscope::report {

const std::vector<std::string>& documentationMirrors() {
    // Where Scalasca 2.6 publishes the pattern documentation (scalasca_patterns.html), in the
    // order its reports list them; the catalog's metric URLs are relative to these.
    static const std::vector<std::string> mirrors = {
        "http://apps.fz-juelich.de/scalasca/releases/scalasca/2.6/help/",
        "http://perftools.pages.jsc.fz-juelich.de/cicd/scalasca/tags/scalasca-2.6/patterns/",
        "http://perftools.pages.jsc.fz-juelich.de/cicd/scalasca/tags/latest/patterns/",
    };
    return mirrors;
}

} // namespace waitscope::report
