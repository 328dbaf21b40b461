// End-to-end tests of libwaitscope.so: real mpirun runs of small programs, traces checked
// through otf2-print (the standard OTF2 tool) and the experiment's own files.
#include "trace_text.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <waitscope/report/cubex_reader.h>
#include <waitscope/report/report.h>

using namespace waitscope::test;
namespace fs = std::filesystem;

namespace {

std::string anchorOf(const std::string& dir) {
    return dir + "/traces.otf2";
}

/// Runs `program` under the measurement into `dir`/exp and returns the run's result.
CommandResult measure(const std::string& dir, const std::string& program, int ranks = 4,
                      const std::string& args = {}, std::vector<std::string> env = {},
                      bool preload = true) {
    env.push_back("WAITSCOPE_EXPERIMENT_DIRECTORY=" + dir + "/exp");
    return runCommand(mpirunCommand(ranks, env, program, args, preload));
}

void requireMonotonic(const std::vector<TraceEvent>& events) {
    std::map<int, std::uint64_t> last;
    for (const TraceEvent& e : events) {
        auto it = last.find(e.location);
        if (it != last.end())
            REQUIRE(e.time >= it->second);
        last[e.location] = e.time;
    }
}

void requireComplete(const std::string& exp, int ranks) {
    for (int r = 0; r < ranks; ++r)
        REQUIRE(readFile(exp + "/ranks/" + std::to_string(r) + ".status").rfind("complete\n", 0) ==
                0);
}

} // namespace

TEST_CASE("every point-to-point and collective call of a rank is recorded exactly", "[mpi]") {
    std::string dir = freshDirectory("p2p_patterns");
    CommandResult run = measure(dir, WAITSCOPE_TEST_P2P_PATTERNS);
    INFO(run.output);
    REQUIRE(run.exitCode == 0);
    std::string exp = dir + "/exp";
    requireComplete(exp, 4);
    std::vector<TraceEvent> events = readEvents(anchorOf(exp));
    REQUIRE(!events.empty());
    requireMonotonic(events);

    for (int rank = 0; rank < 4; ++rank) {
        INFO("rank " << rank);
        bool even = rank % 2 == 0;
        CHECK(countEvents(events, "PROGRAM_BEGIN", rank) == 1);
        CHECK(countEvents(events, "PROGRAM_END", rank) == 1);
        CHECK(countEvents(events, "ENTER", rank, "MPI_Init") == 1);
        CHECK(countEvents(events, "ENTER", rank, "MPI_Finalize") == 1);
        CHECK(countEvents(events, "ENTER", rank, "MPI_Sendrecv") == 1);
        CHECK(countEvents(events, "ENTER", rank, "MPI_Send") == (even ? 4 : 0));
        CHECK(countEvents(events, "ENTER", rank, "MPI_Recv") == (even ? 0 : 4));
        CHECK(countEvents(events, "ENTER", rank, "MPI_Startall") == 2);
        CHECK(countEvents(events, "ENTER", rank, "MPI_Waitall") == 3);
        CHECK(countEvents(events, "ENTER", rank, "MPI_Barrier") == 2);
        CHECK(countEvents(events, "ENTER", rank, "MPI_Allreduce") == 1);
        CHECK(countEvents(events, "ENTER", rank, "MPI_Comm_split") == 1);
        CHECK(countEvents(events, "ENTER", rank, "MPI_Comm_free") == 1);
        // Rank/size queries are counted, not traced; datatype calls are off by default.
        CHECK(countEvents(events, "ENTER", rank, "MPI_Comm_rank") == 0);
        CHECK(countEvents(events, "ENTER", rank, "MPI_Type_vector") == 0);
        // A polling loop leaves only the probe that found the message.
        CHECK(countEvents(events, "ENTER", rank, "MPI_Iprobe") == (even ? 0 : 1));
        CHECK(countEvents(events, "MPI_SEND", rank) == (even ? 5 : 1));
        CHECK(countEvents(events, "MPI_RECV", rank) == (even ? 1 : 5));
        CHECK(countEvents(events, "MPI_ISEND", rank) == 3);
        CHECK(countEvents(events, "MPI_ISEND_COMPLETE", rank) == 3);
        CHECK(countEvents(events, "MPI_IRECV_REQUEST", rank) == 4);
        CHECK(countEvents(events, "MPI_IRECV", rank) == 3);
        CHECK(countEvents(events, "MPI_REQUEST_CANCELLED", rank) == 1);
        CHECK(countEvents(events, "ENTER", rank) == countEvents(events, "LEAVE", rank));
        CHECK(countEvents(events, "MPI_COLLECTIVE_BEGIN", rank) ==
              countEvents(events, "MPI_COLLECTIVE_END", rank));
    }

    // Every send has its receive: per (sender, receiver, tag), sends equal receives.
    std::map<std::tuple<int, int, std::string>, int> balance;
    for (const TraceEvent& e : events) {
        if (e.name == "MPI_SEND" || e.name == "MPI_ISEND")
            ++balance[{e.location, std::stoi(e.attribute("Receiver")), e.attribute("Tag")}];
        if (e.name == "MPI_RECV" || e.name == "MPI_IRECV")
            --balance[{std::stoi(e.attribute("Sender")), e.location, e.attribute("Tag")}];
    }
    for (const auto& [key, n] : balance) {
        INFO("sender " << std::get<0>(key) << " receiver " << std::get<1>(key) << " tag "
                       << std::get<2>(key));
        CHECK(n == 0);
    }

    // MPI_ANY_SOURCE/MPI_ANY_TAG with MPI_STATUS_IGNORE resolved; derived type sized in bytes.
    int resolved = 0;
    for (const TraceEvent& e : events)
        if (e.name == "MPI_RECV" && e.attribute("Tag") == "2") {
            CHECK(std::stoi(e.attribute("Sender")) == (e.location ^ 1));
            CHECK(e.attribute("Length") == "24");
            ++resolved;
        }
    CHECK(resolved == 6);
}

TEST_CASE("file I/O and one-sided calls are recorded, every other MPI call is counted by name",
          "[mpi]") {
    std::string dir = freshDirectory("io_rma_calls");
    CommandResult run = measure(dir, WAITSCOPE_TEST_IO_RMA_CALLS, 3, "'" + dir + "/data.bin'");
    INFO(run.output);
    REQUIRE(run.exitCode == 0);
    CHECK(run.output.find("data as written") != std::string::npos);
    std::string exp = dir + "/exp";
    requireComplete(exp, 3);
    std::vector<TraceEvent> events = readEvents(anchorOf(exp));
    requireMonotonic(events);
    const std::map<std::string, int> perRank = {{"MPI_File_open", 1},
                                                {"MPI_File_set_view", 1},
                                                {"MPI_File_write_at", 2},
                                                {"MPI_File_write_all", 1},
                                                {"MPI_File_iwrite_at", 1},
                                                {"MPI_File_sync", 1},
                                                {"MPI_File_read_at_all", 1},
                                                {"MPI_File_iread", 1},
                                                {"MPI_File_seek", 1},
                                                {"MPI_File_seek_shared", 1},
                                                {"MPI_File_close", 1},
                                                {"MPI_Wait", 3},
                                                {"MPI_Win_create", 1},
                                                {"MPI_Win_fence", 3},
                                                {"MPI_Put", 2},
                                                {"MPI_Get", 1},
                                                {"MPI_Accumulate", 1},
                                                {"MPI_Win_lock", 1},
                                                {"MPI_Win_unlock", 1},
                                                {"MPI_Rput", 1},
                                                {"MPI_Win_free", 2},
                                                {"MPI_Win_allocate", 1},
                                                {"MPI_Win_lock_all", 1},
                                                {"MPI_Fetch_and_op", 2},
                                                {"MPI_Win_flush_all", 1},
                                                {"MPI_Win_unlock_all", 1},
                                                {"MPI_Get_processor_name", 0},
                                                {"MPI_Type_dup", 0}};
    auto measurement = readKeyValues(exp + "/waitscope.measurement");
    for (int rank = 0; rank < 3; ++rank) {
        INFO("rank " << rank);
        for (const auto& [function, calls] : perRank) {
            INFO(function);
            CHECK(countEvents(events, "ENTER", rank, function) == calls);
        }
        CHECK(countEvents(events, "ENTER", rank, "MPI_File_delete") == (rank == 0 ? 1 : 0));
        CHECK(countEvents(events, "ENTER", rank) == countEvents(events, "LEAVE", rank));
        // The file and one-sided requests complete as known requests.
        CHECK(measurement["rank." + std::to_string(rank) + ".unknown_requests"] == "0");
    }
    // Calls of functions without a wrapper: summed over the ranks, and how many ranks made them.
    CHECK(measurement["unrecorded.MPI_Get_processor_name"] == "6");
    CHECK(measurement["unrecorded.MPI_Get_processor_name.ranks"] == "3");
    CHECK(measurement["unrecorded.MPI_Type_dup"] == "9");
    CHECK(measurement["unrecorded.MPI_Comm_set_name"] == "3");
    CHECK(measurement["unrecorded.MPI_Pack"] == "6");
    CHECK(measurement.count("unrecorded.MPI_File_open") == 0);
    CHECK(measurement.count("unrecorded.MPI_Comm_rank") == 0);
}

TEST_CASE("derived communicators are defined with their groups and parents", "[mpi]") {
    std::string dir = freshDirectory("communicators");
    CommandResult run = measure(dir, WAITSCOPE_TEST_P2P_PATTERNS);
    INFO(run.output);
    REQUIRE(run.exitCode == 0);
    std::string anchor = anchorOf(dir + "/exp");
    std::vector<std::string> comms = readDefinitions(anchor, "COMM");
    std::vector<std::string> groups = readDefinitions(anchor, "GROUP");
    int world = 0, self = 0, derived = 0;
    for (const std::string& c : comms) {
        INFO(c);
        if (c.find("Name: \"MPI_COMM_WORLD\"") != std::string::npos)
            ++world;
        else if (c.find("Name: \"MPI_COMM_SELF\"") != std::string::npos)
            ++self;
        else {
            ++derived;
            CHECK(c.find("Parent: \"MPI_COMM_WORLD\"") != std::string::npos);
        }
    }
    CHECK(world == 1);
    CHECK(self == 1);
    CHECK(derived == 2); // {0,1} and {2,3}
    int pairs = 0, everyone = 0;
    for (const std::string& g : groups) {
        if (g.find("COMM_GROUP") == std::string::npos)
            continue;
        pairs += g.find(" 2 Members") != std::string::npos;
        everyone += g.find(" 4 Members") != std::string::npos;
    }
    CHECK(pairs == 2);
    CHECK(everyone == 1);
    // The allreduce on a half communicator names it, and its bytes are 8 per rank x 2 ranks.
    for (const TraceEvent& e : readEvents(anchor))
        if (e.name == "MPI_COLLECTIVE_END" && e.attribute("Operation") == "ALLREDUCE") {
            CHECK(e.attribute("Communicator").rfind("Comm ", 0) == 0);
            CHECK(e.attribute("Sent") == "16");
            CHECK(e.attribute("Received") == "16");
        }
}

TEST_CASE("a full buffer is flushed, recorded as a region, and no event is lost", "[mpi]") {
    std::string dir = freshDirectory("flush");
    const int barriers = 20000;
    CommandResult run = measure(dir, WAITSCOPE_TEST_BARRIER_LOOP, 2, std::to_string(barriers),
                                {"WAITSCOPE_TOTAL_MEMORY=64k"});
    INFO(run.output);
    REQUIRE(run.exitCode == 0);
    std::string exp = dir + "/exp";
    requireComplete(exp, 2);
    std::vector<TraceEvent> events = readEvents(anchorOf(exp));
    requireMonotonic(events);
    auto measurement = readKeyValues(exp + "/waitscope.measurement");
    for (int rank = 0; rank < 2; ++rank) {
        INFO("rank " << rank);
        CHECK(countEvents(events, "ENTER", rank, "MPI_Barrier") == barriers);
        CHECK(countEvents(events, "MPI_COLLECTIVE_END", rank) == barriers + 2); // + init, finalize
        // The full chunks went to the spill file; only the flushes the program waited for are
        // regions (none when the writer thread kept up).
        const std::string key = "rank." + std::to_string(rank) + ".";
        CHECK(std::stoi(measurement[key + "spilled_chunks"]) > 5);
        int flushes = countEvents(events, "ENTER", rank, "TRACE BUFFER FLUSH");
        CHECK(std::to_string(flushes) == measurement[key + "flushes"]);
        CHECK(measurement[key + "lost_events"] == "0");
    }
    // The spill files are gone once encoded into OTF2 (the events encoded during the run are
    // the archive's own event file now).
    CHECK(!fs::exists(exp + "/ranks/0.records"));
    CHECK(!fs::exists(exp + "/ranks/0.records.encoded"));
    CHECK(!fs::exists(exp + "/ranks/0.records.evt"));
}

TEST_CASE("a small buffer handed to the spill writer about a hundred times loses no event of a "
          "nonblocking ring",
          "[mpi]") {
    std::string dir = freshDirectory("spill_writer");
    const int rounds = 12000;
    CommandResult run = measure(dir, WAITSCOPE_TEST_RING_LOOP, 3, std::to_string(rounds),
                                {"WAITSCOPE_TOTAL_MEMORY=96k"});
    INFO(run.output);
    REQUIRE(run.exitCode == 0);
    std::string exp = dir + "/exp";
    requireComplete(exp, 3);
    std::vector<TraceEvent> events = readEvents(anchorOf(exp));
    requireMonotonic(events);
    auto measurement = readKeyValues(exp + "/waitscope.measurement");
    for (int rank = 0; rank < 3; ++rank) {
        INFO("rank " << rank);
        const std::string key = "rank." + std::to_string(rank) + ".";
        // About 144 bytes of records a round (1.7 MB) against 18 KB chunks: about 95 chunks.
        CHECK(std::stoi(measurement[key + "spilled_chunks"]) > 50);
        CHECK(measurement[key + "lost_events"] == "0");
        CHECK(countEvents(events, "ENTER", rank, "MPI_Isend") == rounds);
        CHECK(countEvents(events, "ENTER", rank, "MPI_Irecv") == rounds);
        CHECK(countEvents(events, "ENTER", rank, "MPI_Waitall") == rounds);
        CHECK(countEvents(events, "ENTER", rank, "MPI_Allreduce") == rounds / 10);
        CHECK(countEvents(events, "MPI_ISEND", rank) == rounds);
        CHECK(countEvents(events, "MPI_ISEND_COMPLETE", rank) == rounds);
        CHECK(countEvents(events, "MPI_IRECV_REQUEST", rank) == rounds);
        CHECK(countEvents(events, "MPI_IRECV", rank) == rounds);
        CHECK(countEvents(events, "MPI_COLLECTIVE_END", rank) == rounds / 10 + 2);
        CHECK(countEvents(events, "ENTER", rank) == countEvents(events, "LEAVE", rank));
        CHECK(std::to_string(countEvents(events, "ENTER", rank, "TRACE BUFFER FLUSH")) ==
              measurement[key + "flushes"]);
    }
    // Every send is received in order: per (sender, receiver), the tags follow each other.
    std::map<std::pair<int, int>, std::vector<std::string>> sent, received;
    for (const TraceEvent& e : events) {
        if (e.name == "MPI_ISEND")
            sent[{e.location, std::stoi(e.attribute("Receiver"))}].push_back(e.attribute("Tag"));
        if (e.name == "MPI_IRECV")
            received[{std::stoi(e.attribute("Sender")), e.location}].push_back(e.attribute("Tag"));
    }
    CHECK(sent.size() == 3);
    CHECK(sent == received);
}

TEST_CASE("an existing experiment directory is never overwritten", "[mpi]") {
    std::string dir = freshDirectory("refusal");
    REQUIRE(measure(dir, WAITSCOPE_TEST_BARRIER_LOOP, 2, "10").exitCode == 0);
    std::string before = readFile(dir + "/exp/waitscope.measurement");
    auto stamp = fs::last_write_time(dir + "/exp/traces/0.evt");
    CommandResult again = measure(dir, WAITSCOPE_TEST_BARRIER_LOOP, 2, "10");
    INFO(again.output);
    CHECK(again.exitCode == 0); // the program still runs, unmeasured
    CHECK(again.output.find("already exists") != std::string::npos);
    CHECK(again.output.find(dir + "/exp") != std::string::npos);
    CHECK(readFile(dir + "/exp/waitscope.measurement") == before);
    CHECK(fs::last_write_time(dir + "/exp/traces/0.evt") == stamp);
}

TEST_CASE("a malformed variable is named in one warning and its default used", "[mpi]") {
    std::string dir = freshDirectory("bad_config");
    CommandResult run = measure(dir, WAITSCOPE_TEST_BARRIER_LOOP, 2, "10",
                                {"WAITSCOPE_TOTAL_MEMORY=lots", "WAITSCOPE_TRACNG=true"});
    INFO(run.output);
    REQUIRE(run.exitCode == 0);
    CHECK(run.output.find("WAITSCOPE_TOTAL_MEMORY='lots' is not valid") != std::string::npos);
    CHECK(run.output.find("WAITSCOPE_TRACNG is not a Waitscope variable") != std::string::npos);
    // Printed once for the job, not once per rank.
    size_t first = run.output.find("WAITSCOPE_TOTAL_MEMORY='lots'");
    CHECK(run.output.find("WAITSCOPE_TOTAL_MEMORY='lots'", first + 1) == std::string::npos);
    requireComplete(dir + "/exp", 2);
}

TEST_CASE("a program linked with -lwaitscope is measured without preloading", "[mpi]") {
    std::string dir = freshDirectory("linked");
    CommandResult run = measure(dir, WAITSCOPE_TEST_LINKED_BARRIER_LOOP, 2, "25", {}, false);
    INFO(run.output);
    REQUIRE(run.exitCode == 0);
    std::vector<TraceEvent> events = readEvents(anchorOf(dir + "/exp"));
    CHECK(countEvents(events, "ENTER", 0, "MPI_Barrier") == 25);
    CHECK(countEvents(events, "ENTER", 1, "MPI_Barrier") == 25);
}

TEST_CASE("MPI_Abort saves the aborting rank's events and marks it incomplete", "[mpi]") {
    std::string dir = freshDirectory("abort");
    CommandResult run = measure(dir, WAITSCOPE_TEST_FAULTS, 2, "abort");
    INFO(run.output);
    CHECK(run.exitCode != 0);
    std::string exp = dir + "/exp";
    CHECK(readFile(exp + "/ranks/1.status") == "incomplete: MPI_Abort with error code 7\n");
    CHECK(readFile(exp + "/ranks/0.status").rfind("incomplete", 0) == 0);
    // The aborting rank's records up to the abort: 10 barriers (40 records) and MPI_Init.
    REQUIRE(fs::exists(exp + "/ranks/1.records"));
    CHECK(fs::file_size(exp + "/ranks/1.records") >= 44 * 8);
}

TEST_CASE("a fatal signal leaves the rank's records and says which signal", "[mpi]") {
    std::string dir = freshDirectory("signal");
    CommandResult run = measure(dir, WAITSCOPE_TEST_FAULTS, 2, "segv");
    INFO(run.output);
    CHECK(run.exitCode != 0);
    std::string exp = dir + "/exp";
    CHECK(readFile(exp + "/ranks/1.status") == "incomplete: signal 11\n");
    REQUIRE(fs::exists(exp + "/ranks/1.records"));
    // 10 barriers and MPI_Init: at least 44 records of at least 8 bytes.
    CHECK(fs::file_size(exp + "/ranks/1.records") >= 44 * 8);
}

TEST_CASE("MPI_THREAD_MULTIPLE programs have every thread's MPI calls recorded on its location",
          "[mpi]") {
    std::string dir = freshDirectory("threads");
    CommandResult run = measure(dir, WAITSCOPE_TEST_THREAD_MULTIPLE, 2);
    INFO(run.output);
    REQUIRE(run.exitCode == 0);
    std::string exp = dir + "/exp";
    requireComplete(exp, 2);
    std::vector<TraceEvent> events = readEvents(anchorOf(exp));
    CHECK(countEvents(events, "ENTER", 0, "MPI_Init_thread") == 1);
    CHECK(countEvents(events, "ENTER", 0, "MPI_Allreduce") == 1);
    auto m = readKeyValues(exp + "/waitscope.measurement");
    // Nothing is only counted, nothing warned.
    CHECK(m["rank.0.foreign_thread_calls"] == "0");
    CHECK(m["rank.1.foreign_thread_calls"] == "0");
    CHECK(run.output.find("waitscope: warning") == std::string::npos);
    if (run.output.find("provided=3") != std::string::npos) {
        // The worker's barrier is on its own location (thread 1 of each rank), not the main one.
        CHECK(countEvents(events, "ENTER", 0, "MPI_Barrier") == 0);
        std::vector<std::string> locations = readDefinitions(anchorOf(exp), "LOCATION");
        int threads = 0;
        for (const std::string& line : locations)
            threads += line.find("thread 1") != std::string::npos ? 1 : 0;
        CHECK(threads == 2);
        // Its events, as otf2-print names the location: thread 1 << 32 | rank.
        CommandResult print = runCommand(std::string(WAITSCOPE_TEST_OTF2_PRINT) +
                                         " -L 4294967296 '" + anchorOf(exp) + "'");
        CHECK(print.output.find("MPI_Barrier") != std::string::npos);
        CHECK(print.output.find("MPI_COLLECTIVE_END") != std::string::npos);
    }
}

TEST_CASE("communicators duplicated on several threads at once each get an identity of their "
          "own",
          "[mpi]") {
    std::string dir = freshDirectory("comm_threads");
    CommandResult run = measure(dir, WAITSCOPE_TEST_COMM_THREADS, 2);
    INFO(run.output);
    REQUIRE(run.exitCode == 0);
    // Debian's Open MPI provides MPI_THREAD_MULTIPLE (the program says when not).
    REQUIRE(run.output.find("provided=3") != std::string::npos);
    CHECK(run.output.find("dups=100") != std::string::npos);
    std::string exp = dir + "/exp";
    requireComplete(exp, 2);
    auto m = readKeyValues(exp + "/waitscope.measurement");
    CHECK(m["rank.0.unknown_comms"] == "0");
    CHECK(m["rank.1.unknown_comms"] == "0");
    // World, self, each rank's communicator of its own, the four intercommunicators and the
    // 4 x 25 dups: each dup numbered once per parent on both ranks, so both define it alike;
    // then each rank's thread contingent (the thread order records of its threads).
    const std::vector<std::string> comms = readDefinitions(anchorOf(exp), "COMM");
    CHECK(comms.size() == 2 + 2 + 4 + 100 + 2);
    CHECK(std::count_if(comms.begin(), comms.end(), [](const std::string& c) {
              return c.find("Pthread threads of rank") != std::string::npos;
          }) == 2);
}

TEST_CASE("a send started on one thread and completed on another is paired: its Late Receiver "
          "is found in the completing MPI_Wait",
          "[mpi]") {
    std::string dir = freshDirectory("request_threads");
    CommandResult run = measure(dir, WAITSCOPE_TEST_REQUEST_THREADS, 2);
    INFO(run.output);
    REQUIRE(run.exitCode == 0);
    REQUIRE(run.output.find("provided=3 done") != std::string::npos);
    std::string exp = dir + "/exp";
    requireComplete(exp, 2);
    // The completion on the main thread found the request the other thread started.
    auto m = readKeyValues(exp + "/waitscope.measurement");
    CHECK(m["rank.0.unknown_requests"] == "0");
    const std::string dump = dir + "/values.txt";
    CommandResult replay = runCommand(mpirunCommand(
        2, {}, WAITSCOPE_TEST_REPLAY, "--quiet --dump-text '" + dump + "' '" + exp + "'", false));
    INFO(replay.output);
    REQUIRE(replay.exitCode == 0);
    // metric, call path, rank[:location], value; the main location has no ":location".
    double mainWait = 0, elsewhere = 0, isends = 0;
    std::istringstream lines(readFile(dump));
    for (std::string line; std::getline(lines, line);) {
        std::istringstream fields(line);
        std::string metric, path, where, value;
        std::getline(fields, metric, '\t');
        std::getline(fields, path, '\t');
        std::getline(fields, where, '\t');
        std::getline(fields, value, '\t');
        if (metric == "mpi_latereceiver") {
            const bool atMainWait = where == "0" && path.size() >= 8 &&
                                    path.compare(path.size() - 8, 8, "MPI_Wait") == 0;
            (atMainWait ? mainWait : elsewhere) += std::stod(value);
        }
        if (metric == "visits" && where.rfind("0:", 0) == 0 && path.size() >= 9 &&
            path.compare(path.size() - 9, 9, "MPI_Isend") == 0)
            isends += std::stod(value);
    }
    CHECK(isends == 1); // the send is the thread's, on its own location
    // Rank 1 posts the receive 1 s after the barrier: the MPI_Wait, entered right after the
    // thread's MPI_Isend, waits about that long (unpaired, it would be no Late Receiver at
    // all); under load the ranks leave the barrier up to some 100 ms apart, either way.
    CHECK(mainWait > 0.5);
    CHECK(mainWait < 2.0);
    CHECK(elsewhere == 0);
}

#ifdef WAITSCOPE_TEST_FORTRAN_P2P
TEST_CASE("Fortran programs (use mpi) are recorded through the Fortran entry points", "[mpi]") {
    std::string dir = freshDirectory("fortran");
    CommandResult run = measure(dir, WAITSCOPE_TEST_FORTRAN_P2P);
    INFO(run.output);
    REQUIRE(run.exitCode == 0);
    CHECK(run.output.find("sum=  6.0") != std::string::npos);
    CHECK(run.output.find("wrong extent or pack") == std::string::npos);
    // Calls without a wrapper are counted from Fortran too (Open MPI's Fortran calls PMPI_).
    auto measurement = readKeyValues(dir + "/exp/waitscope.measurement");
    CHECK(measurement["unrecorded.MPI_Pack"] == "4");
    CHECK(measurement["unrecorded.MPI_Type_extent"] == "4");
    std::vector<TraceEvent> events = readEvents(anchorOf(dir + "/exp"));
    for (int rank = 0; rank < 4; ++rank) {
        INFO("rank " << rank);
        bool even = rank % 2 == 0;
        CHECK(countEvents(events, "ENTER", rank, "MPI_Init") == 1);
        CHECK(countEvents(events, "MPI_SEND", rank) == (even ? 2 : 0));
        CHECK(countEvents(events, "MPI_RECV", rank) == (even ? 0 : 2));
        CHECK(countEvents(events, "ENTER", rank, "MPI_Allreduce") == 1);
        CHECK(countEvents(events, "ENTER", rank, "MPI_Barrier") == 1);
    }
    for (const TraceEvent& e : events)
        if (e.name == "MPI_RECV") {
            CHECK(std::stoi(e.attribute("Sender")) == (e.location ^ 1));
            CHECK(e.attribute("Length") == "128");
        }
}
#endif

#ifdef WAITSCOPE_TEST_FORTRAN_IO_RMA
TEST_CASE("Fortran file I/O and one-sided calls are recorded, file names with their blanks "
          "trimmed",
          "[mpi]") {
    std::string dir = freshDirectory("fortran_io_rma");
    CommandResult run = measure(dir, WAITSCOPE_TEST_FORTRAN_IO_RMA, 2, "'" + dir + "/data.bin'");
    INFO(run.output);
    REQUIRE(run.exitCode == 0);
    CHECK(run.output.find("fortran_io_rma ok") != std::string::npos);
    CHECK(!fs::exists(dir + "/data.bin")); // opened, written and deleted under its name
    std::vector<TraceEvent> events = readEvents(anchorOf(dir + "/exp"));
    const std::map<std::string, int> perRank = {
        {"MPI_File_open", 1},     {"MPI_File_set_view", 1}, {"MPI_File_write_at_all", 1},
        {"MPI_File_write_at", 1}, {"MPI_File_close", 1},    {"MPI_Win_create", 1},
        {"MPI_Win_fence", 3},     {"MPI_Win_lock", 1},      {"MPI_Put", 1},
        {"MPI_Win_unlock", 1},    {"MPI_Win_free", 1}};
    for (int rank = 0; rank < 2; ++rank) {
        INFO("rank " << rank);
        for (const auto& [function, calls] : perRank) {
            INFO(function);
            CHECK(countEvents(events, "ENTER", rank, function) == calls);
        }
        CHECK(countEvents(events, "ENTER", rank, "MPI_File_delete") == (rank == 0 ? 1 : 0));
    }
}
#endif

#ifdef WAITSCOPE_TEST_HPCC
TEST_CASE("an unmodified Debian MPI program (hpcc) is measured when preloaded, its definitions "
          "in the order OTF2 expects",
          "[mpi][hpcc]") {
    std::string dir = freshDirectory("hpcc");
    fs::copy_file(WAITSCOPE_TEST_HPCC_INPUT, dir + "/hpccinf.txt");
    CommandResult run =
        runCommand("cd '" + dir + "' && " +
                   mpirunCommand(4, {"WAITSCOPE_EXPERIMENT_DIRECTORY=exp"}, WAITSCOPE_TEST_HPCC));
    INFO(run.output);
    REQUIRE(run.exitCode == 0);
    std::string exp = dir + "/exp";
    requireComplete(exp, 4);
    // hpcc's communicators on 4 ranks: a parent created on a higher rank than its children
    // once got a higher id, which OTF2's own reader warns about.
    CommandResult definitions =
        runCommand(std::string(WAITSCOPE_TEST_OTF2_PRINT) + " -G '" + anchorOf(exp) + "'");
    CHECK(definitions.exitCode == 0);
    CHECK(definitions.output.find("COMM ") != std::string::npos);
    CHECK(definitions.output.find("out of order") == std::string::npos);
    CHECK(definitions.output.find("warning") == std::string::npos);
    std::vector<TraceEvent> events = readEvents(anchorOf(exp));
    requireMonotonic(events);
    int sends = 0, receives = 0;
    for (const TraceEvent& e : events) {
        sends += e.name == "MPI_SEND" || e.name == "MPI_ISEND";
        receives += e.name == "MPI_RECV" || e.name == "MPI_IRECV";
    }
    CHECK(sends > 100);
    CHECK(sends == receives);
    CHECK(countEvents(events, "ENTER", -1) == countEvents(events, "LEAVE", -1));
}
#endif

#ifdef WAITSCOPE_TEST_EXAMPLE_MIXED
namespace {

/// Wrapped functions and their handlers, read from mpi_functions.spec.
std::map<std::string, std::string> wrappedFunctions() {
    std::map<std::string, std::string> handlers;
    std::istringstream in(readFile(WAITSCOPE_TEST_SPEC));
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("int MPI_", 0) != 0)
            continue;
        std::string name = line.substr(4, line.find('(') - 4);
        size_t bar = line.find('|');
        for (int field = 0; field < 2; ++field)
            bar = line.find('|', bar + 1);
        std::string handler = line.substr(bar + 1, line.find('|', bar + 1) - bar - 1);
        handler.erase(0, handler.find_first_not_of(' '));
        handlers[name] = handler.substr(0, handler.find_first_of(" ("));
    }
    return handlers;
}

} // namespace

TEST_CASE("every call of the mixed example is recorded once with all groups on", "[mpi]") {
    std::string dir = freshDirectory("mixed");
    CommandResult run =
        measure(dir, WAITSCOPE_TEST_EXAMPLE_MIXED, 4, "", {"WAITSCOPE_MPI_GROUPS=all"});
    INFO(run.output);
    REQUIRE(run.exitCode == 0);
    std::string exp = dir + "/exp";
    requireComplete(exp, 4);
    std::vector<TraceEvent> events = readEvents(anchorOf(exp));
    requireMonotonic(events);
    std::map<std::string, std::string> wrapped = wrappedFunctions();
    REQUIRE(wrapped.size() > 100);

    std::istringstream in(readFile(WAITSCOPE_TEST_EXAMPLE_MIXED_CALLS));
    std::string line;
    int rounds = 0, checked = 0;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        std::string kind;
        fields >> kind;
        std::map<std::string, std::string> kv;
        for (std::string f; fields >> f;)
            if (size_t eq = f.find('='); eq != std::string::npos)
                kv[f.substr(0, eq)] = f.substr(eq + 1);
        if (kind == "default")
            rounds = std::stoi(kv["rounds"]);
        if (kind != "calls" || kv["np"] != "4")
            continue;
        int rank = std::stoi(kv["rank"]);
        std::string function = kv["function"];
        int calls = std::stoi(kv["fixed"]) + rounds * std::stoi(kv["per_round"]);
        auto it = wrapped.find(function);
        int expected = it == wrapped.end() || it->second == "counted" ? 0 : calls;
        INFO("rank " << rank << " " << function);
        CHECK(countEvents(events, "ENTER", rank, function) == expected);
        ++checked;
    }
    CHECK(rounds > 0);
    CHECK(checked > 100);
    int sends = 0, receives = 0, begins = 0, ends = 0;
    for (const TraceEvent& e : events) {
        sends += e.name == "MPI_SEND" || e.name == "MPI_ISEND";
        receives += e.name == "MPI_RECV" || e.name == "MPI_IRECV";
        begins += e.name == "MPI_COLLECTIVE_BEGIN";
        ends += e.name == "MPI_COLLECTIVE_END";
    }
    CHECK(sends == receives);
    CHECK(begins == ends);
    CHECK(countEvents(events, "MPI_REQUEST_CANCELLED", -1) > 0);
    CHECK(countEvents(events, "NON_BLOCKING_COLLECTIVE_COMPLETE", -1) ==
          countEvents(events, "NON_BLOCKING_COLLECTIVE_REQUEST", -1));
    CHECK(countEvents(events, "NON_BLOCKING_COLLECTIVE_COMPLETE", -1) > 0);
}
#endif

#ifdef WAITSCOPE_TEST_EXAMPLE_LATE_SENDER
TEST_CASE("profiling mode writes a call-path profile per rank and no trace", "[mpi][profile]") {
    using namespace waitscope::report;
    std::string dir = freshDirectory("profile");
    CommandResult run = measure(dir, WAITSCOPE_TEST_EXAMPLE_LATE_SENDER, 4, "",
                                {"WAITSCOPE_TRACING=false", "WAITSCOPE_PROFILING=true"});
    INFO(run.output);
    REQUIRE(run.exitCode == 0);
    std::string exp = dir + "/exp";
    requireComplete(exp, 4);
    CHECK_FALSE(fs::exists(exp + "/traces.otf2"));
    waitscope::Result<Report> report = readCubex(exp + "/profile.cubex");
    REQUIRE(report.ok());
    auto recv = report->findCallPath("example_late_sender/MPI_Recv");
    auto send = report->findCallPath("example_late_sender/MPI_Send");
    REQUIRE(recv);
    REQUIRE(send);
    auto metric = [&](const char* name) {
        auto id = report->findMetric(name);
        REQUIRE(id);
        return *id;
    };
    auto perRank = [&](const char* name, CallNodeId cnode) {
        return *report->locationValues(metric(name), cnode, CallTreeMode::Exclusive);
    };
    CHECK(perRank("visits", *recv) == std::vector<double>{0, 5, 0, 5});
    CHECK(perRank("visits", *send) == std::vector<double>{5, 0, 5, 0});
    CHECK(perRank("bytes_sent", *send) == std::vector<double>{10240, 0, 10240, 0});
    CHECK(perRank("bytes_rcvd", *recv) == std::vector<double>{0, 10240, 0, 10240});
    CHECK(perRank("comms_recv", *recv) == std::vector<double>{0, 5, 0, 5});
    // The injected late sender: 5 x 200 ms waiting in MPI_Recv on ranks 1 and 3, and the
    // senders' 5 x 200 ms of computation in the program itself (outside any region).
    std::vector<double> waited = perRank("time", *recv);
    std::vector<double> computed = perRank("time", report->rootCallNodes().front());
    for (int r : {1, 3}) {
        CHECK(waited[r] > 0.9);
        CHECK(waited[r] < 1.5);
    }
    for (int r : {0, 2}) {
        CHECK(computed[r] > 0.9);
        CHECK(computed[r] < 1.5);
    }
    std::vector<double> longest = perRank("max_time", *recv);
    CHECK(longest[1] > 0.15);
    CHECK(longest[1] < 0.4);
}

TEST_CASE("profile and trace of one run agree on every call count", "[mpi][profile]") {
    using namespace waitscope::report;
    std::string dir = freshDirectory("profile_and_trace");
    CommandResult run =
        measure(dir, WAITSCOPE_TEST_P2P_PATTERNS, 4, "", {"WAITSCOPE_PROFILING=true"});
    INFO(run.output);
    REQUIRE(run.exitCode == 0);
    std::string exp = dir + "/exp";
    std::vector<TraceEvent> events = readEvents(anchorOf(exp));
    waitscope::Result<Report> report = readCubex(exp + "/profile.cubex");
    REQUIRE(report.ok());
    MetricId visits = *report->findMetric("visits");
    int checked = 0;
    for (CallNodeId c = 0; c < report->callNodes().size(); ++c) {
        const std::string& region = report->regions()[report->callNodes()[c].region].name;
        if (region.rfind("MPI_", 0) != 0)
            continue;
        std::vector<double> v = *report->locationValues(visits, c, CallTreeMode::Exclusive);
        for (int rank = 0; rank < 4; ++rank) {
            INFO(region << " rank " << rank);
            CHECK(v[rank] == countEvents(events, "ENTER", rank, region));
        }
        ++checked;
    }
    CHECK(checked >= 10);
}
#endif

namespace {

/// Runs the faults program in `mode` unmeasured and then under `waitscope analyze`; checks the
/// exit code and the program's output are the same, and returns the analysis's output.
std::string analyzeFault(const std::string& name, const std::string& mode, std::string& dir,
                         const std::vector<std::string>& env = {}, int iterations = 300) {
    dir = freshDirectory(name);
    const std::string args = mode + " " + std::to_string(iterations);
    CommandResult plain = runCommand(mpirunCommand(3, {}, WAITSCOPE_TEST_FAULTS, args, false));
    // The test launcher is "env VARIABLES mpirun": the driver goes between them.
    const std::string launcher = mpirunCommand(3, env, WAITSCOPE_TEST_FAULTS, args, false);
    const std::string testMpirun = WAITSCOPE_TEST_MPIRUN_PATH;
    const size_t at = launcher.find(testMpirun);
    REQUIRE(at != std::string::npos);
    std::string command = launcher.substr(0, at);
    command += std::string(" ") + WAITSCOPE_TEST_DRIVER + " analyze -q -e " + dir + "/exp " +
               launcher.substr(at);
    CommandResult analyzed = runCommand(command);
    INFO(analyzed.output);
    CHECK(plain.exitCode != 0);
    CHECK(analyzed.exitCode == plain.exitCode);
    CHECK(analyzed.output.find("faults: " + mode) != std::string::npos);
    CHECK(fs::exists(dir + "/exp/report.cubex"));
    CHECK(fs::exists(dir + "/exp/summary.txt"));
    return analyzed.output;
}

} // namespace

TEST_CASE("a rank's segfault leaves an analyzed report of the surviving ranks", "[mpi][fault]") {
    std::string dir;
    std::string output = analyzeFault("fault_segv", "segv", dir);
    INFO(output);
    // Rank 1 did 300 ring exchanges and barriers, saved at the signal; the others were ended.
    CHECK(output.find("rank 1 died (SIGSEGV) after ") != std::string::npos);
    CHECK(output.find("rank 0 was terminated (SIGTERM, the job was ended)") != std::string::npos);
    CHECK(output.find("this analysis covers only what its ranks left") != std::string::npos);
    std::vector<TraceEvent> events = readEvents(anchorOf(dir + "/exp"));
    for (int rank = 0; rank < 3; ++rank) {
        INFO("rank " << rank);
        CHECK(countEvents(events, "ENTER", rank, "MPI_Barrier") == 300);
        CHECK(countEvents(events, "MPI_SEND", rank) == 300);
        CHECK(countEvents(events, "MPI_RECV", rank) == 300);
    }
}

TEST_CASE("a rank killed after its spill writer kept chunks as OTF2 events is recovered "
          "event for event from those events and the records after them",
          "[mpi][fault]") {
    // A small buffer (8 chunks of 32 KiB), no sampling (the same events every run): rank 1's
    // first 300 rings and barriers fill chunks the spill writer keeps as OTF2 events only; it
    // waits for the first, passes 300 more (their chunks kept or not, as the thread gets a
    // core) and segfaults with its last records in memory (written as records by its handler).
    std::string dir;
    std::string output = analyzeFault("fault_segv_encoded", "segv_encoded", dir,
                                      {"WAITSCOPE_TOTAL_MEMORY=256k", "WAITSCOPE_SAMPLING=false"});
    INFO(output);
    CHECK(output.find("rank 1 died (SIGSEGV) after ") != std::string::npos);
    CHECK(output.find("left out") == std::string::npos); // everything matched
    // Both sources were read: the event file's prefix, then records after a hole.
    const std::string ranks = dir + "/exp/ranks/1.records";
    std::ifstream markFile(ranks + ".encoded", std::ios::binary);
    std::uint64_t mark[5] = {0, 0, 0, 0, 0};
    REQUIRE(markFile.read(reinterpret_cast<char*>(mark), sizeof(mark)));
    CHECK(mark[1] > 0);                              // event file bytes kept
    CHECK(mark[2] > 0);                              // records they replace
    CHECK(fs::file_size(ranks) > mark[2]);           // records after them
    CHECK(fs::file_size(ranks + ".evt") >= mark[1]); // the event file holds them
    std::vector<TraceEvent> events = readEvents(anchorOf(dir + "/exp"));
    for (int rank = 0; rank < 3; ++rank) {
        INFO("rank " << rank);
        CHECK(countEvents(events, "ENTER", rank, "MPI_Barrier") == 600);
        CHECK(countEvents(events, "LEAVE", rank) == countEvents(events, "ENTER", rank));
        CHECK(countEvents(events, "ENTER", rank, "MPI_Sendrecv_replace") == 600);
        CHECK(countEvents(events, "MPI_COLLECTIVE_BEGIN", rank) ==
              countEvents(events, "MPI_COLLECTIVE_END", rank));
        CHECK(countEvents(events, "MPI_SEND", rank) == 600);
        CHECK(countEvents(events, "MPI_RECV", rank) == 600);
    }
}

TEST_CASE("MPI_Abort of one rank leaves an analyzed report saying who aborted", "[mpi][fault]") {
    std::string dir;
    std::string output = analyzeFault("fault_abort", "abort", dir);
    CHECK(output.find("rank 1 called MPI_Abort (error code 7) after ") != std::string::npos);
    CHECK(output.find("warning: incomplete trace: rank 1 called MPI_Abort") != std::string::npos);
}

TEST_CASE("a rank killed with SIGKILL keeps its events up to its last flush", "[mpi][fault]") {
    // A small buffer, so the killed rank flushed during its 3000 iterations.
    std::string dir;
    std::string output =
        analyzeFault("fault_kill", "kill", dir, {"WAITSCOPE_TOTAL_MEMORY=64k"}, 3000);
    INFO(output);
    CHECK(output.find("rank 1 was killed without a chance to save") != std::string::npos);
    std::vector<TraceEvent> events = readEvents(anchorOf(dir + "/exp"));
    // Every rank keeps the same barriers: no collective a member never reached.
    int barriers = countEvents(events, "MPI_COLLECTIVE_END", 1);
    CHECK(barriers > 10);
    CHECK(countEvents(events, "MPI_COLLECTIVE_END", 0) == barriers);
    CHECK(countEvents(events, "MPI_COLLECTIVE_END", 2) == barriers);
}

TEST_CASE("WAITSCOPE_OVERWRITE replaces an earlier experiment without a crash", "[mpi]") {
    std::string dir = freshDirectory("overwrite");
    for (int run = 0; run < 2; ++run) {
        CommandResult result = measure(dir, WAITSCOPE_TEST_BARRIER_LOOP, 2,
                                       std::to_string(10 + run), {"WAITSCOPE_OVERWRITE=true"});
        INFO(result.output);
        REQUIRE(result.exitCode == 0);
        requireComplete(dir + "/exp", 2);
    }
    // The second run's trace: 11 barriers per rank, not the first run's 10.
    std::vector<TraceEvent> events = readEvents(anchorOf(dir + "/exp"));
    CHECK(countEvents(events, "ENTER", 0, "MPI_Barrier") == 11);
    CHECK(countEvents(events, "ENTER", 1, "MPI_Barrier") == 11);
}

TEST_CASE("ranks on one host record no clock offset", "[mpi]") {
    std::string dir = freshDirectory("one_host_offsets");
    CommandResult run = measure(dir, WAITSCOPE_TEST_BARRIER_LOOP, 3, "10");
    INFO(run.output);
    REQUIRE(run.exitCode == 0);
    // otf2-print lists the clock offsets of the local definitions: every one is 0.
    CommandResult defs = runCommand(std::string(WAITSCOPE_TEST_OTF2_PRINT_TOOL) +
                                    " --show-clock-offsets " + anchorOf(dir + "/exp"));
    INFO(defs.output);
    std::istringstream lines(defs.output);
    int offsets = 0;
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("CLOCK_OFFSET", 0) != 0)
            continue;
        ++offsets;
        CHECK(line.find("Offset: +0, StdDev: 0") != std::string::npos);
    }
    CHECK(offsets == 6); // at init and at finalize, per rank
}

TEST_CASE("the replay of a failed run's experiment points to its status and to recover", "[mpi]") {
    std::string dir = freshDirectory("replay_failed");
    fs::create_directories(dir + "/exp/ranks");
    CommandResult replay =
        runCommand(std::string(WAITSCOPE_TEST_DRIVER) + " replay --serial " + dir + "/exp");
    CHECK(replay.exitCode == 1);
    CHECK(replay.output == "error: " + dir + "/exp: no traces.otf2: the run did not finish (see " +
                               dir + "/exp/ranks/*.status); make a trace of what its ranks left " +
                               "with `waitscope recover " + dir + "/exp`\n");
    CommandResult recover =
        runCommand(std::string(WAITSCOPE_TEST_DRIVER) + " recover " + dir + "/exp");
    CHECK(recover.exitCode == 1);
    CHECK(recover.output == "waitscope recover: error: " + dir +
                                "/exp: no rank left readable definitions (ranks/*.defs); the "
                                "records cannot be named, nothing is recovered\n");
}

TEST_CASE("a trace archive that cannot be opened leaves the program unharmed", "[mpi]") {
    std::string dir = freshDirectory("blocked_archive");
    CommandResult run = measure(dir, WAITSCOPE_TEST_FAULTS, 2, "block_archive 3");
    INFO(run.output);
    CHECK(run.exitCode == 0);
    for (int rank = 0; rank < 2; ++rank) {
        std::string status = readFile(dir + "/exp/ranks/" + std::to_string(rank) + ".status");
        CHECK(status.rfind("incomplete: ", 0) == 0);
    }
    CHECK(readFile(dir + "/exp/ranks/0.status")
              .find("cannot open the OTF2 archive in '" + dir + "/exp'") != std::string::npos);
    // The records stay for `waitscope recover`.
    CHECK(fs::exists(dir + "/exp/ranks/0.records"));
    CHECK(fs::exists(dir + "/exp/ranks/0.defs"));
}

TEST_CASE("recovery keeps nonblocking messages and collectives of derived communicators",
          "[mpi][fault]") {
    // 4 ranks: halves {0, 2} and {1, 3}; rank 1 dies after every rank's last barrier.
    std::string dir = freshDirectory("fault_split");
    // Time for every rank to save on a loaded machine, as `waitscope analyze` gives it.
    CommandResult run =
        runCommand("OMPI_MCA_odls_base_sigkill_timeout=3 " +
                   mpirunCommand(4, {"WAITSCOPE_EXPERIMENT_DIRECTORY=" + dir + "/exp"},
                                 WAITSCOPE_TEST_FAULTS, "segv_split 20", true));
    INFO(run.output);
    CHECK(run.exitCode != 0);
    CommandResult recover =
        runCommand(std::string(WAITSCOPE_TEST_DRIVER) + " recover " + dir + "/exp");
    INFO(recover.output);
    REQUIRE(recover.exitCode == 0);
    CHECK(recover.output.find("rank 1 died (SIGSEGV)") != std::string::npos);
    CHECK(recover.output.find("left out") == std::string::npos); // everything matched
    std::vector<TraceEvent> events = readEvents(anchorOf(dir + "/exp"));
    for (int rank = 0; rank < 4; ++rank) {
        INFO("rank " << rank);
        // 20 nonblocking exchanges and allreduces in the half (the prologue's ring exchanges
        // are blocking sends and receives).
        CHECK(countEvents(events, "MPI_ISEND", rank) == 20);
        CHECK(countEvents(events, "MPI_IRECV", rank) == 20);
        CHECK(countEvents(events, "ENTER", rank, "MPI_Allreduce") == 20);
    }
    // The recovered trace is analyzed like any other.
    CommandResult replay =
        runCommand(mpirunCommand(4, {}, WAITSCOPE_TEST_REPLAY, "--quiet " + dir + "/exp", false));
    INFO(replay.output);
    CHECK(replay.exitCode == 0);
    CHECK(fs::exists(dir + "/exp/report.cubex"));
}

TEST_CASE("recovery keeps the one-sided and file I/O records of a run whose rank died, and "
          "the recovered trace has their metrics",
          "[mpi][fault]") {
    // 3 ranks: 6 collective writes of 16 bytes and 6 puts of 4 bytes in fence epochs each,
    // then rank 1 dies with the file open and the window not freed.
    std::string dir = freshDirectory("fault_rma_io");
    CommandResult run = runCommand(
        "OMPI_MCA_odls_base_sigkill_timeout=3 " +
        mpirunCommand(3, {"WAITSCOPE_EXPERIMENT_DIRECTORY=" + dir + "/exp"}, WAITSCOPE_TEST_FAULTS,
                      "segv_rma_io 6 '" + dir + "/data.bin'", true));
    INFO(run.output);
    CHECK(run.exitCode != 0);
    CommandResult recover =
        runCommand(std::string(WAITSCOPE_TEST_DRIVER) + " recover " + dir + "/exp");
    INFO(recover.output);
    REQUIRE(recover.exitCode == 0);
    CHECK(recover.output.find("rank 1 died (SIGSEGV)") != std::string::npos);
    CHECK(recover.output.find("left out") == std::string::npos); // everything matched
    const std::string anchor = anchorOf(dir + "/exp");
    CHECK(readDefinitions(anchor, "IO_HANDLE").size() == 1);
    CHECK(readDefinitions(anchor, "RMA_WIN").size() == 1);
    std::vector<TraceEvent> events = readEvents(anchor);
    for (int rank = 0; rank < 3; ++rank) {
        INFO("rank " << rank);
        CHECK(countEvents(events, "IO_CREATE_HANDLE", rank) == 1);
        CHECK(countEvents(events, "IO_OPERATION_BEGIN", rank) == 6);
        CHECK(countEvents(events, "IO_OPERATION_COMPLETE", rank) == 6);
        CHECK(countEvents(events, "RMA_WIN_CREATE", rank) == 1);
        CHECK(countEvents(events, "RMA_PUT", rank) == 6);
        // The window's creation and its 7 fences.
        CHECK(countEvents(events, "RMA_COLLECTIVE_END", rank) == 8);
    }
    // The recovered trace is analyzed with the bytes written and put.
    const std::string dump = dir + "/values.txt";
    CommandResult replay =
        runCommand(mpirunCommand(3, {}, WAITSCOPE_TEST_REPLAY,
                                 "--quiet --dump-text '" + dump + "' '" + dir + "/exp'", false));
    INFO(replay.output);
    REQUIRE(replay.exitCode == 0);
    std::map<std::pair<std::string, int>, double> values;
    std::istringstream lines(readFile(dump));
    for (std::string line; std::getline(lines, line);) {
        std::istringstream fields(line);
        std::string metric, path, rank, value;
        std::getline(fields, metric, '\t');
        std::getline(fields, path, '\t');
        std::getline(fields, rank, '\t');
        std::getline(fields, value, '\t');
        if (!value.empty() && metric != "diagnostic")
            values[{metric, std::stoi(rank)}] += std::stod(value);
    }
    for (int rank = 0; rank < 3; ++rank) {
        INFO("rank " << rank);
        CHECK(values[{"io_bytes_written", rank}] == 96);
        CHECK(values[{"comms_rma_puts", rank}] == 6);
        CHECK(values[{"bytes_put", rank}] == 24);
        CHECK(values[{"syncs_rma_active", rank}] == 7);
    }
}

TEST_CASE("analyze -a of a failed run's experiment recovers it first", "[mpi][fault]") {
    std::string dir = freshDirectory("fault_again");
    CommandResult run = measure(dir, WAITSCOPE_TEST_FAULTS, 3, "abort 20");
    INFO(run.output);
    CHECK(run.exitCode != 0);
    // The test launcher's environment ("env VARIABLES mpirun ..."), for the mpirun of -a.
    const std::string launcher = mpirunCommand(3, {}, "true", "", false);
    const std::string environment = launcher.substr(0, launcher.find(WAITSCOPE_TEST_MPIRUN_PATH));
    CommandResult again = runCommand(
        environment + " PATH=" + fs::path(WAITSCOPE_TEST_MPIRUN_PATH).parent_path().string() +
        ":$PATH " + WAITSCOPE_TEST_DRIVER + " analyze -q -a " + dir + "/exp");
    INFO(again.output);
    CHECK(again.exitCode == 0);
    CHECK(again.output.find("rank 1 called MPI_Abort (error code 7) after ") != std::string::npos);
    CHECK(fs::exists(dir + "/exp/report.cubex"));
    CHECK(readFile(dir + "/exp/summary.txt").find("incomplete trace: rank 1 called MPI_Abort") !=
          std::string::npos);
}

TEST_CASE("file reads and writes are OTF2 I/O operations with their bytes, and the report carries "
          "the bytes by call path",
          "[mpi][io]") {
    std::string dir = freshDirectory("io_records");
    CommandResult run = measure(dir, WAITSCOPE_TEST_IO_RMA_CALLS, 3, "'" + dir + "/data.bin'");
    INFO(run.output);
    REQUIRE(run.exitCode == 0);
    const std::string exp = dir + "/exp";
    requireComplete(exp, 3);
    // One handle for the file, opened on MPI_COMM_WORLD, of the MPI-IO paradigm.
    const std::vector<std::string> handles = readDefinitions(anchorOf(exp), "IO_HANDLE");
    REQUIRE(handles.size() == 1);
    CHECK(handles[0].find("data.bin") != std::string::npos);
    CHECK(handles[0].find("MPI_COMM_WORLD") != std::string::npos);
    CHECK(readDefinitions(anchorOf(exp), "IO_PARADIGM").size() == 1);
    const std::vector<TraceEvent> events = readEvents(anchorOf(exp));
    requireMonotonic(events);
    for (int rank = 0; rank < 3; ++rank) {
        INFO("rank " << rank);
        CHECK(countEvents(events, "IO_CREATE_HANDLE", rank) == 1);
        CHECK(countEvents(events, "IO_DESTROY_HANDLE", rank) == 1);
        // write_at 2, write_all, iwrite_at, sync, read_at_all, iread.
        CHECK(countEvents(events, "IO_OPERATION_BEGIN", rank) == 7);
        CHECK(countEvents(events, "IO_OPERATION_COMPLETE", rank) == 7);
        CHECK(countEvents(events, "IO_OPERATION_ISSUED", rank) == 2);
        // The seeks as Score-P records them: offset requested, whence, the pointer after (in
        // etypes of the view, ints): the individual pointer to the collective block, the
        // shared one to 5.
        std::vector<std::string> seeks;
        for (const TraceEvent& e : events)
            if (e.location == rank && e.name == "IO_SEEK")
                seeks.push_back(e.attribute("Offset Request") + " " + e.attribute("Whence") + " " +
                                e.attribute("Offset Result"));
        const std::string block = std::to_string(3 * 16 + rank * 16);
        CHECK(seeks == std::vector<std::string>{block + " FROM_START " + block, "5 FROM_START 5"});
        std::map<std::string, std::string> modeOf; // matching id -> mode
        std::map<std::string, std::uint64_t> requested, done;
        int collective = 0, nonblocking = 0;
        for (const TraceEvent& e : events) {
            if (e.location != rank) {
                continue;
            }
            if (e.name == "IO_OPERATION_BEGIN") {
                modeOf[e.attribute("Matching Id")] = e.attribute("Mode");
                requested[e.attribute("Mode")] += std::stoull(e.attribute("Bytes Request"));
                collective += e.attributes.find("COLLECTIVE") != std::string::npos;
                nonblocking += e.attributes.find("NON_BLOCKING") != std::string::npos;
            } else if (e.name == "IO_OPERATION_COMPLETE") {
                done[modeOf[e.attribute("Matching Id")]] +=
                    std::stoull(e.attribute("Bytes Result"));
            }
        }
        // Written: 2 x 8 ints, 16 ints, 1 int; read: 16 ints, 1 int; the sync a flush.
        CHECK(requested["WRITE"] == 132);
        CHECK(done["WRITE"] == 132);
        CHECK(requested["READ"] == 68);
        CHECK(done["READ"] == 68);
        CHECK(done["FLUSH"] == 0);
        CHECK(collective == 3); // write_all, sync, read_at_all
        CHECK(nonblocking == 2);
    }
    // The analysis: bytes where each operation completed (a nonblocking one: its MPI_Wait).
    const std::string dump = dir + "/values.txt";
    CommandResult replay = runCommand(mpirunCommand(
        3, {}, WAITSCOPE_TEST_REPLAY, "--quiet --dump-text '" + dump + "' '" + exp + "'", false));
    INFO(replay.output);
    REQUIRE(replay.exitCode == 0);
    std::map<std::tuple<std::string, std::string, int>, double> values;
    std::istringstream lines(readFile(dump));
    for (std::string line; std::getline(lines, line);) {
        std::istringstream fields(line);
        std::string metric, path, rank, value;
        std::getline(fields, metric, '\t');
        std::getline(fields, path, '\t');
        std::getline(fields, rank, '\t');
        std::getline(fields, value, '\t');
        if (metric.rfind("io_bytes_", 0) == 0) {
            path = path.substr(path.find('/') + 1); // without the program (the root)
            values[{metric, path, std::stoi(rank)}] += std::stod(value);
        }
    }
    for (int rank = 0; rank < 3; ++rank) {
        INFO("rank " << rank);
        CHECK(values[{"io_bytes_written", "MPI_File_write_at", rank}] == 64);
        CHECK(values[{"io_bytes_written", "MPI_File_write_all", rank}] == 64);
        CHECK(values[{"io_bytes_written", "MPI_Wait", rank}] == 4);
        CHECK(values[{"io_bytes_read", "MPI_File_read_at_all", rank}] == 64);
        CHECK(values[{"io_bytes_read", "MPI_Wait", rank}] == 4);
    }
    double total = 0;
    for (const auto& [key, value] : values) {
        total += value;
    }
    CHECK(total == 3 * (132 + 68));
}
