// Run under mpirun with 2 processes: the co-located transport (M:N replay, here 5 traced ranks
// on 2 processes) ends waits that can never be satisfied with errors instead of hanging. Traced
// rank 1 (on process 0) awaits a payload rank 0 never posts, as in a trace with a receive
// without its send, while every other rank ends its pass; each rank's wait must fail within
// seconds, rank 1's naming the message it waited for and the others' the rank missing from
// their gather, and the world's drain must return. Exits non-zero with a message otherwise.
#include "co_located_check.h"

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

using namespace waitscope;
using namespace waitscope::analysis;

namespace {

constexpr uint32_t kRanks = 5;

Status waitOnce(Transport& t) {
    if (t.rank() == 1) {
        std::vector<double> got;
        return t.await(kWorldComm, 0, 9, got);
    }
    return t.finishPass();
}

Status check(uint32_t rank, const Status& s, double seconds) {
    const std::string me = "rank " + std::to_string(rank);
    if (s) {
        return Error(me + ": a wait that cannot end ended");
    }
    const std::string expected =
        rank == 1 ? "rank 1: replay stalled waiting for a message from rank 0 with tag 9"
                  : me + ": replay stalled waiting for gather 0 on communicator " +
                        std::to_string(kWorldComm) + " from rank 1: no analysis process can go on";
    if (s.error().message().rfind(expected, 0) != 0) {
        return Error(me + ": unexpected stall message: " + s.error().message());
    }
    if (seconds > 10.0) {
        return Error(me + ": the stall took " + std::to_string(seconds) + " s to detect");
    }
    return Status::success();
}

} // namespace

int main(int argc, char** argv) {
    return testing::runCoLocatedCheck(argc, argv, kRanks, [](CoLocatedWorld& w) {
        const uint32_t first = w.firstRank();
        std::vector<Status> results(w.endRank() - first);
        std::vector<double> seconds(results.size());
        testing::onEachLocalRank(w, [&](uint32_t k) {
            const auto start = std::chrono::steady_clock::now();
            results[k] = waitOnce(w.endpoint(first + k));
            seconds[k] =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        });
        int status = 0;
        for (uint32_t k = 0; k < results.size(); ++k) {
            if (Status s = check(first + k, results[k], seconds[k]); !s) {
                std::fprintf(stderr, "error: %s\n", s.error().message().c_str());
                status = 1;
            }
        }
        (void)w.drain(); // returns (whether or not it finds the stall again)
        return status;
    });
}
