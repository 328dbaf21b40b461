// Writes the test archives of archive_builder.h with waitscope::trace's Otf2Writer.
#include "archive_builder.h"

#include <filesystem>
#include <vector>

namespace waitscope::testing {

ArchiveBuilder::ArchiveBuilder(uint32_t ranks, uint64_t ticksPerSecond, uint64_t length) {
    using namespace trace;
    Definitions& d = m_definitions;
    d.clock = {ticksPerSecond, 0, length};
    d.systemTreeNodes = {{"machine", "machine", kUndefined}, {"node", "node", 0}};
    std::vector<uint64_t> members;
    for (uint32_t r = 0; r < ranks; ++r) {
        d.locationGroups.push_back({"MPI Rank " + std::to_string(r), true, 1});
        d.locations.push_back({r, "Master thread", r, 0, LocationType::CpuThread});
        members.push_back(r);
    }
    d.groups = {{"", GroupKind::Locations, Paradigm::Mpi, members},
                {"", GroupKind::CommGroup, Paradigm::Mpi, members}};
    Communicator world;
    world.name = "MPI_COMM_WORLD";
    world.group = 1;
    d.communicators = {world};
}

uint32_t ArchiveBuilder::region(const std::string& name, trace::RegionRole role,
                                trace::Paradigm paradigm, const std::string& file,
                                uint32_t beginLine, uint32_t endLine) {
    m_definitions.regions.push_back({name, name, file, beginLine, endLine, role, paradigm});
    return static_cast<uint32_t>(m_definitions.regions.size() - 1);
}

uint64_t ArchiveBuilder::thread(uint32_t rank, uint32_t k, const std::string& name) {
    const uint64_t id = threadLocationId(rank, k);
    m_definitions.locations.push_back({id, name.empty() ? "thread " + std::to_string(k) : name,
                                       rank, 0, trace::LocationType::CpuThread});
    return id;
}

uint32_t ArchiveBuilder::commSelf() {
    using namespace trace;
    m_definitions.groups.push_back({"", GroupKind::CommSelf, Paradigm::Mpi, {}});
    Communicator self;
    self.name = "MPI_COMM_SELF";
    self.group = static_cast<uint32_t>(m_definitions.groups.size() - 1);
    m_definitions.communicators.push_back(self);
    return static_cast<uint32_t>(m_definitions.communicators.size() - 1);
}

void ArchiveBuilder::open(const std::string& dir) {
    namespace fs = std::filesystem;
    m_dir = dir;
    std::error_code ec;
    fs::remove_all(fs::path(dir) / "traces", ec);
    fs::remove(fs::path(dir) / "traces.otf2", ec);
    fs::remove(fs::path(dir) / "traces.def", ec);
    fs::create_directories(dir, ec);
    if (ec) {
        m_failure = Error(dir + ": cannot create the directory: " + ec.message());
        return;
    }
    m_writer = std::make_unique<trace::Otf2Writer>();
    m_failure = m_writer->open(dir);
}

void ArchiveBuilder::events(uint64_t location,
                            const std::function<void(trace::Otf2EventWriter&)>& write) {
    if (!m_failure) {
        return;
    }
    if (!m_writer) {
        m_failure = Error("events of location " + std::to_string(location) +
                          " written before the archive was opened");
        return;
    }
    trace::Otf2EventWriter w = m_writer->openEvents(location);
    if (!w.valid()) {
        m_failure =
            Error(m_dir + ": cannot open the event file of location " + std::to_string(location));
        return;
    }
    write(w);
    const uint64_t written = w.eventCount();
    if (const OTF2_ErrorCode closed = m_writer->closeEvents(w); closed != OTF2_SUCCESS) {
        m_failure = Error(m_dir + ": cannot close the event file of location " +
                          std::to_string(location) + ": " + trace::otf2ErrorText(closed));
        return;
    }
    for (trace::Location& defined : m_definitions.locations) {
        if (defined.id == location) {
            defined.announcedEvents = written;
        }
    }
}

Status ArchiveBuilder::finish(const std::function<Status(trace::Otf2Writer&)>& more) {
    if (!m_failure) {
        return m_failure;
    }
    if (!m_writer) {
        return Error("the archive was finished before it was opened");
    }
    std::vector<uint64_t> locations;
    for (const trace::Location& location : m_definitions.locations) {
        locations.push_back(location.id);
    }
    Status written = m_writer->writeLocalDefinitions(locations, {});
    if (written) {
        written = m_writer->writeGlobalDefinitions(m_definitions);
    }
    if (written && more) {
        written = more(*m_writer);
    }
    if (written) {
        written = m_writer->close();
    }
    if (!written) {
        return written;
    }
    if (m_writer->errors().count > 0) {
        return Error(m_dir + ": otf2 refused " + std::to_string(m_writer->errors().count) +
                     " writes; the first: " + trace::otf2ErrorText(m_writer->errors().first));
    }
    return Status::success();
}

void sendCall(trace::Otf2EventWriter& w, uint32_t region, uint64_t enter, uint64_t leave,
              uint32_t receiver, uint32_t tag, uint64_t bytes, uint32_t comm) {
    w.enter(enter, region);
    w.mpiSend(enter, receiver, comm, tag, bytes);
    w.leave(leave, region);
}

void receiveCall(trace::Otf2EventWriter& w, uint32_t region, uint64_t enter, uint64_t leave,
                 uint32_t sender, uint32_t tag, uint64_t bytes, uint32_t comm) {
    w.enter(enter, region);
    w.mpiRecv(leave, sender, comm, tag, bytes);
    w.leave(leave, region);
}

void barrierCall(trace::Otf2EventWriter& w, uint32_t region, uint64_t enter, uint64_t leave,
                 uint32_t comm) {
    w.enter(enter, region);
    w.mpiCollectiveBegin(enter);
    w.mpiCollectiveEnd(leave, trace::CollectiveOp::Barrier, comm, trace::kUndefined, 0, 0);
    w.leave(leave, region);
}

} // namespace waitscope::testing
