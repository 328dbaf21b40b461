// An output file written on a thread of its own, so that an export formats the next buffers
// while the kernel copies the last ones into the page cache.
#pragma once

#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace waitscope::exporter {

/// Writes the buffers handed to it to a file in the order handed, on its own thread, with up
/// to kInFlight of them waiting while the caller fills the next (so that neither side waits
/// for the other when the scheduler runs them unevenly).
class BackgroundWriter {
public:
    static constexpr size_t kInFlight = 4;

    /// Writes to `file` (left open: the caller closes it after finish()).
    explicit BackgroundWriter(FILE* file);
    /// Finishes the writes (finish()).
    ~BackgroundWriter();
    BackgroundWriter(const BackgroundWriter&) = delete;
    BackgroundWriter& operator=(const BackgroundWriter&) = delete;

    /// Hands the first `bytes` of `buffer` on to be written after those handed before, waiting
    /// while kInFlight buffers are; `buffer` becomes one written before, as it was (its size
    /// and capacity kept for reuse: its contents are to be overwritten), or an empty one.
    void write(std::string& buffer, size_t bytes);
    /// Waits until everything handed is written; returns false when a write failed. Nothing
    /// may be handed afterwards.
    bool finish();

private:
    void run();

    FILE* m_file;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    /// To write (a buffer and its bytes), the front one being written.
    std::deque<std::pair<std::string, size_t>> m_queue;
    std::vector<std::string> m_spare; ///< written
    bool m_done = false;
    bool m_failed = false;
    std::thread m_thread; ///< last: started once the rest is made
};

} // namespace waitscope::exporter
