// The one-sided communication records of the measurement (docs/rma_records.md), read back with
// otf2-print: counts of every RMA record kind, bytes, targets, windows, and every transfer
// completed once, on the RMA examples and on a program calling every kind of one-sided call.
#include "trace_text.h"

#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <string>
#include <vector>

using namespace waitscope::test;

namespace {

/// Runs `program` with `ranks` ranks under the measurement into `dir`/exp; returns its events.
std::vector<TraceEvent> measureRma(const std::string& name, const std::string& program, int ranks,
                                   const std::string& args = {}) {
    const std::string dir = freshDirectory(name);
    CommandResult run = runCommand(
        mpirunCommand(ranks, {"WAITSCOPE_EXPERIMENT_DIRECTORY=" + dir + "/exp"}, program, args));
    INFO(run.output);
    REQUIRE(run.exitCode == 0);
    std::vector<TraceEvent> events = readEvents(dir + "/exp/traces.otf2");
    REQUIRE(!events.empty());
    return events;
}

/// The raw text of `key: ...` up to the next ", " (a definition reference keeps its "<id>").
std::string field(const TraceEvent& e, const std::string& key) {
    size_t at = e.attributes.find(key + ": ");
    if (at == std::string::npos)
        return {};
    at += key.size() + 2;
    size_t end = e.attributes.find(", ", at);
    return e.attributes.substr(at, end == std::string::npos ? end : end - at);
}

/// The events of `name` on `rank`.
std::vector<TraceEvent> of(const std::vector<TraceEvent>& events, const std::string& name,
                           int rank) {
    std::vector<TraceEvent> out;
    for (const TraceEvent& e : events)
        if (e.name == name && e.location == rank)
            out.push_back(e);
    return out;
}

/// Per rank: every transfer's matching id has exactly one local completion, and at most one
/// remote one, after the transfer; returns the number of distinct ids.
size_t requireCompletedOnce(const std::vector<TraceEvent>& events, int rank) {
    std::map<std::string, int> local, remote;
    std::set<std::string> started;
    for (const TraceEvent& e : events) {
        if (e.location != rank)
            continue;
        const std::string id = e.attribute("Matching");
        if (e.name == "RMA_PUT" || e.name == "RMA_GET" || e.name == "RMA_ATOMIC") {
            CHECK(local.count(id) == 0); // a new transfer never reuses a completed id
            started.insert(id);
        } else if (e.name == "RMA_OP_COMPLETE_NON_BLOCKING") {
            CHECK(started.count(id) == 1);
            ++local[id];
        } else if (e.name == "RMA_OP_COMPLETE_REMOTE") {
            CHECK(local.count(id) == 1);
            ++remote[id];
        }
    }
    for (const std::string& id : started) {
        INFO("rank " << rank << " matching id " << id);
        CHECK(local[id] == 1);
        CHECK(remote[id] <= 1);
    }
    CHECK(local.size() == started.size());
    return started.size();
}

/// The synchronization level as otf2-print writes it: "NONE", "PROCESS", "PROCESS, MEMORY".
std::string level(const TraceEvent& e) {
    std::string text = field(e, "Level of Synchronicity");
    if (!text.empty() && text[0] == '{') {
        size_t at = e.attributes.find("Level of Synchronicity: {") + 25;
        return e.attributes.substr(at, e.attributes.find('}', at) - at);
    }
    return text;
}

int count(const std::vector<TraceEvent>& events, const std::string& name, int rank,
          const std::string& key = {}, const std::string& value = {}) {
    int n = 0;
    for (const TraceEvent& e : of(events, name, rank))
        if (key.empty() || (key == "Level of Synchronicity" ? level(e) : e.attribute(key)) == value)
            ++n;
    return n;
}

void requireBalancedCollectives(const std::vector<TraceEvent>& events, int rank) {
    CHECK(count(events, "RMA_COLLECTIVE_BEGIN", rank) == count(events, "RMA_COLLECTIVE_END", rank));
    CHECK(count(events, "RMA_WIN_CREATE", rank) == count(events, "RMA_WIN_DESTROY", rank));
    CHECK(count(events, "RMA_REQUEST_LOCK", rank) == count(events, "RMA_RELEASE_LOCK", rank));
}

} // namespace

TEST_CASE("fence epochs are recorded as RMA collectives with one put per epoch", "[mpi][rma]") {
    const int iterations = 3;
    std::vector<TraceEvent> events =
        measureRma("rma_fence", WAITSCOPE_TEST_EXAMPLE_FENCE_IMBALANCE, 4, "3 20");
    for (int rank = 0; rank < 4; ++rank) {
        INFO("rank " << rank);
        requireBalancedCollectives(events, rank);
        CHECK(count(events, "RMA_WIN_CREATE", rank) == 1);
        CHECK(count(events, "RMA_COLLECTIVE_END", rank) == 2 + 1 + iterations);
        CHECK(count(events, "RMA_COLLECTIVE_END", rank, "Operation", "BARRIER") == 1 + iterations);
        CHECK(count(events, "RMA_COLLECTIVE_END", rank, "Operation", "CREATE_HANDLE") == 1);
        CHECK(count(events, "RMA_COLLECTIVE_END", rank, "Operation", "DESTROY_HANDLE") == 1);
        const std::vector<TraceEvent> puts = of(events, "RMA_PUT", rank);
        CHECK(puts.size() == iterations);
        for (const TraceEvent& put : puts) {
            CHECK(put.attribute("Bytes") == "4");
            CHECK(field(put, "Remote").find(std::to_string((rank + 1) % 4)) == 0);
            CHECK(field(put, "Window") == field(of(events, "RMA_WIN_CREATE", rank)[0], "Window"));
        }
        CHECK(requireCompletedOnce(events, rank) == iterations); // one transfer per epoch
        CHECK(count(events, "RMA_OP_COMPLETE_NON_BLOCKING", rank) == iterations);
        CHECK(count(events, "RMA_OP_COMPLETE_REMOTE", rank) == 0); // a fence ends a put locally
        CHECK(count(events, "RMA_GROUP_SYNC", rank) == 0);
        CHECK(count(events, "RMA_REQUEST_LOCK", rank) == 0);
    }
}

TEST_CASE("post/start/complete/wait are group synchronizations with the epoch's group",
          "[mpi][rma]") {
    const int iterations = 3;
    std::vector<TraceEvent> events =
        measureRma("rma_pscw", WAITSCOPE_TEST_EXAMPLE_PSCW_LATE_POST, 4, "3 20");
    for (int rank = 0; rank < 4; ++rank) {
        INFO("rank " << rank);
        requireBalancedCollectives(events, rank);
        const std::vector<TraceEvent> syncs = of(events, "RMA_GROUP_SYNC", rank);
        REQUIRE(syncs.size() == 2 * iterations);
        for (size_t i = 0; i < syncs.size(); ++i) {
            // post/start: the process level only; wait/complete: memory and process
            CHECK(level(syncs[i]) == (i % 2 == 0 ? "PROCESS" : "PROCESS, MEMORY"));
            CHECK(field(syncs[i], "Group") == field(syncs[0], "Group"));
        }
        CHECK(count(events, "RMA_PUT", rank) == (rank == 0 ? 0 : iterations));
        CHECK(count(events, "RMA_PUT", rank, "Bytes", "4") == (rank == 0 ? 0 : iterations));
        CHECK(requireCompletedOnce(events, rank) == (rank == 0 ? 0u : size_t{iterations}));
        CHECK(count(events, "RMA_OP_COMPLETE_REMOTE", rank) == 0);
    }
    // The exposure group (ranks 1-3) differs from the access group (rank 0).
    CHECK(field(of(events, "RMA_GROUP_SYNC", 0)[0], "Group") !=
          field(of(events, "RMA_GROUP_SYNC", 1)[0], "Group"));
    CHECK(field(of(events, "RMA_GROUP_SYNC", 1)[0], "Group") ==
          field(of(events, "RMA_GROUP_SYNC", 3)[0], "Group"));
}

TEST_CASE("window locks are requested and released, transfers completed at flush and unlock",
          "[mpi][rma]") {
    const int iterations = 3;
    std::vector<TraceEvent> events =
        measureRma("rma_lock", WAITSCOPE_TEST_EXAMPLE_LOCK_CONTENTION, 4, "3 20");
    for (int rank = 0; rank < 4; ++rank) {
        INFO("rank " << rank);
        requireBalancedCollectives(events, rank);
        const bool locker = rank == 1 || rank == 2;
        CHECK(count(events, "RMA_REQUEST_LOCK", rank) == (locker ? iterations + 1 : 1));
        CHECK(count(events, "RMA_REQUEST_LOCK", rank, "Type", "EXCLUSIVE") ==
              (locker ? iterations : 0));
        CHECK(count(events, "RMA_REQUEST_LOCK", rank, "Type", "SHARED") == 1);
        for (const TraceEvent& lock : of(events, "RMA_REQUEST_LOCK", rank))
            CHECK(field(lock, "Remote").find('0') == 0);
        CHECK(count(events, "RMA_ATOMIC", rank) == (locker ? iterations : 0));
        CHECK(count(events, "RMA_ATOMIC", rank, "Type", "ACCUMULATE") == (locker ? iterations : 0));
        CHECK(count(events, "RMA_ATOMIC", rank, "Sent", "4") == (locker ? iterations : 0));
        CHECK(count(events, "RMA_GET", rank) == 1);
        const size_t transfers = (locker ? iterations : 0) + 1;
        CHECK(requireCompletedOnce(events, rank) == transfers);
        // flush and unlock complete fully: local and remote
        CHECK(count(events, "RMA_OP_COMPLETE_REMOTE", rank) == static_cast<int>(transfers));
    }
}

TEST_CASE("every kind of one-sided call writes Score-P's records", "[mpi][rma]") {
    std::vector<TraceEvent> events = measureRma("rma_calls", WAITSCOPE_TEST_RMA_CALLS, 3);
    for (int rank = 0; rank < 3; ++rank) {
        INFO("rank " << rank);
        const bool origin = rank != 0; // the ranks that access rank 0 in the PSCW epochs
        requireBalancedCollectives(events, rank);
        CHECK(count(events, "RMA_WIN_CREATE", rank) == 3);
        CHECK(count(events, "RMA_COLLECTIVE_END", rank) == 11);
        CHECK(count(events, "RMA_COLLECTIVE_END", rank, "Operation", "CREATE_HANDLE") == 2);
        CHECK(count(events, "RMA_COLLECTIVE_END", rank, "Operation",
                    "CREATE_HANDLE_AND_ALLOCATE") == 1);
        CHECK(count(events, "RMA_COLLECTIVE_END", rank, "Operation", "DESTROY_HANDLE") == 2);
        CHECK(count(events, "RMA_COLLECTIVE_END", rank, "Operation",
                    "DESTROY_HANDLE_AND_DEALLOCATE") == 1);
        CHECK(count(events, "RMA_COLLECTIVE_END", rank, "Operation", "BARRIER") == 5);
        CHECK(count(events, "RMA_PUT", rank) == (origin ? 5 : 3));
        CHECK(count(events, "RMA_PUT", rank, "Bytes", "4") == (origin ? 5 : 3));
        CHECK(count(events, "RMA_GET", rank) == (origin ? 3 : 1));
        CHECK(count(events, "RMA_ATOMIC", rank) == 6);
        CHECK(count(events, "RMA_ATOMIC", rank, "Type", "ACCUMULATE") == 2);
        CHECK(count(events, "RMA_ATOMIC", rank, "Type", "FETCH_AND_ACCUMULATE") == 3);
        CHECK(count(events, "RMA_ATOMIC", rank, "Type", "COMPARE_AND_SWAP") == 1);
        CHECK(count(events, "RMA_ATOMIC", rank, "Sent", "8") == 1); // Get_accumulate of 2 ints
        CHECK(count(events, "RMA_ATOMIC", rank, "Received", "8") == 1);
        CHECK(count(events, "RMA_ATOMIC", rank, "Received", "0") == 2); // the accumulates
        // Puts to one target in one epoch share their id; the request variants have their own.
        CHECK(requireCompletedOnce(events, rank) == (origin ? 11u : 7u));
        CHECK(count(events, "RMA_OP_COMPLETE_NON_BLOCKING", rank) == (origin ? 11 : 7));
        CHECK(count(events, "RMA_OP_COMPLETE_REMOTE", rank) == (origin ? 6 : 4));
        CHECK(count(events, "RMA_REQUEST_LOCK", rank) == 2);
        CHECK(count(events, "RMA_REQUEST_LOCK", rank, "Type", "EXCLUSIVE") == 1);
        CHECK(count(events, "RMA_GROUP_SYNC", rank, "Level of Synchronicity", "PROCESS") == 2);
        CHECK(count(events, "RMA_GROUP_SYNC", rank, "Level of Synchronicity", "PROCESS, MEMORY") ==
              2);
        // Rank 0's MPI_Win_test calls that did not end the epoch: synchronization level none.
        CHECK(count(events, "RMA_GROUP_SYNC", rank, "Level of Synchronicity", "NONE") ==
              (origin ? 0 : countEvents(events, "ENTER", rank, "MPI_Win_test") - 1));
        // No record for a transfer to MPI_PROC_NULL; every target is a neighbour or rank 0.
        for (const char* kind : {"RMA_PUT", "RMA_GET", "RMA_ATOMIC"})
            for (const TraceEvent& e : of(events, kind, rank)) {
                const std::string remote = field(e, "Remote");
                CHECK((remote.find(std::to_string((rank + 1) % 3)) == 0 ||
                       remote.find(std::to_string((rank + 2) % 3)) == 0 || remote.find('0') == 0));
            }
    }
}
