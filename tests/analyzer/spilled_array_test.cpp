// The root-cause passes' arrays in blocks on disk (SpilledArray over a rank's ScratchFile): what
// was appended reads back at every index, in any order, with only a few blocks in memory.
#include "spilled_array.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <vector>

using namespace waitscope;
using namespace waitscope::analysis;

namespace {

// Without padding: every byte written to the file is initialized.
struct Record {
    uint64_t id = 0;
    double value = 0.0;
};

Record recordOf(size_t i) {
    return Record{i * 3 + 1, static_cast<double>(i) * 0.5};
}

// Reads every record of `array` (of `count` appended by recordOf()) forward, backward and
// alternating between the two ends, and counts those that differ.
size_t mismatches(const SpilledArray<Record>& array, size_t count) {
    size_t wrong = 0;
    const auto check = [&](size_t i) {
        const Record r = array[i];
        wrong += r.id != recordOf(i).id || r.value != recordOf(i).value ? 1 : 0;
    };
    for (size_t i = 0; i < count; ++i) {
        check(i);
    }
    for (size_t i = count; i-- > 0;) {
        check(i);
    }
    for (size_t i = 0; i < count; ++i) {
        check(i);
        check(count - 1 - i);
    }
    return wrong;
}

std::string scratchDirectory() {
    return std::filesystem::temp_directory_path().string();
}

} // namespace

TEST_CASE("a spilled array reads back every record across blocks", "[spill]") {
    ScratchFile file;
    REQUIRE(file.open(scratchDirectory(), ".waitscope-test", "the test"));
    const size_t block = GENERATE(1, 2, 7, 1000, 5000);
    INFO("blocks of " << block);
    constexpr size_t kCount = 2001;
    SpilledArray<Record> array;
    array.spillTo(&file, block);
    array.reserve(kCount);
    for (size_t i = 0; i < kCount; ++i) {
        array.push(recordOf(i));
    }
    REQUIRE(array.size() == kCount);
    CHECK(mismatches(array, kCount) == 0);
    CHECK(file.error().empty());
    // The full blocks are on disk; memory holds the one being filled, two read back and the
    // blocks' offsets (in a doubling vector).
    CHECK(file.size() >= (kCount / block) * block * sizeof(Record));
    CHECK(array.bytes() <= (3 * block + 1) * sizeof(Record) +
                               2 * (kCount / block + 1) * sizeof(uint64_t) + 64 * sizeof(Record));
}

TEST_CASE("records held in memory are written when the array spills, and arrays share a file",
          "[spill]") {
    ScratchFile file;
    REQUIRE(file.open(scratchDirectory(), ".waitscope-test", "the test"));
    constexpr size_t kCount = 1234;
    std::vector<Record> records;
    for (size_t i = 0; i < kCount; ++i) {
        records.push_back(recordOf(i));
    }
    // One array spilled from a whole vector, another appended record by record meanwhile.
    SpilledArray<Record> other;
    other.spillTo(&file, 5);
    for (size_t i = 0; i < 17; ++i) {
        other.push(recordOf(i));
    }
    SpilledArray<Record> whole(std::move(records));
    CHECK(!whole.spilled());
    CHECK(mismatches(whole, kCount) == 0);
    whole.spillTo(&file, 10);
    CHECK(whole.spilled());
    for (size_t i = 17; i < kCount; ++i) {
        other.push(recordOf(i));
    }
    CHECK(mismatches(whole, kCount) == 0);
    CHECK(mismatches(other, kCount) == 0);
    CHECK(whole.bytes() < kCount * sizeof(Record) / 4);
    CHECK(file.error().empty());
    whole.clear();
    CHECK(whole.empty());
}

TEST_CASE("a scratch file reports what fails, naming the file or the directory", "[spill]") {
    ScratchFile missing;
    const Status opened = missing.open("/nonexistent/waitscope-scratch", ".waitscope-test", "X");
    REQUIRE(!opened);
    CHECK(opened.error().message() == "cannot create a scratch file of X in "
                                      "/nonexistent/waitscope-scratch: No such file or directory");
    ScratchFile file;
    REQUIRE(file.open(scratchDirectory(), ".waitscope-test", "the test"));
    const uint32_t value = 7;
    CHECK(file.append(&value, sizeof value) == 0);
    uint32_t back = 0;
    REQUIRE(file.read(&back, sizeof back, 0));
    CHECK(back == 7);
    CHECK(!file.read(&back, sizeof back, 4));
    CHECK_THAT(file.error(), Catch::StartsWith("cannot read the scratch file " +
                                               scratchDirectory() + "/.waitscope-test.") &&
                                 Catch::EndsWith(" back: it ended early"));
    // Later reads fail too: a pass checks once at its end.
    CHECK(!file.read(&back, sizeof back, 0));
}
