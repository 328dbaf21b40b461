// Choosing regions to filter and writing them in the Score-P filter syntax.
#include "filter_suggestion.h"

#include <cstdio>

namespace waitscope::analysis {

std::vector<const RegionEstimate*> regionsToFilter(const TraceSizeEstimate& estimate,
                                                   double minShare, double maxTimePerVisit,
                                                   std::uint64_t minVisitsPerRank) {
    std::vector<const RegionEstimate*> out;
    for (const RegionEstimate& r : estimate.regions) {
        if (r.filterable && estimate.eventBytes > 0 && r.maxVisitsPerRank >= minVisitsPerRank &&
            r.bytes >= minShare * estimate.eventBytes && r.timePerVisit() < maxTimePerVisit) {
            out.push_back(&r);
        }
    }
    return out;
}

std::string filterFileText(const TraceSizeEstimate& estimate,
                           const std::vector<const RegionEstimate*>& regions) {
    std::string text = "# Suggested by waitscope score: short, frequently called regions whose\n"
                       "# events dominate the trace. Review before use; pass it with\n"
                       "# `waitscope analyze -f FILE` (or SCOREP_FILTERING_FILE for Score-P).\n";
    char line[512];
    std::snprintf(line, sizeof line,
                  "# estimated trace: %.0f bytes; these regions: ", estimate.totalBytes);
    text += line;
    double saved = 0.0;
    for (const RegionEstimate* r : regions) {
        saved += r->bytes;
    }
    std::snprintf(line, sizeof line, "%.0f bytes\n", saved);
    text += line;
    text += "SCOREP_REGION_NAMES_BEGIN\n";
    if (regions.empty()) {
        text += "  # no region qualifies: nothing to exclude\n";
    }
    for (const RegionEstimate* r : regions) {
        std::snprintf(line, sizeof line, "  # %llu visits, %.0f bytes, %.3g us per visit\n",
                      static_cast<unsigned long long>(r->visits), r->bytes,
                      r->timePerVisit() * 1e6);
        text += line;
        // Filter patterns end at white space, so a name with blanks (a C++ signature such as
        // "add(double, double)") is excluded by its mangled name, as scorep-score does.
        if (r->name.find_first_of(" \t") == std::string::npos)
            text += "  EXCLUDE " + r->name + "\n";
        else if (!r->mangledName.empty() &&
                 r->mangledName.find_first_of(" \t") == std::string::npos)
            text += "  EXCLUDE MANGLED " + r->mangledName + "\n";
        else
            text += "  # (no pattern: the name has blanks and no mangled name is known)\n";
    }
    text += "SCOREP_REGION_NAMES_END\n";
    return text;
}

} // namespace waitscope::analysis
