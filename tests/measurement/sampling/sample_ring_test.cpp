// Unit tests of the sample ring the sampling signal handler writes into.
#include "waitscope/measure/sample_ring.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <thread>
#include <vector>

using waitscope::measure::kMaxFrames;
using waitscope::measure::SampleRing;

namespace {

struct Drained {
    std::uint64_t time;
    std::vector<std::uintptr_t> frames;
    bool unwound;
};

std::vector<Drained> drainAll(SampleRing& ring) {
    std::vector<Drained> out;
    ring.drain([&](std::uint64_t time, const std::uintptr_t* frames, std::uint64_t depth) {
        bool unwound = depth != SampleRing::kNotUnwound;
        out.push_back({time,
                       unwound ? std::vector<std::uintptr_t>(frames, frames + depth)
                               : std::vector<std::uintptr_t>(),
                       unwound});
    });
    return out;
}

} // namespace

TEST_CASE("samples come out of the ring in order with their frames", "[sampling]") {
    std::vector<std::uint64_t> memory(4 * (2 + kMaxFrames));
    SampleRing ring;
    ring.reset(memory.data(), memory.size());
    CHECK(ring.empty());
    for (std::uint64_t t = 1; t <= 3; ++t) {
        bool kept = false;
        std::uintptr_t* frames = ring.begin(t * 10, kept);
        REQUIRE(kept);
        REQUIRE(frames);
        for (std::uint64_t k = 0; k < t; ++k)
            frames[k] = 100 * t + k;
        ring.commit(t);
    }
    bool kept = false;
    REQUIRE(ring.begin(40, kept));
    ring.commit(SampleRing::kNotUnwound); // a failed unwind keeps its time
    CHECK_FALSE(ring.empty());
    std::vector<Drained> out = drainAll(ring);
    REQUIRE(out.size() == 4);
    CHECK(out[0].time == 10);
    CHECK(out[0].frames == std::vector<std::uintptr_t>{100});
    CHECK(out[2].frames == std::vector<std::uintptr_t>{300, 301, 302});
    CHECK(out[3].time == 40);
    CHECK_FALSE(out[3].unwound);
    CHECK(ring.empty());
}

TEST_CASE("a nearly full ring keeps samples as not unwound, a full one loses them", "[sampling]") {
    // Room for one full stack and one word more.
    std::vector<std::uint64_t> memory(2 + kMaxFrames + 1);
    SampleRing ring;
    ring.reset(memory.data(), memory.size());
    bool kept = false;
    std::uintptr_t* frames = ring.begin(1, kept);
    REQUIRE(frames);
    frames[0] = 7;
    ring.commit(1); // 3 words used: less room than a full stack from here on
    // Each further sample keeps its time only (2 words) until not even that fits.
    std::uint64_t time = 2;
    int timeOnly = 0;
    while (true) {
        std::uintptr_t* slots = ring.begin(time, kept);
        CHECK(slots == nullptr);
        if (!kept)
            break;
        ring.commit(SampleRing::kNotUnwound);
        ++timeOnly;
        ++time;
    }
    CHECK(timeOnly == (kMaxFrames + 3 - 3) / 2);
    std::vector<Drained> out = drainAll(ring);
    REQUIRE(out.size() == static_cast<size_t>(1 + timeOnly));
    CHECK(out[0].unwound);
    CHECK(out[0].frames == std::vector<std::uintptr_t>{7});
    CHECK_FALSE(out[1].unwound);
    CHECK(out[1].time == 2);
    CHECK(out.back().time == static_cast<std::uint64_t>(1 + timeOnly));
    // Drained, the ring has its whole room again.
    CHECK(ring.begin(99, kept) != nullptr);
}

TEST_CASE("samples wrap around the ring's end and keep their order", "[sampling]") {
    // Room for two full stacks and a little more: the third sample no longer fits at the end
    // and starts over at the beginning (at most one sample waits when the next begins).
    std::vector<std::uint64_t> memory(2 * (2 + kMaxFrames) + 40);
    SampleRing ring;
    ring.reset(memory.data(), memory.size());
    std::vector<Drained> out;
    for (std::uint64_t t = 1; t <= 40; ++t) {
        bool kept = false;
        std::uintptr_t* frames = ring.begin(t, kept);
        REQUIRE(kept);
        REQUIRE(frames);
        for (std::uint64_t k = 0; k < 30; ++k)
            frames[k] = t * 1000 + k;
        ring.commit(30);
        if (t % 2 == 0)
            for (Drained& d : drainAll(ring))
                out.push_back(std::move(d));
    }
    for (Drained& d : drainAll(ring))
        out.push_back(std::move(d));
    REQUIRE(out.size() == 40);
    for (std::uint64_t t = 1; t <= 40; ++t) {
        CHECK(out[t - 1].time == t);
        REQUIRE(out[t - 1].frames.size() == 30);
        CHECK(out[t - 1].frames[29] == t * 1000 + 29);
    }
}

TEST_CASE("a producer thread and a consumer thread share the ring without losing order",
          "[sampling]") {
    // The producer stands in for a sampled thread's signal handler, the consumer for the main
    // thread draining at its record points. A full ring loses samples; none is torn or
    // reordered.
    std::vector<std::uint64_t> memory(4 * (2 + kMaxFrames));
    SampleRing ring;
    ring.reset(memory.data(), memory.size());
    constexpr std::uint64_t kSamples = 20000;
    std::atomic<bool> done{false};
    std::uint64_t lost = 0;
    std::thread producer([&] {
        for (std::uint64_t t = 1; t <= kSamples; ++t) {
            bool kept = false;
            std::uintptr_t* frames = ring.begin(t, kept);
            if (!kept) {
                ++lost;
                continue;
            }
            if (!frames) {
                ring.commit(SampleRing::kNotUnwound);
                continue;
            }
            const std::uint64_t depth = 1 + t % 17;
            for (std::uint64_t k = 0; k < depth; ++k)
                frames[k] = t + k;
            ring.commit(depth);
        }
        done.store(true);
    });
    std::uint64_t drained = 0, last = 0, torn = 0, reordered = 0;
    auto consume = [&] {
        ring.drain([&](std::uint64_t time, const std::uintptr_t* frames, std::uint64_t depth) {
            ++drained;
            reordered += time <= last;
            last = time;
            if (depth != SampleRing::kNotUnwound) {
                torn += depth != 1 + time % 17;
                for (std::uint64_t k = 0; k < depth && k < 17; ++k)
                    torn += frames[k] != time + k;
            }
        });
    };
    while (!done.load())
        consume();
    producer.join();
    consume();
    CHECK(torn == 0);
    CHECK(reordered == 0);
    CHECK(drained + lost == kSamples);
    CHECK(ring.empty());
}
