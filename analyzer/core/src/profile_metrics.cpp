// The metrics the profile counts per call: time by category, file operations, messages and
// collectives with their bytes (shared by the whole-rank and the windowed profile).
#include "profile_metrics.h"

#include "waitscope/analysis/call_path_rules.h"

namespace waitscope::analysis {

void addTime(RankState& state, SeverityRows& rows, NodeId node, uint32_t region, double seconds) {
    const RegionClass cls = state.classOf(region);
    addTimeSeverities(rows, cls, node, seconds);
    // One-sided synchronization split into active and passive target (traces with windows).
    if (state.rma && cls == RegionClass::MpiRmaSync && region < state.rma->syncSides.size()) {
        const uint8_t side = state.rma->syncSides[region];
        if (side != 0) {
            rows.add(side == 1 ? Metric::MpiRmaSyncActive : Metric::MpiRmaSyncPassive, node,
                     seconds);
        }
    }
}

// An MPI file operation (Scalasca's mpi_file_* counts, as Scalasca 2.6's derived metrics count
// them): every MPI_File_* call, one per call; collective are open, close, preallocate,
// seek_shared, sync and the names with _all, _ordered or _set (MPI_File_set_errhandler aside);
// reads and writes among the data transfers by name.
void countFileOperation(RankState& state, SeverityRows& s, NodeId node, uint32_t region) {
    const RegionClass c = state.classOf(region);
    if (c != RegionClass::MpiIoIndividual && c != RegionClass::MpiIoCollective &&
        c != RegionClass::MpiMgmtFile) {
        return;
    }
    const std::string& name = state.defs.regions[region].name;
    bool collective = c == RegionClass::MpiIoCollective;
    if (c == RegionClass::MpiMgmtFile) {
        collective = name.rfind("MPI_File_set_errhandler", 0) != 0 &&
                     (name == "MPI_File_open" || name == "MPI_File_close" ||
                      name == "MPI_File_preallocate" || name == "MPI_File_seek_shared" ||
                      name == "MPI_File_sync" || name.find("_set") != std::string::npos);
    }
    s.add(Metric::MpiFileOps, node, 1);
    s.add(collective ? Metric::MpiFileCops : Metric::MpiFileIops, node, 1);
    if (c == RegionClass::MpiMgmtFile) {
        return;
    }
    const bool read = name.find("read") != std::string::npos;
    s.add(collective ? (read ? Metric::MpiFileCrops : Metric::MpiFileCwops)
                     : (read ? Metric::MpiFileIrops : Metric::MpiFileIwops),
          node, 1);
}

void countMessage(SeverityRows& s, const CallSpan& span, bool send, uint64_t length) {
    if (length == 0) {
        s.add(Metric::Syncs, span.node, 1);
        s.add(Metric::SyncsP2p, span.node, 1);
        s.add(send ? Metric::SyncsSend : Metric::SyncsRecv, span.node, 1);
        return;
    }
    s.add(Metric::Comms, span.node, 1);
    s.add(Metric::CommsP2p, span.node, 1);
    s.add(send ? Metric::CommsSend : Metric::CommsRecv, span.node, 1);
    const double bytes = static_cast<double>(length);
    s.add(Metric::Bytes, span.node, bytes);
    s.add(Metric::BytesP2p, span.node, bytes);
    s.add(send ? Metric::BytesSent : Metric::BytesRcvd, span.node, bytes);
}

void countCollective(SeverityRows& s, const CallSpan& span, const trace::CollectiveRecord& c) {
    if (c.sent == 0 && c.received == 0) {
        s.add(Metric::Syncs, span.node, 1);
        s.add(Metric::SyncsColl, span.node, 1);
        return;
    }
    // By the bytes the call moved, whatever its root (as Scalasca 2.6 counts): both ways an
    // exchange, only out a source, only in a destination.
    Metric kind = Metric::CommsCxch;
    if (c.received == 0) {
        kind = Metric::CommsCsrc;
    } else if (c.sent == 0) {
        kind = Metric::CommsCdst;
    }
    s.add(Metric::Comms, span.node, 1);
    s.add(Metric::CommsColl, span.node, 1);
    s.add(kind, span.node, 1);
    s.add(Metric::Bytes, span.node, static_cast<double>(c.sent + c.received));
    s.add(Metric::BytesColl, span.node, static_cast<double>(c.sent + c.received));
    s.add(Metric::BytesCout, span.node, static_cast<double>(c.sent));
    s.add(Metric::BytesCin, span.node, static_cast<double>(c.received));
}

} // namespace waitscope::analysis
