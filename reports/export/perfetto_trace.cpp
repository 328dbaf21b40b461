// Perfetto export: the trace walk (trace_walk.h) as TracePackets, one trusted sequence per
// track, written out on a second thread (background_writer.h). Field numbers are those of
// Perfetto's documented protos (trace_packet.proto, track_descriptor.proto, track_event.proto).
#include "perfetto_trace.h"

#include "background_writer.h"
#include "proto_writer.h"
#include "waitscope/analysis/metric.h"

#include <cstdio>
#include <map>
#include <memory>
#include <vector>

namespace waitscope::exporter {
namespace {

// Trace { repeated TracePacket packet = 1; }
constexpr uint32_t kTracePacket = 1;
// TracePacket
constexpr uint32_t kTimestamp = 8;
constexpr uint32_t kSequenceId = 10; // trusted_packet_sequence_id
constexpr uint32_t kTrackEvent = 11;
constexpr uint32_t kTrackDescriptor = 60;
// TrackDescriptor
constexpr uint32_t kUuid = 1;
constexpr uint32_t kName = 2;
constexpr uint32_t kProcess = 3;
constexpr uint32_t kThread = 4;
constexpr uint32_t kParentUuid = 5;
// ProcessDescriptor { pid = 1; process_name = 6; } ThreadDescriptor { pid = 1; tid = 2;
// thread_name = 5; }
constexpr uint32_t kPid = 1;
constexpr uint32_t kTid = 2;
constexpr uint32_t kProcessName = 6;
constexpr uint32_t kThreadName = 5;
// TrackEvent
constexpr uint32_t kType = 9;
constexpr uint32_t kTrackUuid = 11;
constexpr uint32_t kCategories = 22;
constexpr uint32_t kEventName = 23;
constexpr uint32_t kFlowIds = 47;
constexpr uint32_t kTerminatingFlowIds = 48;
constexpr uint64_t kSliceBegin = 1;
constexpr uint64_t kSliceEnd = 2;
constexpr uint64_t kInstant = 3;

uint64_t processUuid(uint32_t rank) {
    return (uint64_t{rank} + 1) << 32;
}
uint64_t threadUuid(uint32_t rank, uint32_t tid) {
    return processUuid(rank) | (uint64_t{tid} + 1);
}
uint64_t patternUuid(uint32_t rank, analysis::Metric metric) {
    return processUuid(rank) | 0x80000000u | static_cast<uint32_t>(metric);
}
// Perfetto reserves pid 0: ranks are pids from 1.
uint64_t pidOf(uint32_t rank) {
    return uint64_t{rank} + 1;
}

class ProtoSink : public TraceSink {
public:
    ProtoSink(const trace::Definitions& definitions, BackgroundWriter& writer)
        : m_definitions(definitions), m_writer(writer) {
        m_out.buffer().reserve(kFlush + 4096);
        for (const trace::Region& region : definitions.regions) {
            m_categories.push_back(categoryOf(region));
        }
    }
    ~ProtoSink() override { flush(); }
    ProtoSink(const ProtoSink&) = delete;
    ProtoSink& operator=(const ProtoSink&) = delete;

    void process(uint32_t rank, const std::string& name) override {
        ProtoWriter process;
        process.varint(kPid, pidOf(rank)).bytes(kProcessName, name);
        ProtoWriter track;
        track.varint(kUuid, processUuid(rank)).bytes(kProcess, process.data());
        descriptor(track);
    }
    void thread(uint32_t rank, uint32_t tid, const std::string& name) override {
        ProtoWriter thread;
        thread.varint(kPid, pidOf(rank))
            .varint(kTid, pidOf(rank) * 1000 + tid)
            .bytes(kThreadName, name);
        ProtoWriter track;
        track.varint(kUuid, threadUuid(rank, tid))
            .varint(kParentUuid, processUuid(rank))
            .bytes(kThread, thread.data());
        descriptor(track);
        m_sequence = ++m_lastSequence; // one sequence per location
    }
    void enter(uint32_t rank, uint32_t tid, uint32_t region, int64_t time) override {
        m_event.clear();
        m_event.varint(kType, kSliceBegin).varint(kTrackUuid, threadUuid(rank, tid));
        if (region < m_categories.size()) {
            m_event.bytes(kCategories, m_categories[region]);
        }
        m_event.bytes(kEventName, m_definitions.regionName(region));
        event(time, m_sequence);
    }
    void leave(uint32_t rank, uint32_t tid, uint32_t, int64_t, int64_t time) override {
        m_event.clear();
        m_event.varint(kType, kSliceEnd).varint(kTrackUuid, threadUuid(rank, tid));
        event(time, m_sequence);
    }
    void messageEnd(bool sendEnd, uint32_t rank, uint32_t tid, int64_t time, uint64_t id) override {
        m_event.clear();
        m_event.varint(kType, kInstant)
            .varint(kTrackUuid, threadUuid(rank, tid))
            .bytes(kCategories, "message")
            .bytes(kEventName, sendEnd ? "send" : "receive")
            .fixed64(sendEnd ? kFlowIds : kTerminatingFlowIds, id);
        event(time, m_sequence);
    }
    void waitState(const analysis::PatternInstance& i, uint32_t tid, int64_t from,
                   int64_t to) override {
        // A track per rank and pattern (the instances of one pattern on one rank never
        // overlap: one per call), below the rank's "wait states" track.
        const uint64_t uuid = patternUuid(i.rank, i.metric);
        auto [it, fresh] = m_patternSequence.try_emplace(uuid, 0);
        const std::string_view name = analysis::metricInfo(i.metric).displayName;
        if (fresh) {
            ProtoWriter track;
            track.varint(kUuid, uuid)
                .varint(kParentUuid, threadUuid(i.rank, tid))
                .bytes(kName, name);
            descriptor(track);
            it->second = ++m_lastSequence;
        }
        m_event.clear();
        m_event.varint(kType, kSliceBegin)
            .varint(kTrackUuid, uuid)
            .bytes(kCategories, "wait state")
            .bytes(kEventName, name);
        event(from, it->second);
        m_event.clear();
        m_event.varint(kType, kSliceEnd).varint(kTrackUuid, uuid);
        event(to, it->second);
    }

    /// Hands the packets so far to the writer (the buffer it hands back keeps its capacity).
    void flush() {
        m_writer.write(m_out.buffer(), m_out.data().size());
        m_out.clear();
    }

private:
    // Each packet is written in place into the output, its length computed from its fields.
    void descriptor(const ProtoWriter& track) {
        m_out
            .lengthPrefix(kTracePacket,
                          ProtoWriter::bytesFieldSize(kTrackDescriptor, track.data().size()))
            .bytes(kTrackDescriptor, track.data());
        packetWritten();
    }
    void event(int64_t time, uint32_t sequence) {
        const auto timestamp = static_cast<uint64_t>(std::max<int64_t>(time, 0));
        const size_t length = ProtoWriter::varintFieldSize(kTimestamp, timestamp) +
                              ProtoWriter::varintFieldSize(kSequenceId, sequence) +
                              ProtoWriter::bytesFieldSize(kTrackEvent, m_event.data().size());
        m_out.lengthPrefix(kTracePacket, length)
            .varint(kTimestamp, timestamp)
            .varint(kSequenceId, sequence)
            .bytes(kTrackEvent, m_event.data());
        packetWritten();
    }
    void packetWritten() {
        if (m_out.data().size() >= kFlush) {
            flush();
        }
    }

    static constexpr size_t kFlush = size_t{1} << 20;
    const trace::Definitions& m_definitions;
    BackgroundWriter& m_writer;
    ProtoWriter m_out; ///< packets to hand to the writer
    std::vector<const char*> m_categories;
    ProtoWriter m_event;
    uint32_t m_sequence = 0;
    uint32_t m_lastSequence = 0;
    std::map<uint64_t, uint32_t> m_patternSequence;
};

} // namespace

Result<ExportCounts> writePerfettoTrace(const std::string& experiment,
                                        const std::string& instancesFile, const std::string& output,
                                        bool timeCorrect) {
    auto input = readExportInput(experiment, instancesFile, timeCorrect);
    if (!input) {
        return input.error();
    }
    const std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(output.c_str(), "wb"),
                                                     &std::fclose);
    if (!file) {
        return Error(output + ": cannot write");
    }
    ExportCounts counts;
    bool written = false;
    {
        BackgroundWriter writer(file.get());
        ProtoSink sink(input->archive.definitions, writer);
        auto walked = walkTrace(*input, sink);
        if (!walked) {
            return walked.error();
        }
        counts = *walked;
        sink.flush();
        written = writer.finish();
    }
    if (!written || std::ferror(file.get()) != 0) {
        return Error(output + ": cannot write");
    }
    return counts;
}

} // namespace waitscope::exporter
