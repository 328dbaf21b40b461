// The compact event storage gives back exactly what was appended.
#include "waitscope/trace/event_stream.h"

#include <catch2/catch.hpp>

using namespace waitscope::trace;

TEST_CASE("timestamps come back exact across blocks, gaps of more than 2^32 ticks and steps back",
          "[event_stream]") {
    EventStream stream;
    std::vector<uint64_t> times;
    uint64_t t = 1'000'000'000'000ull;
    for (int i = 0; i < 5000; ++i) {
        if (i % 700 == 3) {
            t += 5'000'000'000ull; // a sparse stretch: beyond a 32-bit offset
        } else if (i % 900 == 7) {
            t -= 50; // a non-monotonic timestamp, earlier than its block's base
        } else {
            t += 1 + static_cast<uint64_t>(i % 17);
        }
        times.push_back(t);
        stream.append(EventKind::Enter, t, static_cast<uint32_t>(i));
    }
    REQUIRE(stream.size() == times.size());
    for (size_t i = 0; i < times.size(); ++i) {
        INFO("event " << i);
        REQUIRE(stream.time(i) == times[i]);
        REQUIRE(stream.ref(i) == static_cast<uint32_t>(i));
    }
}

TEST_CASE("timestamps replaced in place move between the near and the far table",
          "[event_stream]") {
    EventStream stream;
    for (uint64_t i = 0; i < 3000; ++i) {
        stream.append(EventKind::Leave, 100 + 10 * i, 0);
    }
    stream.setTime(5, 100 + 10 * 5 + 9'000'000'000ull); // far after its base
    stream.setTime(6, 20);                              // before its base
    stream.setTime(2000, 100 + 10 * 2000 + 3);          // near, stays near
    REQUIRE(stream.time(5) == 100 + 10 * 5 + 9'000'000'000ull);
    REQUIRE(stream.time(6) == 20);
    REQUIRE(stream.time(2000) == 100 + 10 * 2000 + 3);
    stream.setTime(5, 100 + 10 * 5 + 1); // far back to near
    stream.setTime(6, 21);               // far to another far value
    REQUIRE(stream.time(5) == 100 + 10 * 5 + 1);
    REQUIRE(stream.time(6) == 21);
    REQUIRE(stream.time(7) == 100 + 10 * 7);
}

TEST_CASE("a whole stream shifted far and back, in either order, keeps every time",
          "[event_stream]") {
    EventStream stream;
    const size_t n = 200000;
    for (uint64_t i = 0; i < n; ++i) {
        stream.append(EventKind::Enter, 1000 + 7 * i, 0);
    }
    const uint64_t shift = 6'000'000'000ull; // beyond every block's 32-bit offsets
    for (size_t i = n; i-- > 0;) {
        stream.setTime(i, stream.time(i) + shift);
    }
    for (size_t i = 0; i < n; i += 997) {
        REQUIRE(stream.time(i) == 1000 + 7 * i + shift);
    }
    for (size_t i = 0; i < n; ++i) {
        stream.setTime(i, stream.time(i) - shift);
    }
    for (size_t i = 0; i < n; ++i) {
        REQUIRE(stream.time(i) == 1000 + 7 * i);
    }
}

TEST_CASE("message payloads come back exact for every kind of point-to-point event",
          "[event_stream]") {
    EventStream stream;
    const uint64_t huge = 6'000'000'000ull; // a length beyond 32 bits
    stream.appendMessage(EventKind::MpiSend, 1, MessageRecord{1024, 0, 3, 2, 42});
    stream.appendMessage(EventKind::MpiIsend, 2, MessageRecord{huge, 77, 1, 0, 7});
    stream.appendMessage(EventKind::MpiRecv, 3, MessageRecord{huge + 1, 0, 5, 1, 9});
    stream.appendMessage(EventKind::MpiIrecv, 4, MessageRecord{8, 78, 4, 0, 11});
    stream.appendMessage(EventKind::MpiIsendComplete, 5, MessageRecord{0, 77, 0, 0, 0});
    stream.appendMessage(EventKind::MpiRequestTest, 6, MessageRecord{0, 78, 0, 0, 0});
    stream.appendMessage(EventKind::MpiRecv, 7, MessageRecord{0xFFFFFFFEull, 0, 6, 0, 1});

    const auto same = [](const MessageRecord& a, const MessageRecord& b) {
        return a.length == b.length && a.request == b.request && a.partner == b.partner &&
               a.comm == b.comm && a.tag == b.tag;
    };
    REQUIRE(same(stream.message(0), MessageRecord{1024, 0, 3, 2, 42}));
    REQUIRE(same(stream.message(1), MessageRecord{huge, 77, 1, 0, 7}));
    REQUIRE(same(stream.message(2), MessageRecord{huge + 1, 0, 5, 1, 9}));
    REQUIRE(same(stream.message(3), MessageRecord{8, 78, 4, 0, 11}));
    REQUIRE(same(stream.message(4), MessageRecord{0, 77, 0, 0, 0}));
    REQUIRE(same(stream.message(5), MessageRecord{0, 78, 0, 0, 0}));
    REQUIRE(same(stream.message(6), MessageRecord{0xFFFFFFFEull, 0, 6, 0, 1}));
    REQUIRE(stream.kind(2) == EventKind::MpiRecv);
    REQUIRE(stream.time(6) == 7);
}

TEST_CASE("a cleared stream holds only what is appended after, in the memory it had",
          "[event_stream]") {
    EventStream stream;
    stream.reserve(5000);
    for (uint64_t i = 0; i < 5000; ++i) {
        stream.appendMessage(EventKind::MpiSend, 1000 + 10 * i, MessageRecord{64, 0, 1, 0, 3});
    }
    stream.append(EventKind::Leave, 1, 2); // far before its block's base
    stream.setSkippedEvents(4);
    const size_t before = stream.memoryBytes();
    stream.clear();
    REQUIRE(stream.size() == 0);
    REQUIRE(stream.skippedEvents() == 0);
    stream.append(EventKind::Enter, 7'000'000'000ull, 5);
    stream.appendMessage(EventKind::MpiRecv, 7'000'000'010ull, MessageRecord{8, 0, 2, 0, 9});
    REQUIRE(stream.size() == 2);
    CHECK(stream.kind(0) == EventKind::Enter);
    CHECK(stream.time(0) == 7'000'000'000ull);
    CHECK(stream.ref(0) == 5);
    CHECK(stream.time(1) == 7'000'000'010ull);
    CHECK(stream.message(1).length == 8);
    CHECK(stream.message(1).partner == 2);
    CHECK(stream.message(1).tag == 9);
    // The event arrays keep their capacity; the message table starts again with one chunk.
    CHECK(stream.memoryBytes() == before);
}

TEST_CASE("an event costs 9 bytes and a blocking message 16 more", "[event_stream]") {
    EventStream stream;
    const size_t events = 1 << 20;
    stream.reserve(events);
    for (size_t i = 0; i < events; ++i) {
        if (i % 4 == 0) {
            stream.appendMessage(EventKind::MpiSend, 10 * i, MessageRecord{64, 0, 1, 0, 0});
        } else {
            stream.append(EventKind::Enter, 10 * i, 1);
        }
    }
    stream.shrink();
    const double perEvent = static_cast<double>(stream.memoryBytes()) / events;
    // 9 bytes per event, 16 per message (one in four), slack of the reservation.
    CHECK(perEvent < 9.0 + 16.0 / 4 + 0.1);
}
