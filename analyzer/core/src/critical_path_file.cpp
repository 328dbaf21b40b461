// The critical path as text: one line per stretch on one location, in nanosecond resolution.
// Version 2 adds the location, "-" for the rank's main location or the OTF2 location id of the
// further thread the stretch runs on (the path through joined threads and through MPI called
// from several threads); version 1 files, without it, are read as on main locations.
#include "waitscope/analysis/critical_path_file.h"

#include "decimal_line.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

namespace waitscope::analysis {
namespace {

bool parseNode(const std::string& text, NodeId& node) {
    if (text == "-") {
        node = kNoNode;
        return true;
    }
    char* end = nullptr;
    const unsigned long value = std::strtoul(text.c_str(), &end, 10);
    node = static_cast<NodeId>(value);
    return !text.empty() && *end == '\0' && value < kNoNode;
}

} // namespace

Status writeCriticalPath(const AnalysisResult& result, const std::string& path) {
    std::vector<PathSegment> order = result.criticalPath();
    std::stable_sort(order.begin(), order.end(), [](const PathSegment& a, const PathSegment& b) {
        return a.start != b.start ? a.start < b.start : a.end < b.end;
    });
    const std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "w"), &std::fclose);
    if (!file) {
        return Error(path + ": cannot write");
    }
    std::fprintf(file.get(), "# waitscope critical path 2\n"
                             "# rank start end from-cnode to-cnode location (seconds; - for none; "
                             "location - for the rank's main location)\n");
    for (const PathSegment& s : order) {
        DecimalLine line;
        line.number(s.rank).seconds(s.start).seconds(s.end);
        for (const NodeId node : {s.from, s.to}) {
            if (node == kNoNode) {
                line.text("-");
            } else {
                line.number(node);
            }
        }
        if (s.location == PathSegment::kMainLocation) {
            line.text("-");
        } else {
            line.text(std::to_string(s.location));
        }
        line.writeTo(file.get());
    }
    if (std::ferror(file.get()) != 0) {
        return Error(path + ": cannot write");
    }
    return Status::success();
}

Result<std::vector<PathSegment>> readCriticalPath(const std::string& path) {
    std::ifstream in(path);
    if (!in) {
        return Error(path + ": cannot open");
    }
    std::vector<PathSegment> segments;
    std::string line;
    for (size_t number = 1; std::getline(in, line); ++number) {
        if (line.empty() || line[0] == '#') {
            continue;
        }
        std::istringstream fields(line);
        PathSegment s;
        std::string from;
        std::string to;
        std::string location;
        fields >> s.rank >> s.start >> s.end >> from >> to;
        bool ok = static_cast<bool>(fields) && parseNode(from, s.from) && parseNode(to, s.to);
        if (ok && fields >> location && location != "-") {
            char* end = nullptr;
            s.location = std::strtoull(location.c_str(), &end, 10);
            ok = *end == '\0' && s.location != PathSegment::kMainLocation &&
                 location.find_first_not_of("0123456789") == std::string::npos;
        }
        if (!ok) {
            return Error(path + ": line " + std::to_string(number) +
                         ": not 'rank start end from-cnode to-cnode [location]'");
        }
        segments.push_back(s);
    }
    return segments;
}

} // namespace waitscope::analysis
