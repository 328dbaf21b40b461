// Estimating a trace's size from a profile's visits per call path and region kind.
#include "trace_size_estimate.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <waitscope/experiment/attribute_keys.h>

namespace waitscope::analysis {

// Waitscope: evt files of example_{late_sender,wait_nxn,rank0_serial} (4 ranks): 320-340 bytes
// for 16 Enter/Leave, 0 or 5 messages, 6 or 16 collective records and 6 other records; the
// definitions were 4767 bytes for the 118 regions it always defined then, and about 303 bytes
// per rank. It always defines a region per wrapped MPI function (206 since file I/O and
// one-sided calls are recorded) and the buffer flush.
const EventSizes kWaitscopeSizes = {.format = "waitscope",
                                    .enterLeave = 8.3,
                                    .pointToPoint = 14.8,
                                    .collective = 8.5,
                                    .other = 8.3,
                                    .otherPerRank = 2.0,
                                    .filePerRank = 16.0,
                                    .defsPerRank = 303.0,
                                    .defsPerRegion = 40.4,
                                    .defsFixed = 81.0,
                                    .mpiRegionsAlwaysDefined = 207.0,
                                    // late_sender with WAITSCOPE_SAMPLING=true, 4 ranks;
                                    // +0.9 since enters and samples carry their unwind
                                    // distance (one byte more)
                                    .contextRecord = 15.6};
// Score-P 8.4: least-squares fit over the 28 event files of tests/data/reference/*/trace
// (largest error 1.5 %); 11150-11180 bytes of global definitions for 237 regions, 128 bytes of
// local definitions per rank and a 283-byte anchor.
// Score-P's profile lists every region it defined, so nothing is added for MPI regions.
const EventSizes kScorePSizes = {.format = "scorep",
                                 .enterLeave = 11.8,
                                 .pointToPoint = 15.5,
                                 .collective = 8.5,
                                 .other = 23.1,
                                 .otherPerRank = 3.0,
                                 .filePerRank = 0.0,
                                 .defsPerRank = 128.0,
                                 .defsPerRegion = 47.1,
                                 .defsFixed = 283.0,
                                 .mpiRegionsAlwaysDefined = 0.0,
                                 .contextRecord = 14.7};

namespace {

/// Events a visit of `region` writes, split by kind.
struct VisitEvents {
    double enterLeave = 2.0;
    double pointToPoint = 0.0;
    double collective = 0.0;
    double other = 0.0;
};

bool startsWith(const std::string& text, const char* prefix) {
    return text.rfind(prefix, 0) == 0;
}

VisitEvents eventsPerVisit(const report::Region& region, bool isRoot) {
    VisitEvents e;
    if (isRoot) {
        // The program itself: ProgramBegin/ProgramEnd, counted per rank in otherPerRank.
        e.enterLeave = 0.0;
        return e;
    }
    if (region.paradigm == "sampling") {
        // Unwound and sampled call paths: their calling-context records are counted apart
        // (contextRecords), not per visit.
        e.enterLeave = 0.0;
        return e;
    }
    if (region.paradigm != "mpi") {
        return e;
    }
    const std::string& name = region.name;
    const std::string& role = region.role;
    if (name == "MPI_Init" || name == "MPI_Init_thread" || name == "MPI_Finalize") {
        e.collective = 2.0; // communicator creation/destruction as a collective
        e.other = 2.0;      // MPI_COMM_WORLD and MPI_COMM_SELF
    } else if (startsWith(name, "MPI_Comm_dup") || startsWith(name, "MPI_Comm_split") ||
               startsWith(name, "MPI_Comm_create") || name == "MPI_Comm_free" ||
               name == "MPI_Cart_create" || name == "MPI_Cart_sub") {
        e.collective = 2.0;
        e.other = 1.0;
    } else if (role == "barrier" || role == "one2all" || role == "all2one" || role == "all2all" ||
               role == "other collective" || role == "other_collective") {
        e.collective = 2.0;
    } else if (startsWith(name, "MPI_Sendrecv")) {
        e.pointToPoint = 2.0;
    } else if (role == "point2point" || startsWith(name, "MPI_Wait") ||
               startsWith(name, "MPI_Test")) {
        e.pointToPoint = 1.0;
    }
    return e;
}

/// A region's name as listed: without a dynamic symbol's version ("memcpy@@GLIBC_2.14"), which
/// older measurements kept.
std::string listedName(const std::string& name) {
    const size_t version = name.find("@@");
    if (version != std::string::npos && version > 0)
        return name.substr(0, version);
    const size_t glibc = name.find("@GLIBC");
    return glibc != std::string::npos && glibc > 0 ? name.substr(0, glibc) : name;
}

std::string kindOf(const report::Region& region) {
    if (region.paradigm == "mpi") {
        return "MPI";
    }
    if (region.paradigm == "measurement") {
        return "MEASUREMENT";
    }
    if (region.paradigm == "compiler") {
        return "COM";
    }
    return "USR";
}

} // namespace

const EventSizes& sizesFor(const report::Report& profile) {
    for (const char* key : {"Creator", "creator"}) {
        if (const auto creator = profile.attribute(key); creator && creator->find("Score-P") == 0) {
            return kScorePSizes;
        }
    }
    return kWaitscopeSizes;
}

Result<TraceSizeEstimate> estimateTraceSize(const report::Report& profile,
                                            const EventSizes& sizes) {
    const auto visitsId = profile.findMetric("visits");
    if (!visitsId) {
        return Error("profile has no visits metric");
    }
    const auto timeId = profile.findMetric("time");
    TraceSizeEstimate estimate;
    estimate.sizes = &sizes;
    // Ranks: one column per location; a location's rank is its process's.
    std::vector<std::int64_t> rankOf;
    std::map<std::int64_t, size_t> rankIndex;
    for (report::LocationId loc = 0; loc < profile.locations().size(); ++loc) {
        std::optional<report::SystemNodeId> node = profile.locations()[loc];
        std::int64_t rank = loc;
        while (node) {
            const report::SystemNode& n = profile.systemNodes()[*node];
            if (n.kind == report::SystemKind::Process) {
                rank = n.rank;
                break;
            }
            node = n.parent;
        }
        rankOf.push_back(rank);
        rankIndex.emplace(rank, 0);
    }
    size_t next = 0;
    for (auto& [rank, index] : rankIndex) {
        index = next++;
    }
    const size_t ranks = rankIndex.size();
    estimate.bytesPerRank.assign(ranks, sizes.filePerRank + sizes.defsPerRank +
                                            sizes.otherPerRank * sizes.other);
    estimate.events = static_cast<double>(ranks) * sizes.otherPerRank;
    std::vector<double> timePerNode;
    if (timeId) {
        auto t = profile.callNodeValues(*timeId, report::CallTreeMode::Exclusive);
        if (!t) {
            return t.error().withContext("metric time");
        }
        timePerNode = std::move(*t);
    }
    // Regions of one name and kind are listed once (a function sampled in several modules or
    // files, or defined again by each rank's measurement).
    std::map<std::pair<std::string, std::string>, RegionEstimate> byRegion;
    for (report::CallNodeId n = 0; n < profile.callNodes().size(); ++n) {
        const report::CallNode& node = profile.callNodes()[n];
        const report::Region& region = profile.regions()[node.region];
        auto visits = profile.locationValues(*visitsId, n, report::CallTreeMode::Exclusive);
        if (!visits) {
            return visits.error().withContext("metric visits");
        }
        const VisitEvents e = eventsPerVisit(region, !node.parent.has_value());
        const double bytesPerVisit = e.enterLeave * sizes.enterLeave +
                                     e.pointToPoint * sizes.pointToPoint +
                                     e.collective * sizes.collective + e.other * sizes.other;
        const double eventsPerVisit = e.enterLeave + e.pointToPoint + e.collective + e.other;
        // The program itself (a root) is the whole run, not a region to list or filter: its
        // ProgramBegin/End records count per rank.
        const bool isRoot = !node.parent.has_value();
        const std::string name = listedName(region.name);
        // Functions on sampled or unwound call paths write calling-context records, counted
        // apart below; they are neither listed nor filtered (a filter does not reach them).
        const std::string kind = isRoot                          ? "PROGRAM"
                                 : region.paradigm == "sampling" ? "SAMPLED"
                                                                 : kindOf(region);
        RegionEstimate& r = byRegion[{name, kind}];
        r.name = name;
        r.mangledName = listedName(region.mangledName);
        r.kind = kind;
        r.filterable = r.kind == "USR" || r.kind == "COM";
        for (size_t loc = 0; loc < visits->size(); ++loc) {
            const double v = (*visits)[loc];
            estimate.bytesPerRank[rankIndex[rankOf[loc]]] += v * bytesPerVisit;
            estimate.eventBytes += v * bytesPerVisit;
            estimate.events += v * eventsPerVisit;
            r.visits += static_cast<std::uint64_t>(v);
            r.maxVisitsPerRank = std::max(r.maxVisitsPerRank, static_cast<std::uint64_t>(v));
            r.bytes += v * bytesPerVisit;
        }
        r.time += n < timePerNode.size() ? timePerNode[n] : 0.0;
    }
    estimate.eventBytes += static_cast<double>(ranks) * sizes.otherPerRank * sizes.other;
    // Hybrid measurement: the calling-context records (samples, MPI call paths) each rank
    // wrote, as its self-measurement carried into the report counts them.
    for (const auto& [key, value] : profile.attributes()) {
        static const std::string kPrefix(experiment::kMeasurementRankPrefix);
        static const std::string kSuffix = "." + std::string(experiment::kContextRecordsKey);
        if (key.size() <= kPrefix.size() + kSuffix.size() ||
            key.compare(0, kPrefix.size(), kPrefix) != 0 ||
            key.compare(key.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0) {
            continue;
        }
        const double records = std::strtod(value.c_str(), nullptr);
        const std::int64_t rank = std::strtoll(key.c_str() + kPrefix.size(), nullptr, 10);
        const auto it = rankIndex.find(rank);
        if (it != rankIndex.end()) {
            estimate.bytesPerRank[it->second] += records * sizes.contextRecord;
        }
        estimate.eventBytes += records * sizes.contextRecord;
        estimate.events += records;
    }
    double mpiRegions = 0.0;
    for (const report::Region& region : profile.regions()) {
        mpiRegions += region.paradigm == "mpi" ? 1.0 : 0.0;
    }
    const double regions = static_cast<double>(profile.regions().size()) - mpiRegions +
                           std::max(mpiRegions, sizes.mpiRegionsAlwaysDefined);
    estimate.definitionBytes =
        static_cast<double>(ranks) * (sizes.filePerRank + sizes.defsPerRank) +
        regions * sizes.defsPerRegion + sizes.defsFixed;
    estimate.totalBytes = estimate.eventBytes + estimate.definitionBytes;
    for (auto& [id, region] : byRegion) {
        if (region.visits > 0 && region.kind != "PROGRAM" && region.kind != "SAMPLED") {
            estimate.regions.push_back(std::move(region));
        }
    }
    std::stable_sort(
        estimate.regions.begin(), estimate.regions.end(),
        [](const RegionEstimate& a, const RegionEstimate& b) { return a.bytes > b.bytes; });
    return estimate;
}

} // namespace waitscope::analysis
