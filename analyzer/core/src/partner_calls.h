// The partners' calls as the forward and backward replays write them (RankState::partners), held
// whole for a rank in memory, or in blocks on the rank's scratch file for a rank read in windows.
#pragma once

#include "spilled_array.h"
#include "waitscope/analysis/transport.h"

#include <cstdint>
#include <map>
#include <vector>

namespace waitscope::analysis {

/// Per operation, the partner call's times (CriticalPathInput::partners) while the replays write
/// them. Whole (without a scratch file): one record per operation in memory, written and read at
/// random. In blocks: the replays consume their operations in operation order, and each writes
/// the operations it consumes in that order (the forward replay a receive's send, the backward
/// replay a send's receive); those go to two arrays appended in blocks to the rank's scratch
/// file. The few writes to other operations (a nonblocking receive's request, a Late Receiver's
/// completion, what a nonblocking sender tells) are kept apart in memory and take precedence,
/// as the later writes they are. finish() then merges the three into the array the critical path
/// and the delay pass read.
class PartnerCallWrites {
public:
    /// Starts `operations` empty records: in blocks of `blockEntries` on `file` when it is not
    /// null, else in memory.
    void start(size_t operations, ScratchFile* file, size_t blockEntries) {
        *this = PartnerCallWrites();
        m_file = file;
        m_size = operations;
        if (file == nullptr) {
            m_whole.assign(operations, ReplayRecord{});
            return;
        }
        m_blockEntries = blockEntries;
        m_forward.spillTo(file, blockEntries);
        m_backward.spillTo(file, blockEntries);
        m_fromBackward.assign(operations, false);
    }
    /// The forward replay's write of operation `k`, which it consumes in operation order.
    void writeForward(uint32_t k, const ReplayRecord& record) {
        appendInOrder(m_forward, k, record);
    }
    /// The backward replay's write of operation `k`, which it consumes in operation order.
    void writeBackward(uint32_t k, const ReplayRecord& record) {
        if (appendInOrder(m_backward, k, record)) {
            m_fromBackward[k] = true;
        }
    }
    /// A write of any operation.
    void write(uint32_t k, const ReplayRecord& record) {
        if (m_file == nullptr) {
            m_whole[k] = record;
        } else {
            m_others[k] = record;
        }
    }
    /// What was written last for operation `k` (an empty record when nothing was).
    ReplayRecord read(uint32_t k) const {
        if (m_file == nullptr) {
            return m_whole[k];
        }
        if (const auto other = m_others.find(k); other != m_others.end()) {
            return other->second;
        }
        if (m_fromBackward[k]) {
            return m_backward[k];
        }
        return k < m_forward.size() ? m_forward[k] : ReplayRecord{};
    }
    /// Every operation's record, for the passes after the replays: in memory when held whole,
    /// else in blocks on the scratch file. Leaves this empty.
    SpilledArray<ReplayRecord> finish() {
        if (m_file == nullptr) {
            SpilledArray<ReplayRecord> whole(std::move(m_whole));
            *this = PartnerCallWrites();
            return whole;
        }
        SpilledArray<ReplayRecord> merged;
        merged.spillTo(m_file, m_blockEntries);
        for (size_t k = 0; k < m_size; ++k) {
            merged.push(read(static_cast<uint32_t>(k)));
        }
        *this = PartnerCallWrites();
        return merged;
    }
    /// Records written apart from the in-order ones (held in memory when in blocks).
    size_t othersHeld() const { return m_others.size(); }

private:
    // Appends `record` as operation `k`'s, the skipped operations empty; an operation before
    // the end (not in operation order) is written apart instead. Returns whether appended.
    bool appendInOrder(SpilledArray<ReplayRecord>& array, uint32_t k, const ReplayRecord& record) {
        if (m_file == nullptr) {
            m_whole[k] = record;
            return false;
        }
        if (k < array.size()) {
            m_others[k] = record;
            return false;
        }
        while (array.size() < k) {
            array.push(ReplayRecord{});
        }
        array.push(record);
        return true;
    }

    ScratchFile* m_file = nullptr;
    size_t m_blockEntries = 0;
    size_t m_size = 0;
    std::vector<ReplayRecord> m_whole;
    SpilledArray<ReplayRecord> m_forward;
    SpilledArray<ReplayRecord> m_backward;
    std::vector<bool> m_fromBackward;
    std::map<uint32_t, ReplayRecord> m_others;
};

} // namespace waitscope::analysis
