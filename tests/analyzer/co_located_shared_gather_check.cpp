// Run under mpirun with 2 processes: the co-located transport (M:N replay, here 5 traced ranks
// on 2 processes) gathers once per process. Every rank's sharedGather() of (rank, 10 x rank)
// over the world returns all ranks' values in rank order, the ranks of one process get the
// same instance (not a copy each), and allGather() after it returns the same values. Exits
// non-zero with a message otherwise.
#include "co_located_check.h"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

using namespace waitscope;
using namespace waitscope::analysis;

namespace {

constexpr uint32_t kRanks = 5;

std::vector<double> expectedValues() {
    std::vector<double> all;
    for (uint32_t r = 0; r < kRanks; ++r) {
        all.push_back(r);
        all.push_back(10.0 * r);
    }
    return all;
}

} // namespace

int main(int argc, char** argv) {
    return testing::runCoLocatedCheck(argc, argv, kRanks, [](CoLocatedWorld& w) {
        const uint32_t first = w.firstRank();
        const size_t local = w.endRank() - first;
        std::vector<std::shared_ptr<const std::vector<double>>> shared(local);
        std::vector<std::vector<double>> copied(local);
        std::vector<std::string> errors(local);
        testing::onEachLocalRank(w, [&](uint32_t k) {
            Transport& t = w.endpoint(first + k);
            const double rank = first + k;
            auto all = t.sharedGather(kWorldComm, {rank, 10.0 * rank});
            auto again = all ? t.allGather(kWorldComm, {rank, 10.0 * rank})
                             : Result<std::vector<double>>(all.error());
            if (!all || !again) {
                errors[k] = (!all ? all.error() : again.error()).message();
            } else {
                shared[k] = *all;
                copied[k] = std::move(*again);
            }
        });
        int status = 0;
        const std::vector<double> expected = expectedValues();
        for (uint32_t k = 0; k < local; ++k) {
            const std::string me = "rank " + std::to_string(first + k);
            if (!errors[k].empty()) {
                std::fprintf(stderr, "error: %s: %s\n", me.c_str(), errors[k].c_str());
                status = 1;
            } else if (*shared[k] != expected || copied[k] != expected) {
                std::fprintf(stderr, "error: %s: gathered values out of rank order\n", me.c_str());
                status = 1;
            } else if (shared[k] != shared[0]) {
                std::fprintf(stderr, "error: %s: a gather of its own, not the process's\n",
                             me.c_str());
                status = 1;
            }
        }
        if (Status s = w.drain(); !s) {
            std::fprintf(stderr, "error: %s\n", s.error().message().c_str());
            status = 1;
        }
        return status;
    });
}
