// Call path search by suffix: each node is checked upwards for at most as many levels as the
// suffix has components, so the whole search is linear in the tree (no path strings built).
#include <algorithm>
#include <cctype>
#include <string>
#include <waitscope/report/call_path_search.h>

namespace waitscope::report {
namespace {

// Splits "a/b/c" into its components; false if one is empty.
bool splitPath(std::string_view path, std::vector<std::string_view>& parts) {
    parts.clear();
    std::size_t pos = 0;
    while (pos <= path.size()) {
        std::size_t end = path.find('/', pos);
        if (end == std::string_view::npos)
            end = path.size();
        if (end == pos)
            return false;
        parts.push_back(path.substr(pos, end - pos));
        pos = end + 1;
    }
    return !parts.empty();
}

std::string lowered(std::string_view text) {
    std::string out(text);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

} // namespace

std::vector<CallNodeId> findCallPathsBySuffix(const Report& report, std::string_view suffix) {
    std::vector<CallNodeId> found;
    bool anchored = !suffix.empty() && suffix.front() == '/';
    if (anchored)
        suffix.remove_prefix(1);
    std::vector<std::string_view> parts;
    if (!splitPath(suffix, parts))
        return found;
    const auto& nodes = report.callNodes();
    const auto& regions = report.regions();
    auto nameOf = [&](CallNodeId c) -> std::string_view {
        RegionId r = nodes[c].region;
        return r < regions.size() ? std::string_view(regions[r].name) : std::string_view();
    };
    for (CallNodeId c = 0; c < nodes.size(); ++c) {
        if (nameOf(c) != parts.back())
            continue;
        std::optional<CallNodeId> at = c;
        bool match = true;
        for (std::size_t k = parts.size() - 1; k > 0; --k) {
            at = nodes[*at].parent;
            if (!at || nameOf(*at) != parts[k - 1]) {
                match = false;
                break;
            }
        }
        if (match && anchored && nodes[*at].parent)
            match = false;
        if (match)
            found.push_back(c);
    }
    return found;
}

std::vector<CallNodeId> suggestCallPaths(const Report& report, std::string_view path,
                                         std::size_t limit) {
    std::vector<CallNodeId> out;
    if (limit == 0)
        return out;
    std::string_view last = path.substr(
        path.find_last_of('/') == std::string_view::npos ? 0 : path.find_last_of('/') + 1);
    if (last.empty())
        return out;
    const auto& nodes = report.callNodes();
    const auto& regions = report.regions();
    std::string wanted = lowered(last);
    // Passes from close to loose: the same name, a name containing the wanted one, a name
    // the wanted one contains (a typo at the end: "MPI_Recvx").
    for (int pass = 0; pass < 3 && out.empty(); ++pass) {
        for (CallNodeId c = 0; c < nodes.size() && out.size() < limit; ++c) {
            if (nodes[c].region >= regions.size())
                continue;
            std::string name = lowered(regions[nodes[c].region].name);
            bool close = pass == 0   ? name == wanted
                         : pass == 1 ? name.find(wanted) != std::string::npos
                                     : name.size() >= 3 && wanted.find(name) != std::string::npos;
            if (close)
                out.push_back(c);
        }
    }
    return out;
}

} // namespace waitscope::report
