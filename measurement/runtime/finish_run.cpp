// The end of a measured run: the events, unified definitions, profile, self-measurement and
// status written at MPI_Finalize (or at exit, for a run without MPI).
#include "finish_run.h"

#include "clock_offsets.h"
#include "experiment_directory.h"
#include "runtime_state.h"
#include "self_measurement.h"
#include "spill_file.h"
#include "unification.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace waitscope::measure {

namespace {

constexpr int kUnifyTag = 7301;

std::vector<std::uint32_t> mapIds(const DefinitionSet& global,
                                  const std::vector<std::string>& keys) {
    std::vector<std::uint32_t> map(keys.size());
    for (size_t i = 0; i < keys.size(); ++i)
        map[i] = static_cast<std::uint32_t>(global.find(keys[i]));
    return map;
}

/// Local communicator ids to global ones, which put parents first (commIdsParentsFirst).
std::vector<std::uint32_t> mapCommIds(const DefinitionSet& global,
                                      const std::vector<std::string>& keys) {
    std::vector<std::uint32_t> map = mapIds(global, keys);
    const std::vector<std::uint32_t> ids = commIdsParentsFirst(global);
    for (std::uint32_t& id : map)
        if (id < ids.size())
            id = ids[id];
    return map;
}

/// This thread's CPU seconds: on a loaded machine the write's own cost, without the time spent
/// waiting for a core.
double threadCpuSeconds() noexcept {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

} // namespace

void finishRun(RuntimeState& state, std::uint64_t leave) {
    RuntimeState* s = &state;
    // The unwound call path still open ends before the user regions around it.
    if (g_hot.sampling) {
        ensureRoom(kMaxRecordWords);
        g_hot.sampling->beforeUserEvent();
        g_hot.sampling = nullptr;
        leave = std::max(leave, g_hot.buffer.lastTime);
    }
    // User regions still open (main, and what called MPI_Finalize) end here: the trace ends.
    for (std::uint32_t d = std::min(g_hot.userDepth, kUserStackDepth); d > 0; --d) {
        ensureRoom(kMaxRecordWords);
        recordLeave(leave, g_hot.userStack[d - 1]);
    }
    g_hot.userDepth = 0;
    appendRecord(leave, EventKind::ProgramEnd, kUnknownExit);
    g_hot.recordMask = 0;
    s->finalized = true;
    s->lastTime = leave;

    std::uint64_t writeStart = now();
    const double writeCpuStart = threadCpuSeconds();
    // The chunks still waiting for the spill writer: written now (by this thread, mostly) and
    // translated for the trace (not read back later). Before the archive opens: the thread must
    // be done with the events by then.
    drainSpillWriter(*s, s->config.tracing);
    // Sampled threads' records (kept apart from the main thread's, each its own location).
    std::vector<ThreadRecords> threadRecords;
    if (sampledThreadRecords)
        threadRecords = sampledThreadRecords();
    if (addOpenmpThreadRecords)
        addOpenmpThreadRecords(threadRecords);
    std::vector<ProfileBuilder> threadProfiles;
    if (s->profile) {
        s->profile->consume(g_hot.buffer.begin, g_hot.buffer.cursor);
        s->profile->closeOpenRegions(leave);
        threadProfiles.resize(threadRecords.size());
        for (size_t k = 0; k < threadRecords.size(); ++k) {
            threadProfiles[k].consume(threadRecords[k].begin, threadRecords[k].end);
            threadProfiles[k].closeOpenRegions(leave);
        }
    }
    std::uint64_t events = g_hot.buffer.events;
    Status archive = Status::success();
    bool writeTrace = s->config.tracing;
    if (writeTrace) {
        // The ranks get here far apart when one translated a chunk more above: the first ones
        // wait asleep, not spinning in the archive's collective opening (up to a millisecond of
        // CPU per rank, issue 21).
        awaitEveryRank(s->comm);
        // Opening the archive is collective: every rank learns whether all could.
        archive = s->writer.open(s->directory, s->rank, s->pool, s->comm);
        int ok = archive.ok() ? 1 : 0, allOk = 0;
        reduceToAll(&ok, &allOk, 1, MPI_INT, sizeof(int), MPI_MIN, s->comm);
        writeTrace = allOk != 0;
        if (!writeTrace && archive.ok())
            archive = Error("another rank could not open the trace archive");
        if (!writeTrace)
            s->writer.abandon();
    }
    std::vector<ThreadLocation> threads; // sampled threads: each its own location
    if (writeTrace) {
        encodeSpilledRecords(*s);
        s->writer.write(g_hot.buffer.begin, g_hot.buffer.cursor);
        events = s->writer.eventsWritten();
        for (const ThreadRecords& t : threadRecords)
            threads.push_back({t.number, s->writer.writeThread(t.number, t.begin, t.end)});
    }
    g_hot.buffer.clear();
    s->self.finalizeWrite = now() - writeStart;
    s->self.finalizeWriteCpuSeconds = threadCpuSeconds() - writeCpuStart;
    measureClockOffset(*s);

    // Host names, for the system trees of trace and profile.
    char host[64] = {0};
    std::snprintf(host, sizeof(host), "%s", hostName().c_str());
    std::vector<char> hosts(s->rank == 0 ? 64u * s->size : 0);
    gatherToRoot(host, hosts.data(), 64, MPI_CHAR, 1, s->comm);
    std::vector<std::string> hostNames;
    for (int r = 0; s->rank == 0 && r < s->size; ++r)
        hostNames.emplace_back(&hosts[64u * r], strnlen(&hosts[64u * r], 64));

    GlobalDefinitions global;
    global.programPath = s->programPath;
    Status local = Status::success();
    Status globalStatus = Status::success();
    bool unified = true;
    if (writeTrace) {
        // Unify regions and communicators; each rank then maps its local ids to global ones.
        DefinitionSet regions, comms;
        std::vector<std::string> regionKeys, commKeys;
        for (const RegionDefinition& r : s->defs.regions()) {
            regionKeys.push_back(regionKey(r));
            regions.add(regionKeys.back(), {});
        }
        for (const CommDefinition& c : s->defs.comms()) {
            commKeys.push_back(commKeyBytes(c.key));
            comms.add(commKeys.back(), commDescription(c));
        }
        DefinitionSet contexts;
        std::vector<std::string> contextKeys;
        for (std::uint32_t c = 0; c < s->defs.callingContexts().size(); ++c) {
            contextKeys.push_back(callingContextKey(s->defs, c));
            contexts.add(contextKeys.back(), {});
        }
        unified = unifyDefinitionSet(regions, s->comm, kUnifyTag);
        unified = unifyDefinitionSet(comms, s->comm, kUnifyTag) && unified;
        unified = unifyDefinitionSet(contexts, s->comm, kUnifyTag) && unified;
        // One-sided communication: windows and the groups of their synchronization.
        DefinitionSet rmaWindows, rmaGroups;
        std::vector<std::string> rmaWindowKeys, rmaGroupKeys;
        for (const RmaWindowDefinition& w : s->defs.rmaWindows()) {
            rmaWindowKeys.push_back(rmaWindowKey(w));
            rmaWindows.add(rmaWindowKeys.back(), w.name);
        }
        for (const std::vector<std::uint32_t>& g : s->defs.rmaGroups()) {
            rmaGroupKeys.push_back(rmaGroupKey(g));
            rmaGroups.add(rmaGroupKeys.back(), {});
        }
        unified = unifyDefinitionSet(rmaWindows, s->comm, kUnifyTag) && unified;
        unified = unifyDefinitionSet(rmaGroups, s->comm, kUnifyTag) && unified;
        std::vector<std::uint32_t> rmaGroupMap = mapIds(rmaGroups, rmaGroupKeys);
        for (std::uint32_t& id : rmaGroupMap)
            id += firstRmaGroupId(comms.entries.size());
        DefinitionSet ioHandles;
        std::vector<std::string> ioHandleKeys;
        for (const IoHandleDefinition& h : s->defs.ioHandles()) {
            ioHandleKeys.push_back(ioHandleKey(h));
            ioHandles.add(ioHandleKeys.back(), {});
        }
        unified = unifyDefinitionSet(ioHandles, s->comm, kUnifyTag) && unified;
        // The rank's thread contingent, which its thread order records name (one per rank with
        // further threads, after the communicators: see writeGlobalDefinitions).
        if (!threads.empty())
            s->writer.setThreadContingent(threadContingentId(comms.entries.size(), s->rank));
        local = s->writer.writeLocalDefinitions(
            mapIds(regions, regionKeys), mapCommIds(comms, commKeys), mapIds(contexts, contextKeys),
            s->offsets, mapIds(rmaWindows, rmaWindowKeys), rmaGroupMap,
            mapIds(ioHandles, ioHandleKeys));
        global.ticksPerSecond = g_hot.clock.ticksPerSecond();
        unsigned long long first = s->firstTime, last = s->lastTime, globalFirst = 0,
                           globalLast = 0;
        reduceToAll(&first, &globalFirst, 1, MPI_UNSIGNED_LONG_LONG, sizeof(first), MPI_MIN,
                    s->comm);
        reduceToAll(&last, &globalLast, 1, MPI_UNSIGNED_LONG_LONG, sizeof(last), MPI_MAX, s->comm);
        global.globalOffset = globalFirst;
        global.traceLength = globalLast - globalFirst;
        std::vector<unsigned long long> counts(s->rank == 0 ? s->size : 0);
        unsigned long long myEvents = events;
        gatherToRoot(&myEvents, counts.data(), 1, MPI_UNSIGNED_LONG_LONG, sizeof(myEvents),
                     s->comm);
        // Every rank's thread locations (number, events), for the global location list.
        std::vector<unsigned long long> myThreads;
        for (const ThreadLocation& t : threads) {
            myThreads.push_back(t.number);
            myThreads.push_back(t.events);
        }
        std::vector<std::vector<unsigned long long>> allThreads =
            gatherVariableToRoot(myThreads, s->comm);
        if (s->rank == 0) {
            for (int r = 0; r < s->size; ++r) {
                const std::string& name = hostNames[static_cast<size_t>(r)];
                auto it = std::find(global.nodeNames.begin(), global.nodeNames.end(), name);
                RankSummary summary;
                summary.events = counts[r];
                summary.nodeIndex = static_cast<std::uint32_t>(it - global.nodeNames.begin());
                const std::vector<unsigned long long>& rankThreads = allThreads[r];
                for (size_t k = 0; k + 1 < rankThreads.size(); k += 2)
                    summary.threads.push_back(
                        {static_cast<std::uint32_t>(rankThreads[k]), rankThreads[k + 1]});
                if (it == global.nodeNames.end())
                    global.nodeNames.push_back(name);
                global.ranks.push_back(summary);
            }
            global.regions = std::move(regions);
            global.comms = std::move(comms);
            global.contexts = std::move(contexts);
            global.ioHandles = std::move(ioHandles);
            global.rmaWindows = std::move(rmaWindows);
            global.rmaGroups = std::move(rmaGroups);
            if (s->config.sampling)
                global.samplingPeriodNs = 1000000000ull / s->config.samplingFrequency;
            globalStatus = s->writer.writeGlobalDefinitions(global);
        }
    }
    Status profiled = Status::success();
    if (s->profile) {
        std::string program = s->programPath.substr(s->programPath.find_last_of('/') + 1);
        std::vector<ThreadProfile> threadLocations;
        for (size_t k = 0; k < threadProfiles.size(); ++k)
            threadLocations.push_back({threadRecords[k].number, &threadProfiles[k]});
        profiled = s->profile->write(s->directory + "/profile.cubex", s->defs.regions(),
                                     static_cast<double>(g_hot.clock.ticksPerSecond()), s->comm,
                                     hostNames, program, threadLocations);
    }
    Status closed = s->writer.close(); // nothing to close without a trace
    struct stat info;
    std::string eventFile = s->directory + "/traces/" + std::to_string(s->rank) + ".evt";
    if (stat(eventFile.c_str(), &info) == 0)
        s->self.traceBytes = static_cast<std::uint64_t>(info.st_size);
    s->self.finalizeMeasurement = now() - leave;
    writeMeasurementRecord(*s, global);

    std::string status = "complete\n";
    // A full disk is said once below, plainly, not as each OTF2 call that it made fail.
    const bool diskFull = g_diagnostics.otf2Errors > 0 && firstOtf2Error() == OTF2_ERROR_ENOSPC;
    for (const Status* st : {&archive, &local, &globalStatus, &closed, &profiled})
        if (!st->ok()) {
            status = "incomplete: " + st->error().message() + "\n";
            if (!diskFull)
                warn("rank " + std::to_string(s->rank) + ": " + st->error().message());
        }
    if (!unified) {
        status = "incomplete: definitions could not be unified\n";
        warn("rank " + std::to_string(s->rank) + ": definitions could not be unified");
    }
    // OTF2 counts its failed writes; the first one says why (a full disk, mostly).
    if (g_diagnostics.otf2Errors > 0 && writeTrace) {
        std::string why = firstOtf2Error() == OTF2_ERROR_ENOSPC
                              ? "no space left on device"
                              : OTF2_Error_GetDescription(firstOtf2Error());
        std::string text = why + " writing the trace in '" + s->directory + "' (" +
                           std::to_string(g_diagnostics.otf2Errors) + " failed OTF2 calls)";
        status = "incomplete: " + text + "\n";
        warn("rank " + std::to_string(s->rank) + ": " + text + "; the trace is incomplete");
    }
    if (s->writeErrno != 0) {
        std::string why = std::strerror(s->writeErrno);
        if (!why.empty())
            why[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(why[0])));
        std::string text = why + " writing '" + s->writeErrorPath + "'";
        status = "incomplete: " + text + "\n";
        warn("rank " + std::to_string(s->rank) + ": " + text + "; the experiment is incomplete");
    }
    writeStatus(*s, status);
    // A trace that lost writes is not an OTF2 archive any tool should read: without its anchor
    // the experiment is one of a failed run, which `waitscope recover` reads from the records
    // (kept below) once there is room again.
    int failedWrite = (s->writeErrno != 0 || (g_diagnostics.otf2Errors > 0 && writeTrace)) ? 1 : 0;
    int anyFailedWrite = 0;
    reduceToAll(&failedWrite, &anyFailedWrite, 1, MPI_INT, sizeof(int), MPI_MAX, s->comm);
    if (anyFailedWrite && s->rank == 0) {
        ::unlink((s->directory + "/traces.otf2").c_str());
        warn("the trace in '" + s->directory +
             "' is incomplete and was not finished; run `waitscope recover " + s->directory +
             "` when there is room again");
    }
    // A complete trace no longer needs the rank's records and definitions.
    if (status == "complete\n") {
        if (!s->spillPath.empty())
            ::unlink(s->spillPath.c_str());
        if (!s->encodedMarkPath.empty())
            ::unlink(s->encodedMarkPath.c_str());
        if (!s->runEventsPath.empty())
            ::unlink(s->runEventsPath.c_str()); // the archive's link to it stays
        if (!s->defsPath.empty())
            ::unlink(s->defsPath.c_str());
    }
    if (s->config.verbose && s->rank == 0)
        std::fprintf(stderr, "waitscope: experiment written to '%s' (%.3f s at finalize)\n",
                     s->directory.c_str(), seconds(s->self.finalizeMeasurement));
    s->self.finalizeLeave = now();
}

} // namespace waitscope::measure
