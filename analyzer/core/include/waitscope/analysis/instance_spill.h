// Wait-state instances in bounded memory: each analysis process puts its ranks' instances into
// scratch files as the passes find them (a fixed buffer per rank, written as sorted runs), and
// the process that writes the outputs merges every process's runs into instances.txt and
// instances.bin, a few blocks of each run in memory at a time.
#pragma once

#include "waitscope/analysis/rank_result.h"
#include "waitscope/base/result.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace waitscope::analysis {

class AnalysisResult;

/// The scratch files of the analysis processes, and the merge of their runs into the outputs.
///
/// A rank's buffer (Buffer) takes its instances in the order found, each with its sequence
/// number in that order. A full buffer is sorted twice and appended as a run to both scratch
/// files of its process: in the text file's order (instanceTextBefore()) and in the indexed
/// file's time order (instanceTimeBefore()), each with the sequence number as the last key, so
/// that equal instances keep the order found, as when the whole rank's instances are sorted in
/// memory. The runs (SpilledRun) travel with the rank's result to the merge, which reads each
/// run a few records at a time through a heap of the runs' heads (and first merges groups of
/// runs into longer ones when there are more than its fan-in), maps each instance's call node
/// to the merged call tree and hands it to the writers. Memory: a buffer per rank, and in the
/// merge a read buffer per run merged at once; never the instances of a whole rank.
class InstanceSpill {
public:
    /// The records a rank buffers by default when the process's budget is shared by `ranks`.
    static uint32_t defaultBufferRecords(uint32_t ranks);
    /// The runs the merge reads at once by default.
    static constexpr uint32_t kDefaultFanIn = 256;

    /// Scratch files of process `process` in `directory` (made on the first full buffer), each
    /// rank buffering `bufferRecords` instances (0: the default, 8 MiB per process shared by
    /// its ranks, see shareAmong()); the merge reads `fanIn` (at least 2) runs at once.
    InstanceSpill(std::string directory, uint32_t process, uint32_t bufferRecords = 0,
                  uint32_t fanIn = kDefaultFanIn);
    InstanceSpill(const InstanceSpill&) = delete;
    InstanceSpill& operator=(const InstanceSpill&) = delete;
    ~InstanceSpill();

    uint32_t bufferRecords() const { return m_bufferRecords; }
    /// Tells the spill that `ranks` ranks of this process will buffer: with the default buffer,
    /// each then gets its share (defaultBufferRecords()). Called by the drivers before the
    /// ranks start.
    void shareAmong(uint32_t ranks);

    /// The instances of one rank as its passes find them (used by one thread at a time).
    class Buffer {
    public:
        Buffer(InstanceSpill& spill, uint32_t rank);
        /// Adds an instance of `segment`: the rank's instances are in the order of their
        /// segments, within one in the order added (the windowed replay finds its backward
        /// replay's instances beside the forward ones but lists them after). A full buffer is
        /// written; a failure is kept for finish().
        void add(const PatternInstance& instance, uint32_t segment = 0);
        /// Writes what is buffered and hands the runs to `result` (RankResult::spilledRuns);
        /// errors name the scratch file.
        Status finish(RankResult& result);

    private:
        InstanceSpill& m_spill;
        uint32_t m_rank;
        std::vector<SpilledInstance> m_records;
        std::vector<uint64_t> m_next; ///< per segment: the next sequence number
        std::vector<SpilledRun> m_runs;
        std::optional<Error> m_failure;
        void flush();
    };

    /// The scratch file of `process` in `directory` holding runs in the text order (`time`
    /// false) or the time order.
    static std::string pathOf(const std::string& directory, uint32_t process, bool time);
    /// Removes the scratch files of processes [0, processes) from `directory` (the merge's own
    /// too), those that exist.
    static void removeFiles(const std::string& directory, uint32_t processes);

    /// Writes instances.txt to `textPath` and instances.bin to `indexedPath` from the runs of
    /// `result` (AnalysisResult::spilledRuns(), in the scratch files of this spill's directory),
    /// byte for byte what writeWaitInstances() and writeInstanceFile() write for the same
    /// instances held in memory. Errors name the file.
    Status writeFiles(const AnalysisResult& result, const std::string& textPath,
                      const std::string& indexedPath) const;

private:
    std::string m_directory;
    uint32_t m_process;
    uint32_t m_bufferRecords;
    bool m_defaultBuffer;
    uint32_t m_fanIn;
    std::mutex m_mutex; ///< guards opening the files and reserving room in them
    int m_text = -1;
    int m_time = -1;
    uint64_t m_written = 0; ///< records reserved in each file
    /// Appends `records` (sorted in the file's order) to both files, sorting in place; returns
    /// the run's first record, or the error.
    Result<uint64_t> append(std::vector<SpilledInstance>& records);
};

} // namespace waitscope::analysis
