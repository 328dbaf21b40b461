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
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace waitscope::measure;

namespace {

/// What the translation callback saw: each chunk's first word and length, in call order, and
/// what it answers (Translated: the chunk's records are written too).
struct Translated {
    std::vector<std::pair<std::uint64_t, std::size_t>> chunks;
    std::vector<std::uint64_t> endOffsets;
    SpillWriter::Encoded answer = SpillWriter::Encoded::Translated;
    std::size_t answered = ~std::size_t{0}; ///< after so many chunks: Translated
};

SpillWriter::Encoded recordChunk(void* context, const std::uint64_t* begin,
                                 const std::uint64_t* end,
                                 const std::vector<std::uint32_t>* parents,
                                 std::uint64_t endOffset) noexcept {
    auto* seen = static_cast<Translated*>(context);
    seen->chunks.emplace_back(*begin, static_cast<std::size_t>(end - begin));
    seen->endOffsets.push_back(endOffset);
    const bool treeSeen = parents != nullptr && parents->size() == 2 && (*parents)[1] == 0;
    if (!treeSeen)
        return SpillWriter::Encoded::No;
    return seen->chunks.size() <= seen->answered ? seen->answer : SpillWriter::Encoded::Translated;
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
        CHECK(seen.endOffsets[k] == (k + 1) * kWords * 8);
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
SpillWriter::Encoded slowRecordChunk(void* context, const std::uint64_t* begin,
                                     const std::uint64_t* end,
                                     const std::vector<std::uint32_t>* parents,
                                     std::uint64_t endOffset) noexcept {
    ::usleep(20 * 1000);
    return recordChunk(context, begin, end, parents, endOffset);
}

/// A spill file in the temporary directory and a buffer of `chunks` of the smallest chunks,
/// handed to `writer` with the translation `encode` (writers are never destroyed: see above).
struct SpillSetup {
    std::filesystem::path path;
    int fd = -1;
    std::vector<std::uint64_t> memory;
    EventBuffer buffer;
    SpillWriter& writer;

    SpillSetup(const std::string& name, std::size_t chunks, SpillWriter& spillWriter,
               SpillWriter::EncodeFunction encode, Translated& seen)
        : path(std::filesystem::temp_directory_path() / (name + std::to_string(getpid()))),
          memory(chunks * SpillWriter::kMinChunkWords), writer(spillWriter) {
        fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
        REQUIRE(fd >= 0);
        buffer.reset(memory.data(), memory.size());
        REQUIRE(writer.start(buffer, memory.data(), memory.size(), fd));
        writer.setEncoder(encode, &seen);
    }
    ~SpillSetup() {
        ::close(fd);
        std::filesystem::remove(path);
    }
    SpillSetup(const SpillSetup&) = delete;
    SpillSetup& operator=(const SpillSetup&) = delete;

    /// Hands over `chunks` chunks of `words` words each, numbered on from `next`, the first at
    /// spill file offset `offset`; returns how often the program waited.
    int handOver(std::uint64_t chunks, std::size_t words, std::uint64_t& next,
                 std::uint64_t offset = 0) {
        int waited = 0;
        for (std::uint64_t c = 0; c < chunks; ++c) {
            writer.contextParents() = {kNoContext, 0};
            for (std::size_t w = 0; w < words; ++w)
                *buffer.cursor++ = next++;
            waited += writer.handOver(buffer, offset + c * words * 8, c * words) ? 1 : 0;
        }
        return waited;
    }
};

} // namespace

TEST_CASE("drain at finalize translates the chunks still waiting, in order after the thread's",
          "[spill]") {
    static SpillWriter writer;
    Translated seen;
    SpillSetup spill("waitscope_drain_", 8, writer, slowRecordChunk, seen);
    // Six chunks of eight: the program never has to write one itself (which would end the
    // translation), and the thread is still translating the first when drain starts.
    constexpr std::size_t kWords = 1000;
    constexpr std::uint64_t kChunks = 6;
    std::uint64_t next = 0;
    CHECK(spill.handOver(kChunks, kWords, next) == 0);
    writer.drain(true);
    // Every chunk translated once, in order, by whichever thread wrote it.
    CHECK(writer.encodedBytes() == kChunks * kWords * 8);
    REQUIRE(seen.chunks.size() == kChunks);
    for (std::size_t k = 0; k < kChunks; ++k)
        CHECK(seen.chunks[k].first == k * kWords);
}

TEST_CASE("chunks kept as events are not written as records; the file holds the rest at their "
          "places",
          "[spill]") {
    static SpillWriter writer;
    Translated seen;
    seen.answer = SpillWriter::Encoded::Kept;
    seen.answered = 3; // then the mark could not be written: the records are needed again
    SpillSetup spill("waitscope_kept_", 8, writer, recordChunk, seen);
    // Word w holds w + 1, so that a hole (zeros) is told from a record.
    constexpr std::size_t kWords = 1000;
    constexpr std::uint64_t kChunks = 6;
    std::uint64_t next = 1;
    spill.handOver(kChunks, kWords, next);
    writer.drain(true);
    // Eight chunks for six: the program never wrote one itself, all were translated. The three
    // kept are a hole; the records of the three translated after them are at their places.
    CHECK(writer.encodedBytes() == kChunks * kWords * 8);
    REQUIRE(seen.chunks.size() == kChunks);
    constexpr std::uint64_t kKept = 3;
    std::vector<std::uint64_t> file(kChunks * kWords + 1, ~std::uint64_t{0});
    const ssize_t bytes = ::pread(spill.fd, file.data(), file.size() * 8, 0);
    REQUIRE(bytes == static_cast<ssize_t>(kChunks * kWords * 8));
    std::uint64_t wrong = 0;
    for (std::uint64_t w = 0; w < kChunks * kWords; ++w)
        wrong += file[w] != (w < kKept * kWords ? 0 : w + 1) ? 1 : 0;
    CHECK(wrong == 0);
}

TEST_CASE("chunks after records the thread did not spill are not translated", "[spill]") {
    static SpillWriter writer;
    Translated seen;
    seen.answer = SpillWriter::Encoded::Kept;
    SpillSetup spill("waitscope_early_", 4, writer, recordChunk, seen);
    // The first chunk goes after 800 bytes spilled before the thread started (MPI_Init): its
    // events would come before those, so neither it nor any later chunk is translated.
    std::uint64_t next = 1;
    spill.handOver(3, 100, next, 800);
    writer.drain(true);
    CHECK(seen.chunks.empty());
    CHECK(writer.encodedBytes() == 0);
    struct stat info {};
    REQUIRE(::fstat(spill.fd, &info) == 0);
    CHECK(info.st_size == 800 + 3 * 800);
}
