// findCallPathsBySuffix and the "did you mean" suggestions for call paths that match nothing.
#include <algorithm>
#include <cctype>
#include <waitscope/report/call_path_match.h>

namespace waitscope::report {

namespace {

std::string lowered(std::string_view text) {
    std::string result(text);
    std::transform(result.begin(), result.end(), result.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return result;
}

std::string_view lastComponent(std::string_view path) {
    size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

} // namespace

std::vector<CallNodeId> findCallPathsBySuffix(const Report& report, std::string_view path) {
    std::vector<CallNodeId> exact;
    std::vector<CallNodeId> suffix;
    if (path.empty())
        return exact;
    const auto& nodes = report.callNodes();
    for (CallNodeId c = 0; c < nodes.size(); ++c) {
        // Cheap test first: the node's own region must be the path's last component.
        if (report.regions()[nodes[c].region].name != lastComponent(path))
            continue;
        const std::string full = report.callPath(c);
        if (full == path)
            exact.push_back(c);
        else if (full.size() > path.size() && full.ends_with(path) &&
                 full[full.size() - path.size() - 1] == '/')
            suffix.push_back(c);
    }
    return exact.empty() ? suffix : exact;
}

std::vector<std::string> suggestCallPaths(const Report& report, std::string_view path,
                                          std::size_t limit) {
    const std::string wanted = lowered(lastComponent(path));
    std::vector<std::string> same;
    std::vector<std::string> containing;
    if (wanted.empty())
        return same;
    const auto& nodes = report.callNodes();
    for (CallNodeId c = 0; c < nodes.size(); ++c) {
        const std::string name = lowered(report.regions()[nodes[c].region].name);
        if (name == wanted && same.size() < limit)
            same.push_back(report.callPath(c));
        else if (name.find(wanted) != std::string::npos && containing.size() < limit)
            containing.push_back(report.callPath(c));
    }
    return same.empty() ? containing : same;
}

std::string noCallPathMessage(const Report& report, std::string_view path) {
    std::string message = "no call path '" + std::string(path) + "' in this report";
    const std::vector<std::string> candidates = suggestCallPaths(report, path);
    for (size_t i = 0; i < candidates.size(); ++i) {
        message += i == 0 ? "; did you mean '" : i + 1 == candidates.size() ? "' or '" : "', '";
        message += candidates[i];
    }
    if (!candidates.empty())
        message += "'?";
    return message;
}

} // namespace waitscope::report
