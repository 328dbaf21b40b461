// What the one-sided calls of a trace are, by name, and the counts and bytes of their records.
#include "rma_timeline.h"

#include <string_view>

namespace waitscope::analysis {
namespace {

bool startsWith(std::string_view name, std::string_view prefix) {
    return name.substr(0, prefix.size()) == prefix;
}

} // namespace

RmaCallKind rmaCallKind(const trace::Region& region) {
    const std::string_view name = region.name;
    if (name == "MPI_Win_create" || name == "MPI_Win_allocate" ||
        name == "MPI_Win_allocate_shared" || name == "MPI_Win_create_dynamic") {
        return RmaCallKind::Create;
    }
    if (name == "MPI_Win_free") {
        return RmaCallKind::Free;
    }
    if (name == "MPI_Win_fence") {
        return RmaCallKind::Fence;
    }
    if (name == "MPI_Win_post") {
        return RmaCallKind::Post;
    }
    if (name == "MPI_Win_start") {
        return RmaCallKind::Start;
    }
    if (name == "MPI_Win_complete") {
        return RmaCallKind::Complete;
    }
    if (name == "MPI_Win_wait" || name == "MPI_Win_test") {
        return RmaCallKind::Wait;
    }
    if (name == "MPI_Win_lock" || name == "MPI_Win_lock_all") {
        return RmaCallKind::Lock;
    }
    if (name == "MPI_Win_unlock" || name == "MPI_Win_unlock_all") {
        return RmaCallKind::Unlock;
    }
    if (region.paradigm == trace::Paradigm::Mpi &&
        (region.role == trace::RegionRole::Rma || region.role == trace::RegionRole::Atomic)) {
        return RmaCallKind::Transfer;
    }
    return RmaCallKind::Other;
}

uint8_t rmaSyncSide(const trace::Region& region) {
    const std::string_view name = region.name;
    if (name == "MPI_Win_fence" || name == "MPI_Win_post" || name == "MPI_Win_start" ||
        name == "MPI_Win_complete" || name == "MPI_Win_wait" || name == "MPI_Win_test") {
        return 1;
    }
    if (startsWith(name, "MPI_Win_lock") || startsWith(name, "MPI_Win_unlock") ||
        startsWith(name, "MPI_Win_flush") || name == "MPI_Win_sync") {
        return 2;
    }
    return 0;
}

void countRmaEvent(SeverityRows& s, NodeId node, trace::EventKind kind,
                   const trace::RmaRecord& record, RmaCallKind call) {
    using trace::EventKind;
    const auto transfer = [&](Metric count, uint64_t put, uint64_t get) {
        s.add(Metric::Comms, node, 1);
        s.add(Metric::CommsRma, node, 1);
        s.add(count, node, 1);
        if (put + get > 0) {
            s.add(Metric::Bytes, node, static_cast<double>(put + get));
            s.add(Metric::BytesRma, node, static_cast<double>(put + get));
        }
        if (put > 0) {
            s.add(Metric::BytesPut, node, static_cast<double>(put));
        }
        if (get > 0) {
            s.add(Metric::BytesGet, node, static_cast<double>(get));
        }
    };
    const auto sync = [&](Metric side) {
        s.add(Metric::Syncs, node, 1);
        s.add(Metric::SyncsRma, node, 1);
        s.add(side, node, 1);
    };
    switch (kind) {
    case EventKind::RmaPut:
        transfer(Metric::CommsRmaPuts, record.sent, 0);
        break;
    case EventKind::RmaGet:
        transfer(Metric::CommsRmaGets, 0, record.received);
        break;
    case EventKind::RmaAtomic:
        transfer(Metric::CommsRmaAtomics, record.sent, record.received);
        break;
    case EventKind::RmaCollectiveEnd:
        // A fence synchronizes; window creation and release are management.
        if (call == RmaCallKind::Fence) {
            sync(Metric::SyncsRmaActive);
        }
        break;
    case EventKind::RmaGroupSync:
        // MPI_Win_test that did not close the epoch synchronized nothing (sync level none).
        if (record.level != 0) {
            sync(Metric::SyncsRmaActive);
        }
        break;
    case EventKind::RmaRequestLock:
    case EventKind::RmaTryLock:
    case EventKind::RmaReleaseLock:
    case EventKind::RmaSync:
        sync(Metric::SyncsRmaPassive);
        break;
    default:
        break;
    }
}

} // namespace waitscope::analysis
