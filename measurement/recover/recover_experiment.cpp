// Recovery of a failed run's experiment: read, unify, cut, write, report.
#include "recover_experiment.h"

#include "consistent_cut.h"
#include "encoded_events.h"
#include "records_file.h"
#include "spill_file.h"
#include "trace_writer.h"
#include "waitscope/experiment/measurement_record.h"
#include "waitscope/measure/event_buffer.h"
#include "waitscope/measure/rank_definitions_file.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

namespace waitscope::measure {

namespace {

namespace fs = std::filesystem;

std::optional<std::string> readWhole(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return std::nullopt;
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

/// The bytes of `path` from `offset` on (none when the file is shorter).
std::optional<std::string> readFrom(const fs::path& path, std::uint64_t offset) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return std::nullopt;
    in.seekg(static_cast<std::streamoff>(offset));
    if (!in)
        return std::string();
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

/// Where the rank's events translated during the run end (spill_file.h), when it left a
/// whole mark.
std::optional<EncodedMark> readEncodedMark(const fs::path& path) {
    auto bytes = readWhole(path);
    EncodedMark mark;
    if (!bytes || bytes->size() != sizeof(mark))
        return std::nullopt;
    std::memcpy(&mark, bytes->data(), sizeof(mark));
    if (mark.magic != EncodedMark::kMagic)
        return std::nullopt;
    return mark;
}

/// Everything one rank left.
struct RankLeftovers {
    std::string status; ///< first line of ranks/<r>.status ("" when missing)
    std::optional<RankDefinitionsFile> defs;
    std::string defsError;
    std::vector<RecordEvent> events;
    std::string damage;
};

const char* signalName(int sig) {
    switch (sig) {
    case SIGSEGV:
        return "SIGSEGV";
    case SIGBUS:
        return "SIGBUS";
    case SIGFPE:
        return "SIGFPE";
    case SIGILL:
        return "SIGILL";
    case SIGABRT:
        return "SIGABRT";
    case SIGTERM:
        return "SIGTERM";
    default:
        return nullptr;
    }
}

/// How the rank ended, from its status: "died (SIGSEGV)", "called MPI_Abort (error code 7)".
std::string howItEnded(const std::string& status) {
    const std::string signalPrefix = "incomplete: signal ";
    const std::string abortPrefix = "incomplete: MPI_Abort with error code ";
    if (status.rfind(signalPrefix, 0) == 0) {
        const int sig = std::atoi(status.c_str() + signalPrefix.size());
        const char* name = signalName(sig);
        const std::string what = name ? name : "signal " + std::to_string(sig);
        return sig == SIGTERM ? "was terminated (" + what + ", the job was ended)"
                              : "died (" + what + ")";
    }
    if (status.rfind(abortPrefix, 0) == 0)
        return "called MPI_Abort (error code " + status.substr(abortPrefix.size()) + ")";
    if (status == "incomplete: running")
        return "was killed without a chance to save (SIGKILL, or its node failed)";
    if (status.empty())
        return "left no status";
    if (status == "complete")
        return "completed";
    const std::string incomplete = "incomplete: ";
    return "is incomplete (" +
           (status.rfind(incomplete, 0) == 0 ? status.substr(incomplete.size()) : status) + ")";
}

std::string secondsText(std::uint64_t ticks, std::uint64_t ticksPerSecond) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.6f s",
                  static_cast<double>(ticks) / static_cast<double>(ticksPerSecond));
    return text;
}

std::vector<std::uint32_t> mapKeys(const DefinitionSet& global,
                                   const std::vector<std::string>& keys) {
    std::vector<std::uint32_t> map(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i)
        map[i] = static_cast<std::uint32_t>(global.find(keys[i]));
    return map;
}

/// The events the rank keeps, with the regions and calling context still open closed at the
/// time of its last kept event, and its ProgramEnd.
std::vector<RecordEvent> closedPrefix(const std::vector<RecordEvent>& events, const RankCut& cut) {
    std::vector<RecordEvent> out;
    std::vector<std::uint32_t> open;
    std::optional<std::uint32_t> context;
    std::size_t contextDepth = 0; ///< regions open when the context was entered
    std::size_t next = 0;
    for (std::size_t i = 0; i < cut.kept; ++i) {
        if (next < cut.dropped.size() && cut.dropped[next] == i) {
            ++next;
            continue;
        }
        const RecordEvent& e = events[i];
        if (e.eventKind() == EventKind::ProgramEnd)
            break; // the run's own end: nothing after it is valid
        if (e.eventKind() == EventKind::Enter)
            open.push_back(e.a);
        else if (e.eventKind() == EventKind::Leave && !open.empty())
            open.pop_back();
        else if (e.eventKind() == EventKind::CallingContextEnter) {
            context = e.a;
            contextDepth = open.size();
        } else if (e.eventKind() == EventKind::CallingContextLeave)
            context.reset();
        out.push_back(e);
    }
    // The regions entered inside the open calling context (the MPI call) close first, then
    // the context, then the regions around it, as the measurement ends a run.
    const std::uint64_t end = out.empty() ? 0 : out.back().time;
    auto append = [&](EventKind kind, std::uint32_t a) {
        RecordEvent e;
        e.time = end;
        e.kind = static_cast<std::uint32_t>(kind);
        e.a = a;
        out.push_back(e);
    };
    while (!open.empty()) {
        if (context && open.size() <= contextDepth) {
            append(EventKind::CallingContextLeave, *context);
            context.reset();
        }
        append(EventKind::Leave, open.back());
        open.pop_back();
    }
    if (context)
        append(EventKind::CallingContextLeave, *context);
    if (!out.empty()) {
        RecordEvent programEnd;
        programEnd.time = end;
        programEnd.kind = static_cast<std::uint32_t>(EventKind::ProgramEnd);
        programEnd.a = kUnknownExit;
        out.push_back(programEnd);
    }
    return out;
}

} // namespace

Result<RecoveryReport> recoverExperiment(const std::string& directory) {
    const fs::path dir(directory);
    RecoveryReport report;
    std::error_code ec;
    if (fs::exists(dir / "traces.otf2", ec))
        return report; // the run wrote its trace: nothing to recover
    if (!fs::is_directory(dir / "ranks", ec))
        return Error(directory + ": no ranks/ directory: not an experiment of a failed run");
    // The job's size, from any rank's definitions.
    std::uint32_t size = 0;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir / "ranks", ec)) {
        if (entry.path().extension() != ".defs")
            continue;
        auto bytes = readWhole(entry.path());
        if (!bytes)
            continue;
        auto parsed = parseRankDefinitions(*bytes, entry.path().string());
        if (parsed)
            size = std::max(size, parsed->identity.size);
    }
    if (size == 0)
        return Error(directory + ": no rank left readable definitions (ranks/*.defs); the "
                                 "records cannot be named, nothing is recovered");

    std::vector<RankLeftovers> ranks(size);
    for (std::uint32_t r = 0; r < size; ++r) {
        RankLeftovers& rank = ranks[r];
        const fs::path base = dir / "ranks" / std::to_string(r);
        if (auto status = readWhole(base.string() + ".status"))
            rank.status = status->substr(0, status->find('\n'));
        auto defsBytes = readWhole(base.string() + ".defs");
        if (!defsBytes) {
            rank.defsError = base.string() + ".defs: missing";
        } else if (auto parsed = parseRankDefinitions(*defsBytes, base.string() + ".defs")) {
            if (parsed->identity.rank != r || parsed->identity.size != size)
                rank.defsError = base.string() + ".defs: belongs to rank " +
                                 std::to_string(parsed->identity.rank) + " of " +
                                 std::to_string(parsed->identity.size);
            else
                rank.defs = std::move(*parsed);
        } else {
            rank.defsError = parsed.error().message();
        }
        if (!rank.defs)
            continue; // records without names cannot be used
        // The chunks the spill writer kept as OTF2 events only, then the records after them
        // (their place before is a hole).
        std::uint64_t recordsFrom = 0, time = 0;
        if (auto mark = readEncodedMark(base.string() + ".records.encoded")) {
            const fs::path evt = base.string() + ".records.evt";
            auto encoded = readWhole(evt);
            if (!encoded || encoded->size() < mark->eventFileBytes) {
                rank.damage =
                    evt.string() + ": " +
                    (encoded ? "shorter than the " + std::to_string(mark->eventFileBytes) +
                                   " bytes its mark names"
                             : std::string("missing")) +
                    "; the events in it and after it are missing";
                continue;
            }
            encoded->resize(mark->eventFileBytes);
            RecordsRead read = readEncodedEvents(*encoded, mark->chunkBytes, rank.defs->defs);
            rank.events = std::move(read.events);
            if (!read.damage.empty()) {
                rank.damage = evt.string() + ": " + read.damage;
                continue; // the records after them would decode with a wrong time base
            }
            recordsFrom = mark->recordBytes;
            time = mark->decodeTime;
        }
        if (auto records = readFrom(base.string() + ".records", recordsFrom)) {
            RecordsRead read = readRecords(*records, rank.defs->defs, time);
            rank.events.insert(rank.events.end(), read.events.begin(), read.events.end());
            if (!read.damage.empty())
                rank.damage = base.string() + ".records: " + read.damage;
        }
    }

    // Unify the definitions of every rank that left them, as finalize would have.
    DefinitionSet regions, comms, contexts, windows, groups, handles;
    std::vector<std::vector<std::string>> regionKeys(size), commKeys(size), contextKeys(size),
        windowKeys(size), groupKeys(size), handleKeys(size);
    for (std::uint32_t r = 0; r < size; ++r) {
        if (!ranks[r].defs)
            continue;
        const Definitions& defs = ranks[r].defs->defs;
        for (const RegionDefinition& region : defs.regions()) {
            regionKeys[r].push_back(regionKey(region));
            regions.add(regionKeys[r].back(), {});
        }
        for (const CommDefinition& comm : defs.comms()) {
            commKeys[r].push_back(commKeyBytes(comm.key));
            comms.add(commKeys[r].back(), commDescription(comm));
        }
        for (std::uint32_t c = 0; c < defs.callingContexts().size(); ++c) {
            contextKeys[r].push_back(callingContextKey(defs, c));
            contexts.add(contextKeys[r].back(), {});
        }
        for (const RmaWindowDefinition& w : defs.rmaWindows()) {
            windowKeys[r].push_back(rmaWindowKey(w));
            windows.add(windowKeys[r].back(), w.name);
        }
        for (const std::vector<std::uint32_t>& g : defs.rmaGroups()) {
            groupKeys[r].push_back(rmaGroupKey(g));
            groups.add(groupKeys[r].back(), {});
        }
        for (const IoHandleDefinition& h : defs.ioHandles()) {
            handleKeys[r].push_back(ioHandleKey(h));
            handles.add(handleKeys[r].back(), {});
        }
    }
    if (regions.entries.size() > kOperandMask || comms.entries.size() > kOperandMask ||
        contexts.entries.size() > kOperandMask || windows.entries.size() > kOperandMask ||
        handles.entries.size() > kOperandMask)
        return Error(directory + ": too many definitions to recover");
    // Every rank's events in global ids; for the cut, a window's collectives (create, fence,
    // free) as collectives of its communicator.
    std::vector<std::vector<RecordEvent>> events(size), cutEvents(size);
    for (std::uint32_t r = 0; r < size; ++r) {
        const auto regionMap = mapKeys(regions, regionKeys[r]);
        const auto commMap = mapKeys(comms, commKeys[r]);
        const auto contextMap = mapKeys(contexts, contextKeys[r]);
        const auto windowMap = mapKeys(windows, windowKeys[r]);
        auto groupMap = mapKeys(groups, groupKeys[r]);
        for (std::uint32_t& id : groupMap)
            id += firstRmaGroupId(comms.entries.size());
        const auto handleMap = mapKeys(handles, handleKeys[r]);
        std::vector<std::uint32_t> windowComm;
        if (ranks[r].defs)
            for (const RmaWindowDefinition& w : ranks[r].defs->defs.rmaWindows())
                windowComm.push_back(static_cast<std::uint32_t>(comms.find(commKeyBytes(w.comm))));
        // A record naming a window, group or file defined after the definitions were last
        // saved cannot be named: left out.
        auto window = [&](std::uint64_t word, std::uint32_t& global) {
            const auto local = static_cast<std::uint32_t>(word);
            if (local >= windowMap.size())
                return false;
            global = windowMap[local];
            return true;
        };
        for (RecordEvent e : ranks[r].events) {
            RecordEvent cut = e;
            std::uint32_t global = 0;
            if (isRmaRecord(e.eventKind())) {
                switch (e.eventKind()) {
                case EventKind::RmaWinCreate:
                case EventKind::RmaWinDestroy:
                    if (e.a >= windowMap.size())
                        continue;
                    e.a = windowMap[e.a];
                    break;
                case EventKind::RmaCollectiveBegin:
                    break;
                case EventKind::RmaGroupSync: {
                    const auto group = static_cast<std::uint32_t>(e.x[0] >> 32);
                    if (!window(e.x[0], global) || group >= groupMap.size())
                        continue;
                    e.x[0] = packPair(global, groupMap[group]);
                    break;
                }
                default: // the window in the low half of the first word
                    if (!window(e.x[0], global))
                        continue;
                    if (e.eventKind() == EventKind::RmaCollectiveEnd) {
                        const std::uint32_t local = static_cast<std::uint32_t>(e.x[0]);
                        cut.kind = static_cast<std::uint32_t>(EventKind::MpiCollectiveEnd);
                        cut.x[0] = windowComm[local];
                    }
                    e.x[0] = packPair(global, static_cast<std::uint32_t>(e.x[0] >> 32));
                    break;
                }
                events[r].push_back(e);
                cutEvents[r].push_back(cut);
                continue;
            }
            switch (e.eventKind()) {
            case EventKind::Enter:
            case EventKind::Leave:
                e.a = regionMap[e.a];
                break;
            case EventKind::CommCreate:
            case EventKind::CommDestroy:
                e.a = commMap[e.a];
                break;
            case EventKind::CallingContextEnter:
            case EventKind::CallingContextLeave:
            case EventKind::CallingContextSample:
                e.a = contextMap[e.a];
                break;
            case EventKind::MpiSend:
            case EventKind::MpiIsend:
            case EventKind::MpiRecv:
            case EventKind::MpiIrecv:
            case EventKind::MpiCollectiveEnd:
            case EventKind::MpiCollectiveEndLarge:
            case EventKind::NbCollComplete:
                e.x[0] = packPair(commMap[static_cast<std::uint32_t>(e.x[0])],
                                  static_cast<std::uint32_t>(e.x[0] >> 32));
                break;
            case EventKind::IoCreateHandle:
            case EventKind::IoDestroyHandle:
            case EventKind::IoOperationBegin:
            case EventKind::IoOperationIssued:
            case EventKind::IoOperationComplete:
            case EventKind::IoSeek:
                if (e.a >= handleMap.size())
                    continue;
                e.a = handleMap[e.a];
                break;
            case EventKind::ThreadCreate:
            case EventKind::ThreadBegin:
            case EventKind::ThreadWait:
            case EventKind::ThreadEnd:
                // The threads' own records live in memory until finalize and are not
                // recovered, so the main thread's half of their order is left out too.
                continue;
            default:
                break;
            }
            events[r].push_back(e);
            cutEvents[r].push_back(e);
        }
    }
    std::vector<CutComm> cutComms;
    for (const auto& [key, description] : comms.entries) {
        CommDefinition comm = commFromEntry(key, description);
        CutComm c;
        c.self = comm.key == kSelfKey;
        if (comm.key == kWorldKey)
            for (std::uint32_t r = 0; r < size; ++r)
                c.members.push_back(r);
        else
            c.members = comm.members;
        cutComms.push_back(std::move(c));
    }
    const std::vector<RankCut> cuts = consistentCut(cutEvents, cutComms);
    cutEvents.clear();

    // Write the trace: one archive holding every rank, in global ids (no mapping tables).
    std::vector<std::vector<RecordEvent>> kept(size);
    std::uint64_t first = ~0ull, last = 0;
    for (std::uint32_t r = 0; r < size; ++r) {
        kept[r] = closedPrefix(events[r], cuts[r]);
        if (!kept[r].empty()) {
            first = std::min(first, kept[r].front().time);
            last = std::max(last, kept[r].back().time);
        }
    }
    if (first > last)
        first = last = 0;
    // Without its anchor, what an unfinished archive left (a full disk) is not a trace.
    fs::remove_all(dir / "traces", ec);
    fs::remove(dir / "traces.def", ec);
    TraceWriter writer;
    if (Status opened = writer.open(directory, 0, 4u << 20, MPI_COMM_NULL); !opened)
        return opened.error();
    // The records name global calling contexts: their unwind distances follow that tree.
    const std::vector<std::uint32_t> parents = contextParents(contexts);
    writer.setContextParents(&parents);
    GlobalDefinitions global;
    std::uint64_t ticksPerSecond = 0;
    for (std::uint32_t r = 0; r < size; ++r) {
        if (r > 0)
            global.ranks.back().events = writer.beginRank(static_cast<int>(r));
        const std::string encoded = encodeRecords(kept[r]);
        const auto* words = reinterpret_cast<const std::uint64_t*>(encoded.data());
        std::vector<std::uint64_t> aligned(words, words + encoded.size() / 8);
        writer.write(aligned.data(), aligned.data() + aligned.size());
        RankSummary summary;
        const std::string host = ranks[r].defs ? ranks[r].defs->identity.host : "unknown";
        auto it = std::find(global.nodeNames.begin(), global.nodeNames.end(), host);
        summary.nodeIndex = static_cast<std::uint32_t>(it - global.nodeNames.begin());
        if (it == global.nodeNames.end())
            global.nodeNames.push_back(host);
        global.ranks.push_back(summary);
        if (ranks[r].defs && ticksPerSecond == 0) {
            ticksPerSecond = ranks[r].defs->identity.ticksPerSecond;
            global.programPath = ranks[r].defs->identity.program;
        }
        report.keptEvents.push_back(0);
    }
    global.ranks.back().events = writer.eventsWritten();
    for (std::uint32_t r = 0; r < size; ++r)
        report.keptEvents[r] = global.ranks[r].events;
    if (Status local = writer.writeLocalDefinitions({}, {}, {}, {}); !local)
        return local.error();
    global.ticksPerSecond = ticksPerSecond;
    global.globalOffset = first;
    global.traceLength = last - first;
    global.regions = std::move(regions);
    global.comms = std::move(comms);
    global.contexts = std::move(contexts);
    global.rmaWindows = std::move(windows);
    global.rmaGroups = std::move(groups);
    global.ioHandles = std::move(handles);
    if (Status written = writer.writeGlobalDefinitions(global); !written)
        return written.error();
    if (Status closed = writer.close(); !closed)
        return closed.error();
    report.recovered = true;

    // What was lost, rank by rank.
    for (std::uint32_t r = 0; r < size; ++r) {
        const RankLeftovers& rank = ranks[r];
        const std::string who = "rank " + std::to_string(r);
        if (!rank.defs) {
            report.notes.push_back(who + " " + howItEnded(rank.status) +
                                   ": all its events are missing (" + rank.defsError + ")");
            continue;
        }
        if (!rank.damage.empty())
            report.notes.push_back(who + ": " + rank.damage + "; the events before it are kept");
        if (rank.status != "complete") {
            std::string line = who + " " + howItEnded(rank.status) + " after " +
                               std::to_string(rank.events.size()) + " events";
            if (!rank.events.empty() && rank.events.back().time >= first)
                line += ": its events after " +
                        secondsText(rank.events.back().time - first, ticksPerSecond) +
                        " are missing";
            report.notes.push_back(line);
        }
        const std::size_t lost = events[r].size() - cuts[r].kept;
        if (lost > 0) {
            const std::uint64_t from = events[r][cuts[r].kept].time;
            report.notes.push_back(who + ": its last " + std::to_string(lost) + " events (from " +
                                   secondsText(from > first ? from - first : 0, ticksPerSecond) +
                                   ") are left out: they wait for events that other ranks lost");
        }
        if (cuts[r].droppedMessages > 0)
            report.notes.push_back(who + ": " + std::to_string(cuts[r].droppedMessages) +
                                   " messages whose other end is missing are left out");
    }
    std::ofstream notes(dir / kRecoveryFile);
    for (const std::string& note : report.notes)
        notes << note << '\n';
    if (!notes)
        return Error((dir / kRecoveryFile).string() + ": cannot write");
    // The replay and `analyze -a` read the job's size and clock here; the report carries
    // its entries, so the notes travel with it (the summary lists them).
    experiment::RecoveryEntries recovery;
    recovery.program = global.programPath;
    recovery.ranks = size;
    recovery.ticksPerSecond = ticksPerSecond;
    recovery.keptEvents = report.keptEvents;
    recovery.notes = report.notes;
    if (Status written = experiment::appendRecoveryEntries(
            (dir / experiment::kMeasurementRecordFile).string(), recovery);
        !written)
        return written.error();
    return report;
}

} // namespace waitscope::measure
