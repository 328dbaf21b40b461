// Time categories of regions and calling-context paths, for every profiled location.
#include "waitscope/analysis/call_path_rules.h"

#include <algorithm>

namespace waitscope::analysis {

namespace {

/// The OpenMP part of addTimeSeverities: below OpenMP, the category of the class.
void addOpenmpTimeSeverities(SeverityRows& s, RegionClass cls, NodeId node, double seconds) {
    s.add(Metric::OmpTime, node, seconds);
    if (cls == RegionClass::OmpFork) {
        s.add(Metric::OmpManagement, node, seconds);
        s.add(Metric::OmpFork, node, seconds);
        return;
    }
    if (cls == RegionClass::OmpFlush) {
        s.add(Metric::OmpFlush, node, seconds);
        return;
    }
    s.add(Metric::OmpSynchronization, node, seconds);
    switch (cls) {
    case RegionClass::OmpExplicitBarrier:
        s.add(Metric::OmpBarrier, node, seconds);
        s.add(Metric::OmpEbarrier, node, seconds);
        break;
    case RegionClass::OmpImplicitBarrier:
        s.add(Metric::OmpBarrier, node, seconds);
        s.add(Metric::OmpIbarrier, node, seconds);
        break;
    case RegionClass::OmpCritical:
        s.add(Metric::OmpCritical, node, seconds);
        break;
    case RegionClass::OmpLockApi:
        s.add(Metric::OmpLockApi, node, seconds);
        break;
    case RegionClass::OmpOrdered:
        s.add(Metric::OmpOrdered, node, seconds);
        break;
    case RegionClass::OmpTaskwait:
        s.add(Metric::OmpTaskwait, node, seconds);
        break;
    default:
        break;
    }
}

/// The POSIX threads part of addTimeSeverities. Without lock acquire and release events the
/// time of a lock call, or of a condition wait, is all waiting: an uncontended mutex is taken at
/// once, and a condition wait ends when another thread signalled and released the mutex.
void addPthreadTimeSeverities(SeverityRows& s, RegionClass cls, NodeId node, double seconds) {
    s.add(Metric::PthreadTime, node, seconds);
    if (cls == RegionClass::PthreadManagement) {
        s.add(Metric::PthreadManagement, node, seconds);
        return;
    }
    s.add(Metric::PthreadSynchronization, node, seconds);
    switch (cls) {
    case RegionClass::PthreadMutexLock:
        s.add(Metric::PthreadLockApi, node, seconds);
        s.add(Metric::PthreadLockContentionMutexLock, node, seconds);
        break;
    case RegionClass::PthreadMutex:
        s.add(Metric::PthreadLockApi, node, seconds);
        break;
    case RegionClass::PthreadCondWait:
        s.add(Metric::PthreadConditional, node, seconds);
        s.add(Metric::PthreadLockContentionConditional, node, seconds);
        break;
    case RegionClass::PthreadCondition:
        s.add(Metric::PthreadConditional, node, seconds);
        break;
    default:
        break;
    }
}

} // namespace

void addTimeSeverities(SeverityRows& s, RegionClass cls, NodeId node, double seconds) {
    s.add(Metric::Time, node, seconds);
    if (cls == RegionClass::Overhead) {
        s.add(Metric::Overhead, node, seconds);
        return;
    }
    s.add(Metric::Execution, node, seconds);
    if (cls == RegionClass::Computation) {
        s.add(Metric::Comp, node, seconds);
        return;
    }
    if (isOpenmpClass(cls)) {
        addOpenmpTimeSeverities(s, cls, node, seconds);
        return;
    }
    if (isPthreadClass(cls)) {
        addPthreadTimeSeverities(s, cls, node, seconds);
        return;
    }
    s.add(Metric::Mpi, node, seconds);
    switch (cls) {
    case RegionClass::MpiInit:
    case RegionClass::MpiFinalize:
        s.add(Metric::MpiManagement, node, seconds);
        s.add(Metric::MpiInitExit, node, seconds);
        break;
    case RegionClass::MpiMgmtComm:
        s.add(Metric::MpiManagement, node, seconds);
        s.add(Metric::MpiMgmtComm, node, seconds);
        break;
    case RegionClass::MpiMgmtFile:
        s.add(Metric::MpiManagement, node, seconds);
        s.add(Metric::MpiMgmtFile, node, seconds);
        break;
    case RegionClass::MpiMgmtWin:
        s.add(Metric::MpiManagement, node, seconds);
        s.add(Metric::MpiMgmtWin, node, seconds);
        break;
    case RegionClass::MpiBarrier:
        s.add(Metric::MpiSynchronization, node, seconds);
        s.add(Metric::MpiSyncCollective, node, seconds);
        break;
    case RegionClass::MpiRmaSync:
        s.add(Metric::MpiSynchronization, node, seconds);
        s.add(Metric::MpiRmaSynchronization, node, seconds);
        break;
    case RegionClass::MpiPointToPoint:
        s.add(Metric::MpiCommunication, node, seconds);
        s.add(Metric::MpiPointToPoint, node, seconds);
        break;
    case RegionClass::MpiCollective:
        s.add(Metric::MpiCommunication, node, seconds);
        s.add(Metric::MpiCollective, node, seconds);
        break;
    case RegionClass::MpiRmaCommunication:
        s.add(Metric::MpiCommunication, node, seconds);
        s.add(Metric::MpiRmaCommunication, node, seconds);
        break;
    case RegionClass::MpiIoIndividual:
        s.add(Metric::MpiIo, node, seconds);
        s.add(Metric::MpiIoIndividual, node, seconds);
        break;
    case RegionClass::MpiIoCollective:
        s.add(Metric::MpiIo, node, seconds);
        s.add(Metric::MpiIoCollective, node, seconds);
        break;
    default:
        break;
    }
}

SampledOpenmpPaths::SampledOpenmpPaths(const trace::Definitions& definitions, bool master)
    : m_defs(definitions), m_kinds(definitions.regions.size(), kOther), m_master(master) {
    const auto startsWith = [](std::string_view text, std::string_view prefix) {
        return text.substr(0, prefix.size()) == prefix;
    };
    bool openmp = false;
    bool runtime = false;
    for (size_t r = 0; r < definitions.regions.size(); ++r) {
        const trace::Region& region = definitions.regions[r];
        if (region.paradigm == trace::Paradigm::OpenMp) {
            openmp = true;
            m_kinds[r] = region.role == trace::RegionRole::Parallel       ? kParallel
                         : region.role == trace::RegionRole::ThreadCreate ? kFork
                                                                          : kConstruct;
            continue;
        }
        const std::string_view file = region.file;
        const std::string_view module = file.substr(file.rfind('/') + 1);
        // LLVM's and Intel's runtime, GCC's; the frames of system libraries and of the
        // measurement (its wrappers of the runtime's lock and condition calls) below them.
        if (startsWith(module, "libomp") || startsWith(module, "libiomp") ||
            startsWith(module, "libgomp")) {
            m_kinds[r] = kRuntime;
            runtime = true;
        } else if (startsWith(file, "/usr/") || startsWith(file, "/lib") ||
                   startsWith(module, "libwaitscope")) {
            m_kinds[r] = kSystem;
        }
    }
    m_enabled = openmp && runtime;
}

void SampledOpenmpPaths::cutInsideConstruct(std::vector<uint32_t>& path) const {
    const auto last = std::find_if(path.rbegin(), path.rend(),
                                   [this](uint32_t r) { return kindOf(r) == kRuntime; });
    if (last == path.rend()) {
        return; // no runtime frame: a path of its own
    }
    path.erase(path.begin(), last.base());
    if (!path.empty() && kindOf(path.front()) == kSystem) {
        path.clear(); // the runtime's own waiting
    }
}

std::vector<uint32_t> SampledOpenmpPaths::runtimeCaller(uint32_t context) const {
    bool unknown = false;
    std::vector<uint32_t> path = callingContextPath(m_defs, context, unknown);
    const auto runtime = std::find_if(path.begin(), path.end(),
                                      [this](uint32_t r) { return kindOf(r) == kRuntime; });
    path.erase(runtime == path.end() ? path.begin() : runtime, path.end());
    return path;
}

std::vector<uint32_t> SampledOpenmpPaths::forkPath(const trace::EventStream& events, size_t i,
                                                   uint32_t region) {
    using trace::EventKind;
    // A few events on: the region's first sample, or the parallel region after a fork.
    constexpr size_t kLookahead = 256;
    const auto isContext = [&events](size_t j) {
        return events.kind(j) == EventKind::CallingContextSample ||
               events.kind(j) == EventKind::CallingContextEnter;
    };
    if (isFork(region)) {
        for (size_t j = i + 1; j < events.size() && j <= i + kLookahead; ++j) {
            if (events.kind(j) == EventKind::Enter && isParallel(events.ref(j))) {
                return forkPath(events, j, events.ref(j));
            }
        }
        return {};
    }
    // The first sampled path inside an instance of the region that runs through the runtime:
    // in this instance (a few events on), or the last one found, or once per region in any
    // later instance.
    const bool searched = m_forkPaths.count(region) > 0;
    const size_t end = searched ? std::min(events.size(), i + kLookahead + 1) : events.size();
    uint32_t depth = 1;
    for (size_t j = i + 1; j < end; ++j) {
        if (events.kind(j) == EventKind::Enter && events.ref(j) == region) {
            ++depth;
        } else if (events.kind(j) == EventKind::Leave && events.ref(j) == region && depth > 0) {
            --depth;
        } else if (depth > 0 && isContext(j)) {
            if (std::vector<uint32_t> path = runtimeCaller(events.ref(j)); !path.empty()) {
                m_forkPaths[region] = path;
                return path;
            }
        }
        if (depth == 0 && searched) {
            break; // this instance is over
        }
    }
    m_forkPaths.emplace(region, std::vector<uint32_t>{}); // searched: none yet
    return m_forkPaths[region];
}

std::vector<uint32_t> callingContextPath(const trace::Definitions& defs, uint32_t context,
                                         bool& unknown) {
    std::vector<uint32_t> path;
    // The length bound guards against parent cycles in a damaged trace.
    for (uint32_t c = context; c < defs.callingContexts.size() && path.size() < 4096;
         c = defs.callingContexts[c].parent) {
        path.push_back(defs.callingContexts[c].region);
    }
    unknown = context != trace::kUndefined && context >= defs.callingContexts.size();
    std::reverse(path.begin(), path.end());
    return path;
}

} // namespace waitscope::analysis
