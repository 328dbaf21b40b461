// Waiting for MPI without holding on to a core.
#pragma once

#include <algorithm>
#include <chrono>
#include <mpi.h>
#include <span>
#include <thread>

namespace waitscope::analysis {

// Waiting without holding on to a core: a waiting rank tests in a loop, and once the wait lasts
// longer than a moment sleeps between tests (20 us, doubling up to 250 us; up to 2 ms once the
// wait has lasted 100 ms, up to 10 ms once it has lasted a second). With more ranks than cores,
// a rank that waits for another would otherwise spin on the core that the other needs (MPI's
// own blocking calls poll, yielding at most); with a core per rank, a short wait ends at most
// 250 us later, a long one at most 2 ms later, for 500 tests a second instead of 4000 (each test
// runs MPI's progress engine), and one of seconds (such as the wait of all processes while
// process 0 merges and writes the report of hundreds of ranks) at most 10 ms later, for 100.
/// Paces a waiting loop: pause() between tests.
class Backoff {
public:
    void pause() {
        const auto waited = Clock::now() - m_start;
        if (waited > std::chrono::microseconds(200)) {
            std::this_thread::sleep_for(m_nap);
            const std::chrono::microseconds longest =
                waited > std::chrono::seconds(1)          ? std::chrono::microseconds(10000)
                : waited > std::chrono::milliseconds(100) ? std::chrono::microseconds(2000)
                                                          : std::chrono::microseconds(250);
            m_nap = std::min(2 * m_nap, longest);
        }
    }

private:
    using Clock = std::chrono::steady_clock;
    Clock::time_point m_start = Clock::now();
    std::chrono::microseconds m_nap{20};
};

/// Completes `requests`, waiting as Backoff does; returns MPI's error code.
inline int waitPolitely(std::span<MPI_Request> requests) {
    for (Backoff backoff;; backoff.pause()) {
        int done = 0;
        const int code = MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done,
                                     MPI_STATUSES_IGNORE);
        if (code != MPI_SUCCESS || done) {
            return code;
        }
    }
}

/// Completes `request`, waiting as Backoff does; returns MPI's error code.
inline int waitPolitely(MPI_Request& request) {
    return waitPolitely(std::span<MPI_Request>(&request, 1));
}

/// Completes `request`, just started by a call that returned `started`, waiting as Backoff
/// does; returns MPI's error code (the start's, when it failed).
inline int waitPolitely(int started, MPI_Request& request) {
    return started == MPI_SUCCESS ? waitPolitely(request) : started;
}

} // namespace waitscope::analysis
