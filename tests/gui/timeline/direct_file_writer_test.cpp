// DirectFileWriter: the bytes written past the page cache are exactly the bytes given, across
// its buffer's and the pages' boundaries, and writers of neighbouring ranges of one file (the
// analysis processes filling the event cache's holes) leave each other's bytes alone.
#include "direct_file_writer.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
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

TEST_CASE("page-aligned pieces at page-aligned offsets go out from the caller's memory, exactly") {
    // The timeline collector's blocks of visits: whole pages in memory written where the file is
    // at a page, between pieces that are gathered (a head shared with another writer, a tail).
    constexpr size_t kPage = 4096;
    struct FreeAligned {
        void operator()(char* block) const { std::free(block); }
    };
    const size_t alignedBytes = 5 * kPage * 7;
    std::unique_ptr<char, FreeAligned> block(
        static_cast<char*>(std::aligned_alloc(kPage, alignedBytes)));
    REQUIRE(block != nullptr);
    const std::string body = pattern(alignedBytes, 11);
    std::memcpy(block.get(), body.data(), body.size());
    const fs::path path = scratch("aligned.bin");
    const std::string head = pattern(3 * kPage - 100, 12); // the file at 3 pages after it
    const std::string other = pattern(100, 13);
    std::string expected;
    {
        DirectFileWriter out(path.string(), true);
        REQUIRE(out.opened());
        out.write(other.data(), other.size());
        out.write(head.data(), head.size());
        REQUIRE(out.offset() % kPage == 0);
        out.write(block.get(), alignedBytes);      // whole pages from memory
        out.write(block.get(), alignedBytes - 20); // and a tail gathered
        out.write(block.get() + 1, kPage);         // not aligned in memory: gathered
        REQUIRE(out.close());
        CHECK(out.offset() == other.size() + head.size() + 2 * alignedBytes - 20 + kPage);
        expected = other + head + body + body.substr(0, alignedBytes - 20) + body.substr(1, kPage);
    }
    CHECK(bytesOf(path) == expected);
    // A writer starting inside a page another writer shares: its head page keeps the other's
    // bytes; its aligned pieces after it go out from memory.
    {
        DirectFileWriter second(path.string(), false, other.size());
        REQUIRE(second.opened());
        const std::string mine = pattern(head.size(), 14);
        second.write(mine.data(), mine.size());
        REQUIRE(second.offset() % kPage == 0);
        second.write(block.get(), alignedBytes);
        REQUIRE(second.close());
        expected.replace(other.size(), mine.size(), mine);
    }
    CHECK(bytesOf(path) == expected);
}
