// DirectFileWriter: the bytes written past the page cache are exactly the bytes given, across
// its buffer's and the pages' boundaries, and writers of neighbouring ranges of one file (the
// analysis processes filling the event cache's holes) leave each other's bytes alone.
#include "direct_file_writer.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

using waitscope::timeline::DirectFileWriter;
namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) {
    const fs::path dir = fs::path(WAITSCOPE_TEST_TMP_DIR) / "direct_file_writer";
    fs::create_directories(dir);
    return dir / name;
}

std::string bytesOf(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// `bytes` bytes that differ from page to page and from `seed` to seed.
std::string pattern(size_t bytes, uint32_t seed) {
    std::string out(bytes, '\0');
    uint32_t x = seed * 2654435761u + 1;
    for (char& c : out) {
        x = x * 1664525u + 1013904223u;
        c = static_cast<char>(x >> 24);
    }
    return out;
}

} // namespace

TEST_CASE("a file written past the page cache holds exactly the bytes given") {
    const fs::path path = scratch("whole.bin");
    std::string expected;
    DirectFileWriter out(path.string(), true);
    REQUIRE(out.opened());
    // Pieces of odd sizes across the 1 MiB buffer and the 4 KiB pages; a skip within a page
    // and one over several (zeros in the file).
    const size_t sizes[] = {7, 4089, 20, 1u << 20, 333333, 1, 65536 + 3, 2500000};
    uint32_t seed = 1;
    for (const size_t size : sizes) {
        const std::string piece = pattern(size, seed++);
        out.write(piece.data(), piece.size());
        expected += piece;
        CHECK(out.offset() == expected.size());
        if (seed == 3) {
            out.skip(100);
            expected.append(100, '\0');
        }
        if (seed == 6) {
            out.skip(3 * 4096 + 17);
            expected.append(3 * 4096 + 17, '\0');
        }
    }
    const uint64_t patch = 0x1122334455667788ull;
    REQUIRE(out.close(3, patch));
    std::memcpy(expected.data() + 3, &patch, sizeof patch);
    const std::string written = bytesOf(path);
    REQUIRE(written.size() == expected.size());
    CHECK(written == expected);
}

TEST_CASE("writers of neighbouring ranges of one file leave each other's bytes alone") {
    // The first writer leaves a hole (as the event cache does for other processes' rows); two
    // more fill it, starting and ending inside pages they share with each other and with it.
    const fs::path path = scratch("shared.bin");
    const std::string before = pattern(30001, 7);
    const std::string after = pattern(50005, 8);
    const size_t hole = 4096 * 9 + 123;
    {
        DirectFileWriter first(path.string(), true);
        first.write(before.data(), before.size());
        first.skip(hole);
        first.write(after.data(), after.size());
        REQUIRE(first.close());
    }
    REQUIRE(fs::file_size(path) == before.size() + hole + after.size());
    const std::string left = pattern(10000, 9);
    const std::string right = pattern(hole - left.size(), 10);
    {
        // Written in the other order: the second ends in the page where the first starts.
        DirectFileWriter second(path.string(), false, before.size() + left.size());
        REQUIRE(second.opened());
        second.write(right.data(), right.size());
        REQUIRE(second.close());
        DirectFileWriter first(path.string(), false, before.size());
        first.write(left.data(), left.size());
        REQUIRE(first.close());
    }
    CHECK(bytesOf(path) == before + left + right + after);

    DirectFileWriter missing(scratch("none.bin").string(), false);
    CHECK(!missing.opened());
    CHECK(!missing.close());
}
