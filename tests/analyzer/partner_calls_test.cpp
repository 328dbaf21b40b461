// The partners' calls as the replays write them (PartnerCallWrites): in blocks on a scratch file
// they read and merge to what the same writes give in memory, the writes apart from the
// operation order taking precedence as the later writes they are.
#include "partner_calls.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <random>

using namespace waitscope;
using namespace waitscope::analysis;

namespace {

ReplayRecord recordOf(uint32_t k, double pass) {
    return ReplayRecord{k + pass, k + pass + 0.5, static_cast<double>(k)};
}

bool same(const ReplayRecord& a, const ReplayRecord& b) {
    return a.enter == b.enter && a.exit == b.exit && a.info == b.info;
}

// The replays' writes of `operations` operations, in memory (`file` null) or in blocks: the
// forward pass writes every third operation in order, the backward pass the operations after
// those, reading back what the forward one wrote and writing apart, now and then, to an
// earlier operation (a receive's request) or a later one (a Late Receiver's completion); after
// it, more writes apart. Returns what each read saw and the merged array.
std::pair<std::vector<ReplayRecord>, std::vector<ReplayRecord>>
written(uint32_t operations, ScratchFile* file, size_t blockEntries) {
    PartnerCallWrites calls;
    calls.start(operations, file, blockEntries);
    std::vector<ReplayRecord> seen;
    for (uint32_t k = 0; k < operations; k += 3) {
        calls.writeForward(k, recordOf(k, 0.0));
    }
    std::mt19937 random(7);
    for (uint32_t k = 1; k < operations; k += 3) {
        seen.push_back(calls.read(k - 1));
        calls.writeBackward(k, recordOf(k, 1000.0));
        if (random() % 5 == 0) {
            calls.write(k - 1, recordOf(k - 1, 2000.0));
        }
        if (random() % 7 == 0 && k + 1 < operations) {
            calls.write(k + 1, recordOf(k + 1, 3000.0));
        }
        seen.push_back(calls.read(k - 1));
        seen.push_back(calls.read(k));
    }
    for (uint32_t k = 0; k < operations; k += 11) {
        calls.write(k, recordOf(k, 4000.0));
    }
    for (uint32_t k = 0; k < operations; ++k) {
        seen.push_back(calls.read(k));
    }
    SpilledArray<ReplayRecord> merged = calls.finish();
    std::vector<ReplayRecord> all;
    for (size_t k = 0; k < merged.size(); ++k) {
        all.push_back(merged[k]);
    }
    return {seen, all};
}

} // namespace

TEST_CASE("the partners' calls written in blocks read and merge as when held whole", "[spill]") {
    constexpr uint32_t kOperations = 2000;
    const auto whole = written(kOperations, nullptr, 0);
    REQUIRE(whole.second.size() == kOperations);
    // The last writes win, whatever array they went to.
    CHECK(same(whole.second[0], recordOf(0, 4000.0)));
    CHECK(same(whole.second[1], recordOf(1, 1000.0)));
    CHECK(same(whole.second[3], recordOf(3, 0.0)));
    for (const size_t block : {size_t{1}, size_t{3}, size_t{64}, size_t{5000}}) {
        INFO("blocks of " << block);
        ScratchFile file;
        REQUIRE(file.open(std::filesystem::temp_directory_path().string(), ".waitscope-test",
                          "the test"));
        const auto blocks = written(kOperations, &file, block);
        REQUIRE(file.error().empty());
        REQUIRE(blocks.first.size() == whole.first.size());
        size_t differ = 0;
        for (size_t i = 0; i < whole.first.size(); ++i) {
            differ += same(blocks.first[i], whole.first[i]) ? 0 : 1;
        }
        CHECK(differ == 0);
        REQUIRE(blocks.second.size() == kOperations);
        differ = 0;
        for (size_t k = 0; k < kOperations; ++k) {
            differ += same(blocks.second[k], whole.second[k]) ? 0 : 1;
        }
        CHECK(differ == 0);
    }
}
