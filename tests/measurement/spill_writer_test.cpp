// The spill writer (measurement/runtime/spill_writer.h) without MPI: chunks handed over faster
// than any thread writes them end up in the spill file whole and in order, and the chunks it
// translates are a prefix of them, in order.
#include "spill_writer.h"
#include "waitscope/measure/definitions.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <unistd.h>
#include <vector>

using namespace waitscope::measure;

namespace {

/// What the translation callback saw: each chunk's first word and length, in call order.
struct Translated {
    std::vector<std::pair<std::uint64_t, std::size_t>> chunks;
};

bool recordChunk(void* context, const std::uint64_t* begin, const std::uint64_t* end,
                 const std::vector<std::uint32_t>* parents) noexcept {
    auto* seen = static_cast<Translated*>(context);
    seen->chunks.emplace_back(*begin, static_cast<std::size_t>(end - begin));
    return parents != nullptr && parents->size() == 2 && (*parents)[1] == 0;
}

} // namespace

TEST_CASE("chunks handed to the spill writer land whole and in order, translated as a prefix",
          "[spill]") {
    const std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("waitscope_spill_" + std::to_string(getpid()));
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
    REQUIRE(fd >= 0);
    // 4 chunks of 2048 words; each hand-over fills its chunk with 1500 numbered words.
    std::vector<std::uint64_t> memory(4 * SpillWriter::kMinChunkWords);
    EventBuffer buffer;
    buffer.reset(memory.data(), memory.size());
    // Never destroyed, like the runtime's: its thread may still be on its way out after drain.
    static SpillWriter writer;
    Translated seen;
    REQUIRE(writer.start(buffer, memory.data(), memory.size(), fd));
    CHECK(buffer.end == memory.data() + SpillWriter::kMinChunkWords);
    writer.setEncoder(recordChunk, &seen);
    constexpr std::size_t kWords = 1500;
    constexpr std::uint64_t kChunks = 200;
    std::uint64_t next = 0;
    for (std::uint64_t c = 0; c < kChunks; ++c) {
        writer.contextParents() = {kNoContext, 0};
        REQUIRE(buffer.fits(kWords));
        for (std::size_t w = 0; w < kWords; ++w)
            *buffer.cursor++ = next++;
        writer.handOver(buffer, c * kWords * 8, c * kWords);
        CHECK(buffer.empty());
    }
    writer.drain();
    CHECK_FALSE(writer.running());
    SpillWriter::Failure failure;
    CHECK_FALSE(writer.failed(failure));

    // The file: every word once, in order, whoever wrote which chunk.
    std::vector<std::uint64_t> file(kChunks * kWords + 1);
    const ssize_t bytes = ::pread(fd, file.data(), file.size() * 8, 0);
    ::close(fd);
    std::filesystem::remove(path);
    REQUIRE(bytes == static_cast<ssize_t>(kChunks * kWords * 8));
    std::uint64_t wrong = 0;
    for (std::uint64_t w = 0; w < kChunks * kWords; ++w)
        wrong += file[w] != w ? 1 : 0;
    CHECK(wrong == 0);
    // Translated: chunks 0, 1, ... up to where the program first wrote one itself.
    REQUIRE(writer.encodedBytes() == seen.chunks.size() * kWords * 8);
    for (std::size_t k = 0; k < seen.chunks.size(); ++k) {
        CHECK(seen.chunks[k].first == k * kWords);
        CHECK(seen.chunks[k].second == kWords);
    }
}

TEST_CASE("a buffer too small to split, or with records past its first chunk, stays the "
          "program's to flush",
          "[spill]") {
    std::vector<std::uint64_t> memory(SpillWriter::kMinChunkWords + 100);
    EventBuffer buffer;
    buffer.reset(memory.data(), memory.size());
    SpillWriter small;
    CHECK_FALSE(small.start(buffer, memory.data(), memory.size(), 1));
    CHECK(buffer.end == memory.data() + memory.size());

    std::vector<std::uint64_t> larger(4 * SpillWriter::kMinChunkWords);
    buffer.reset(larger.data(), larger.size());
    buffer.cursor += SpillWriter::kMinChunkWords + 1;
    SpillWriter full;
    CHECK_FALSE(full.start(buffer, larger.data(), larger.size(), 1));
    CHECK_FALSE(full.running());
}

namespace {

/// A translation slower than the program: the thread is still busy when drain comes.
bool slowRecordChunk(void* context, const std::uint64_t* begin, const std::uint64_t* end,
                     const std::vector<std::uint32_t>* parents) noexcept {
    ::usleep(20 * 1000);
    return recordChunk(context, begin, end, parents);
}

} // namespace

TEST_CASE("drain at finalize translates the chunks still waiting, in order after the thread's",
          "[spill]") {
    const std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("waitscope_drain_" + std::to_string(getpid()));
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
    REQUIRE(fd >= 0);
    std::vector<std::uint64_t> memory(8 * SpillWriter::kMinChunkWords);
    EventBuffer buffer;
    buffer.reset(memory.data(), memory.size());
    static SpillWriter writer; // never destroyed (see above)
    Translated seen;
    REQUIRE(writer.start(buffer, memory.data(), memory.size(), fd));
    writer.setEncoder(slowRecordChunk, &seen);
    // Six chunks of eight: the program never has to write one itself (which would end the
    // translation), and the thread is still translating the first when drain starts.
    constexpr std::size_t kWords = 1000;
    constexpr std::uint64_t kChunks = 6;
    std::uint64_t next = 0;
    for (std::uint64_t c = 0; c < kChunks; ++c) {
        writer.contextParents() = {kNoContext, 0};
        for (std::size_t w = 0; w < kWords; ++w)
            *buffer.cursor++ = next++;
        CHECK_FALSE(writer.handOver(buffer, c * kWords * 8, c * kWords));
    }
    writer.drain(true);
    ::close(fd);
    std::filesystem::remove(path);
    // Every chunk translated once, in order, by whichever thread wrote it.
    CHECK(writer.encodedBytes() == kChunks * kWords * 8);
    REQUIRE(seen.chunks.size() == kChunks);
    for (std::size_t k = 0; k < kChunks; ++k)
        CHECK(seen.chunks[k].first == k * kWords);
}
