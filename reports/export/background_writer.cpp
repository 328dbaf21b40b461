// The exports' output written on a second thread: buffers handed over by moving strings and
// given back as they were, so that neither side copies, allocates or clears per buffer.
#include "background_writer.h"

#include <utility>

namespace waitscope::exporter {

BackgroundWriter::BackgroundWriter(FILE* file) : m_file(file), m_thread([this] { run(); }) {}

BackgroundWriter::~BackgroundWriter() {
    finish();
}

void BackgroundWriter::write(std::string& buffer, size_t bytes) {
    if (bytes == 0) {
        return;
    }
    std::unique_lock<std::mutex> lock(m_mutex);
    m_changed.wait(lock, [this] { return m_queue.size() < kInFlight; });
    m_queue.emplace_back(std::move(buffer), bytes);
    buffer.clear(); // a moved-from string is valid but unspecified
    if (!m_spare.empty()) {
        buffer.swap(m_spare.back());
        m_spare.pop_back();
    }
    lock.unlock();
    m_changed.notify_all();
}

bool BackgroundWriter::finish() {
    std::unique_lock<std::mutex> lock(m_mutex);
    if (!m_done) {
        m_done = true;
        lock.unlock();
        m_changed.notify_all();
        m_thread.join();
        lock.lock();
    }
    return !m_failed;
}

void BackgroundWriter::run() {
    std::unique_lock<std::mutex> lock(m_mutex);
    while (true) {
        m_changed.wait(lock, [this] { return !m_queue.empty() || m_done; });
        if (m_queue.empty()) {
            return; // done, everything written
        }
        // The front buffer stays in the queue while written: the caller only appends.
        const auto& [front, bytes] = m_queue.front();
        lock.unlock();
        const bool written = std::fwrite(front.data(), 1, bytes, m_file) == bytes;
        lock.lock();
        m_failed = m_failed || !written;
        m_spare.push_back(std::move(m_queue.front().first));
        m_queue.pop_front();
        m_changed.notify_all();
    }
}

} // namespace waitscope::exporter
