// Loading the timeline from the trace: each location's events become visits per call depth;
// messages pair the n-th send of a channel (sender, receiver, communicator, tag) with its
// n-th receive, as MPI delivers them.
#include "timeline_data.h"

#include "flight_index.h"
#include "waitscope/analysis/critical_path_file.h"
#include "waitscope/analysis/region_class.h"
#include "waitscope/analysis/visit_stack.h"
#include "waitscope/analysis/wait_instances.h"
#include "waitscope/trace/otf2_archive.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <tuple>

namespace waitscope::timeline {
RegionKind kindOfRegion(const trace::Region& region) {
    using analysis::RegionClass;
    const RegionClass regionClass = analysis::classifyRegion(region);
    switch (regionClass) {
    case RegionClass::Computation:
        return RegionKind::Computation;
    case RegionClass::Overhead:
        return RegionKind::Measurement;
    case RegionClass::MpiPointToPoint:
        return RegionKind::PointToPoint;
    case RegionClass::MpiCollective:
        return RegionKind::Collective;
    case RegionClass::MpiBarrier:
    case RegionClass::MpiRmaSync:
        return RegionKind::Synchronization;
    case RegionClass::MpiIoIndividual:
    case RegionClass::MpiIoCollective:
        return RegionKind::Io;
    case RegionClass::MpiRmaCommunication:
        return RegionKind::OneSided;
    default:
        break;
    }
    if (analysis::isOpenmpClass(regionClass) || analysis::isPthreadClass(regionClass))
        return RegionKind::Threads;
    return RegionKind::Management;
}

namespace {

using Channel = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>;

struct MessageEnd {
    uint32_t row;
    double time;
    uint64_t bytes;
};

struct ChannelEnds {
    std::vector<MessageEnd> sends;
    std::vector<MessageEnd> receives;
};

// The partner's world rank, or the communicator rank itself where the definitions do not say.
uint32_t worldRank(const trace::Definitions& definitions, uint32_t comm, uint32_t partner,
                   uint32_t self) {
    const uint32_t world = definitions.worldRank(comm, partner, self);
    return world == trace::kUndefined ? partner : world;
}

} // namespace

const char* kindName(RegionKind kind) {
    static const char* const kNames[] = {
        "computation",   "MPI point-to-point", "MPI collective", "MPI synchronization", "MPI I/O",
        "MPI one-sided", "MPI management",     "measurement",    "OpenMP/threads"};
    return kNames[static_cast<size_t>(kind)];
}

Result<Timeline> Timeline::load(const std::string& experiment, const RowSink& sink) {
    auto archive = trace::readArchiveDefinitions(experiment);
    if (!archive) {
        return archive.error();
    }
    const std::string* anchor = &archive->anchor;
    const trace::Definitions* definitions = &archive->definitions;
    Timeline timeline;
    timeline.m_anchor = *anchor;
    for (const trace::Region& region : definitions->regions) {
        timeline.addRegion(region.name, kindOfRegion(region));
    }
    std::map<Channel, ChannelEnds> channels;
    // Collectives by (communicator, sequence number on it); each rank counts its own.
    std::map<std::pair<uint32_t, uint64_t>, size_t> collectiveOf;
    std::map<uint32_t, uint64_t> sequence;
    bool anyTime = false;
    const uint32_t ranks = definitions->rankCount();
    for (uint32_t rank = 0; rank < ranks; ++rank) {
        const std::vector<const trace::Location*> locations = definitions->locationsOfRank(rank);
        for (uint32_t t = 0; t < locations.size(); ++t) {
            auto events = trace::readLocationEvents(*anchor, *locations[t]);
            if (!events) {
                return events.error();
            }
            const trace::EventStream& stream = *events;
            timeline.m_events += stream.size();
            Row row{rank, t, locations[t]->name, {}, {}};
            const uint32_t group = locations[t]->group;
            if (group < definitions->locationGroups.size()) {
                const uint32_t node = definitions->locationGroups[group].systemTreeParent;
                if (node < definitions->systemTreeNodes.size()) {
                    row.node = definitions->systemTreeNodes[node].name;
                }
            }
            if (t == 0) {
                sequence.clear();
            }
            double collectiveBegin = 0.0;
            const auto rowIndex = static_cast<uint32_t>(timeline.m_rows.size());
            analysis::VisitStack open;
            const auto addVisit = [&row, definitions](size_t depth, uint64_t start, uint64_t end,
                                                      uint32_t region) {
                if (row.depths.size() <= depth) {
                    row.depths.resize(depth + 1);
                }
                row.depths[depth].push_back(
                    {definitions->seconds(start), definitions->seconds(end), region});
            };
            for (size_t e = 0; e < stream.size(); ++e) {
                const double time = definitions->seconds(stream.time(e));
                if (!anyTime || time < timeline.m_begin) {
                    timeline.m_begin = time;
                }
                if (!anyTime || time > timeline.m_end) {
                    timeline.m_end = time;
                }
                anyTime = true;
                if (open.apply(*definitions, stream, e, addVisit)) {
                    continue;
                }
                switch (stream.kind(e)) {
                case trace::EventKind::MpiCollectiveBegin:
                    collectiveBegin = time;
                    break;
                case trace::EventKind::MpiCollectiveEnd: {
                    const trace::CollectiveRecord& c = stream.collective(e);
                    if (t != 0 || (c.comm < definitions->communicators.size() &&
                                   definitions->communicators[c.comm].isSelf)) {
                        break;
                    }
                    const auto [it, fresh] = collectiveOf.try_emplace(
                        {c.comm, sequence[c.comm]++}, timeline.m_collectives.size());
                    if (fresh) {
                        timeline.m_collectives.push_back(
                            {collectiveBegin, collectiveBegin, time, open.innermost(), {}});
                    }
                    Collective& collective = timeline.m_collectives[it->second];
                    collective.start = std::min(collective.start, collectiveBegin);
                    collective.lastBegin = std::max(collective.lastBegin, collectiveBegin);
                    collective.end = std::max(collective.end, time);
                    collective.rows.push_back(rowIndex);
                    break;
                }
                case trace::EventKind::MpiSend:
                case trace::EventKind::MpiIsend: {
                    const trace::MessageRecord m = stream.message(e);
                    const uint32_t to = worldRank(*definitions, m.comm, m.partner, rank);
                    channels[{rank, to, m.comm, m.tag}].sends.push_back({rowIndex, time, m.length});
                    break;
                }
                case trace::EventKind::MpiRecv:
                case trace::EventKind::MpiIrecv: {
                    const trace::MessageRecord m = stream.message(e);
                    const uint32_t from = worldRank(*definitions, m.comm, m.partner, rank);
                    channels[{from, rank, m.comm, m.tag}].receives.push_back(
                        {rowIndex, time, m.length});
                    break;
                }
                default:
                    break;
                }
            }
            if (sink) {
                if (Status taken = sink(rowIndex, row); !taken) {
                    return taken.error();
                }
            }
            timeline.m_rows.push_back(std::move(row));
        }
    }
    for (const auto& [channel, ends] : channels) {
        const size_t paired = std::min(ends.sends.size(), ends.receives.size());
        for (size_t k = 0; k < paired; ++k) {
            timeline.m_messages.push_back({ends.sends[k].row, ends.receives[k].row,
                                           ends.sends[k].time, ends.receives[k].time,
                                           ends.sends[k].bytes});
        }
    }
    for (Collective& collective : timeline.m_collectives) {
        std::sort(collective.rows.begin(), collective.rows.end());
        if (collective.region >= timeline.m_regionNames.size()) {
            collective.region = 0;
        }
    }
    std::stable_sort(timeline.m_collectives.begin(), timeline.m_collectives.end(),
                     [](const Collective& a, const Collective& b) { return a.start < b.start; });
    timeline.m_flights.reset();
    // Stable: messages sent at the same time stay in channel order (the analyzer's caches are
    // these bytes too, timeline_collector.cpp).
    std::stable_sort(timeline.m_messages.begin(), timeline.m_messages.end(),
                     [](const Message& a, const Message& b) { return a.sendTime < b.sendTime; });
    if (Status findings = timeline.loadFindings(); !findings) {
        return findings.error();
    }
    return timeline;
}

Status Timeline::loadFindings() {
    // The indexed file is read per window; the text one (experiments analyzed before it was
    // written) is read whole into the same index in memory.
    const std::filesystem::path dir = std::filesystem::path(m_anchor).parent_path();
    const std::filesystem::path indexed = dir / analysis::kInstanceFile;
    const std::filesystem::path text = dir / analysis::kWaitInstancesFile;
    if (std::filesystem::exists(indexed)) {
        auto opened = analysis::InstanceFile::open(indexed.string());
        if (!opened) {
            return opened.error();
        }
        m_instances = std::make_shared<const analysis::InstanceFile>(std::move(*opened));
    } else if (std::filesystem::exists(text)) {
        auto read = analysis::readWaitInstances(text.string());
        if (!read) {
            return read.error();
        }
        m_instances = std::make_shared<const analysis::InstanceFile>(
            analysis::InstanceFile::fromInstances(*read, text.string()));
    }
    const std::filesystem::path path =
        std::filesystem::path(m_anchor).parent_path() / analysis::kCriticalPathFile;
    if (std::filesystem::exists(path)) {
        auto read = analysis::readCriticalPath(path.string());
        if (!read) {
            return read.error();
        }
        m_criticalPath = std::move(*read);
        // Stretches on further threads (the path through joined threads): their threads'
        // positions among their ranks' locations, as the rows are made.
        const bool onThreads =
            std::any_of(m_criticalPath.begin(), m_criticalPath.end(), [](const auto& s) {
                return s.location != analysis::PathSegment::kMainLocation;
            });
        m_pathThreads.clear();
        if (onThreads) {
            auto archive = trace::readArchiveDefinitions(m_anchor);
            if (!archive) {
                return archive.error();
            }
            const trace::Definitions& definitions = archive->definitions;
            for (uint32_t rank = 0; rank < definitions.rankCount(); ++rank) {
                const std::vector<const trace::Location*> locations =
                    definitions.locationsOfRank(rank);
                for (uint32_t t = 1; t < locations.size(); ++t) {
                    m_pathThreads.emplace(locations[t]->id, t);
                }
            }
        }
    }
    return Status::success();
}

void Timeline::takeEvents(Timeline&& window) {
    for (size_t r = 0; r < m_rows.size() && r < window.m_rows.size(); ++r) {
        m_rows[r].depths = std::move(window.m_rows[r].depths);
    }
    m_messages = std::move(window.m_messages);
    m_flights = std::move(window.m_flights); // built on the worker, or not yet
    m_collectives = std::move(window.m_collectives);
}

uint32_t Timeline::rowOfRank(uint32_t rank) const {
    for (uint32_t r = 0; r < m_rows.size(); ++r) {
        if (m_rows[r].rank == rank && m_rows[r].thread == 0) {
            return r;
        }
    }
    return 0;
}

uint32_t Timeline::rowOfPath(const analysis::PathSegment& stretch) const {
    if (stretch.location != analysis::PathSegment::kMainLocation) {
        const auto found = m_pathThreads.find(stretch.location);
        for (uint32_t r = 0; found != m_pathThreads.end() && r < m_rows.size(); ++r) {
            if (m_rows[r].rank == stretch.rank && m_rows[r].thread == found->second) {
                return r;
            }
        }
    }
    return rowOfRank(stretch.rank);
}

std::vector<Block> Timeline::visible(uint32_t row, size_t depth, double from, double to,
                                     double pixel) const {
    std::vector<Block> blocks;
    if (row >= m_rows.size() || depth >= m_rows[row].depths.size()) {
        return blocks;
    }
    const std::vector<Visit>& visits = m_rows[row].depths[depth];
    const auto endsAfter = [&visits](size_t first, double time) {
        return static_cast<size_t>(
            std::upper_bound(visits.begin() + static_cast<std::ptrdiff_t>(first), visits.end(),
                             time, [](double t, const Visit& v) { return t < v.end; }) -
            visits.begin());
    };
    // Visits at one depth do not overlap, so their ends are in order too.
    size_t i = endsAfter(0, from);
    const auto last = static_cast<size_t>(
        std::lower_bound(visits.begin() + static_cast<std::ptrdiff_t>(i), visits.end(), to,
                         [](const Visit& v, double t) { return v.start < t; }) -
        visits.begin());
    while (i < last) {
        // The block takes every following visit in the window that ends within a pixel of its
        // start.
        const size_t next = std::clamp(endsAfter(i, visits[i].start + pixel), i + 1, last);
        blocks.push_back({visits[i].start, visits[next - 1].end, visits[i].region,
                          static_cast<uint32_t>(next - i)});
        i = next;
    }
    return blocks;
}

void Timeline::indexMessages() const {
    if (!m_flights) {
        m_flights = std::make_shared<const FlightIndex>(m_messages);
    }
}

std::vector<const Message*> Timeline::visibleMessages(double from, double to) const {
    indexMessages();
    std::vector<size_t> found;
    m_messagesLookedAt = m_flights->find(m_messages, from, to, found);
    std::vector<const Message*> shown;
    shown.reserve(found.size());
    for (const size_t k : found) {
        shown.push_back(&m_messages[k]);
    }
    return shown;
}

uint32_t Timeline::addRow(Row row) {
    m_rows.push_back(std::move(row));
    return static_cast<uint32_t>(m_rows.size() - 1);
}

uint32_t Timeline::addRegion(std::string name, RegionKind kind) {
    m_regionNames.push_back(std::move(name));
    m_regionKinds.push_back(kind);
    return static_cast<uint32_t>(m_regionNames.size() - 1);
}

} // namespace waitscope::timeline
