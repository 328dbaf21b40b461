// Run under mpirun: the bulk exchange of the MPI transport delivers records with interleaved
// tags, in several chunks and to the sender itself, in posting order per tag; the
// message-driven exchange carries a token around a ring of ranks several times (each hop
// depends on the previous one), mixed with awaitAll and with payloads nobody awaits; a wait
// for a payload that no rank sends, and a wait for a rank that abandoned the replay, end in
// errors naming the ranks within seconds. Exits non-zero with a message on any wrong value.
#include "waitscope/analysis/mpi_transport.h"

#include <chrono>
#include <cstdio>
#include <string>

using namespace waitscope;
using namespace waitscope::analysis;

namespace {

Status ring(Transport& t, int rounds) {
    const uint32_t n = t.size();
    const uint32_t me = t.rank();
    double value = 0.0;
    for (int round = 0; round < rounds; ++round) {
        if (me != 0 || round > 0) {
            std::vector<double> got;
            if (Status s = t.await(kWorldComm, (me + n - 1) % n, 5, got); !s) {
                return s;
            }
            value = got.empty() ? -1.0 : got[0];
            const double expected = static_cast<double>(round * n + me);
            if (value != expected || got.size() != 1 + me % 3) {
                return Error("rank " + std::to_string(me) + ": got " + std::to_string(value) +
                             " in round " + std::to_string(round) + ", expected " +
                             std::to_string(expected));
            }
        }
        // Payload length varies with the sender, to exercise the batch framing.
        std::vector<double> payload(1 + ((me + 1) % n) % 3, 0.0);
        payload[0] = value + 1;
        if (!(round == rounds - 1 && me == n - 1)) {
            if (Status s = t.post(kWorldComm, (me + 1) % n, 5, payload); !s) {
                return s;
            }
        }
        // A payload nobody awaits: finishPass must still complete.
        if (Status s = t.post(kWorldComm, (me + 1) % n, 77, {1.0}); !s) {
            return s;
        }
        auto all = t.awaitAll(kWorldComm, {static_cast<double>(me), value});
        if (!all || all->size() != 2 * n || (*all)[2 * (n - 1)] != static_cast<double>(n - 1)) {
            return Error("rank " + std::to_string(me) + ": wrong awaitAll result");
        }
    }
    return t.finishPass();
}

// Every rank sends every rank (itself included) records on three tags, interleaved; to its
// right neighbour more than one wire chunk. Receivers take the tags in another order than they
// were posted and must find each tag's records in posting order, with their info when the
// transport carries it (`carry`) and 0 when not.
Status bulk(Transport& t, bool carry) {
    t.carryRecordInfo(carry);
    const uint32_t n = t.size();
    const uint32_t me = t.rank();
    const auto count = [n, me](uint32_t to) { return to == (me + 1) % n ? 70001u : 1000u + to; };
    for (uint32_t to = 0; to < n; ++to) {
        for (uint32_t k = 0; k < count(to); ++k) {
            const uint32_t tag = k % 7 == 0 ? 2 : k % 3 == 0 ? 0 : 1;
            const ReplayRecord record{1e6 * me + k, 1.0 * to, 4.0 * k + 1};
            if (Status s = t.send(kWorldComm, to, tag, record); !s) {
                return s;
            }
        }
    }
    if (Status s = t.exchange(); !s) {
        return s;
    }
    for (uint32_t from = 0; from < n; ++from) {
        const uint32_t total = (me == (from + 1) % n) ? 70001u : 1000u + me;
        for (uint32_t tag : {2u, 0u, 1u}) {
            for (uint32_t k = 0; k < total; ++k) {
                const uint32_t expectedTag = k % 7 == 0 ? 2 : k % 3 == 0 ? 0 : 1;
                if (expectedTag != tag) {
                    continue;
                }
                auto got = t.receive(kWorldComm, from, tag);
                if (!got || got->enter != 1e6 * from + k || got->exit != 1.0 * me ||
                    got->info != (carry ? 4.0 * k + 1 : 0.0)) {
                    return Error("rank " + std::to_string(me) + ": wrong record " +
                                 std::to_string(k) + " with tag " + std::to_string(tag) +
                                 " from rank " + std::to_string(from));
                }
            }
        }
    }
    if (t.receive(kWorldComm, 0, 0)) {
        return Error("rank " + std::to_string(me) + ": a record beyond those sent");
    }
    return Status::success();
}

// Rank 1 waits for a payload rank 0 never posts, the others end the pass: no rank can go on,
// and every rank's wait must fail, rank 1's naming what it waited for.
Status stall(Transport& t) {
    const auto start = std::chrono::steady_clock::now();
    Status s;
    if (t.rank() == 1) {
        std::vector<double> got;
        s = t.await(kWorldComm, 0, 9, got);
    } else {
        s = t.finishPass();
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::string me = "rank " + std::to_string(t.rank());
    if (s) {
        return Error(me + ": a wait that cannot end ended");
    }
    const std::string expected =
        t.rank() == 1 ? "rank 1: replay stalled waiting for a message from rank 0 with tag 9"
                      : me + ": replay stalled waiting for ";
    if (s.error().message().rfind(expected, 0) != 0) {
        return Error(me + ": unexpected stall message: " + s.error().message());
    }
    if (seconds > 10.0) {
        return Error(me + ": the stall took " + std::to_string(seconds) + " s to detect");
    }
    return Status::success();
}

// The last rank abandons the replay; rank 0 waits for a payload from it and must stop.
Status abandoned(MpiTransport& t) {
    const uint32_t last = t.size() - 1;
    if (t.rank() == last) {
        t.abandon();
        return Status::success();
    }
    if (t.rank() != 0) {
        return Status::success();
    }
    std::vector<double> got;
    Status s = t.await(kWorldComm, last, 4, got);
    const std::string expected = "rank 0: stopped waiting for a message from rank " +
                                 std::to_string(last) + " with tag 4 on communicator " +
                                 std::to_string(kWorldComm) + ": rank " + std::to_string(last) +
                                 " left the replay with an error";
    if (s || s.error().message() != expected) {
        return Error("rank 0: unexpected end of a wait for an abandoned rank: " +
                     (s ? std::string("none") : s.error().message()));
    }
    return Status::success();
}

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    trace::Definitions defs;
    int status = 0;
    {
        auto transport = MpiTransport::create(defs);
        if (transport) {
            for (const bool carry : {false, true}) {
                if (Status s = bulk(**transport, carry); !s && status == 0) {
                    std::fprintf(stderr, "error: %s\n", s.error().message().c_str());
                    status = 1;
                }
            }
        }
        for (int pass = 0; pass < 2 && status == 0 && transport; ++pass) {
            if (Status s = ring(**transport, 50); !s) {
                std::fprintf(stderr, "error: %s\n", s.error().message().c_str());
                status = 1;
            }
        }
    }
    for (int scenario = 0; scenario < 2 && status == 0; ++scenario) {
        auto transport = MpiTransport::create(defs);
        Status s = !transport      ? Status(transport.error())
                   : scenario == 0 ? stall(**transport)
                                   : abandoned(**transport);
        if (!s) {
            std::fprintf(stderr, "error: %s\n", s.error().message().c_str());
            status = 1;
        }
    }
    int worst = 0;
    MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return worst;
}
