// Writing one location's events into an OTF2 archive: a thin inline layer over libotf2's event
// writer, so that encoding a buffer of records stays a tight loop.
#pragma once

#include "waitscope/trace/definitions.h"
#include "waitscope/trace/event_stream.h"

#include <cstdint>
#include <otf2/OTF2_EvtWriter.h>

namespace waitscope::trace {

/// The exit status of a program that did not say (OTF2's undefined int64).
inline constexpr int64_t kUnknownExitStatus = INT64_MIN;

/// The failed libotf2 calls of one archive: how many, and the first one's code.
struct Otf2ErrorLog {
    uint64_t count = 0;
    OTF2_ErrorCode first = OTF2_SUCCESS;
    /// Counts a failed call (`code` is not OTF2_SUCCESS).
    void note(OTF2_ErrorCode code) noexcept {
        ++count;
        if (first == OTF2_SUCCESS) {
            first = code;
        }
    }
    void check(OTF2_ErrorCode code) noexcept {
        if (code != OTF2_SUCCESS) [[unlikely]] {
            note(code);
        }
    }
};

/// The events of one location, appended in time order (libotf2 refuses a timestamp smaller
/// than the last one). Obtained from Otf2Writer::openEvents() and valid until
/// Otf2Writer::closeEvents(). Every call is noexcept and allocates nothing itself; a call that
/// libotf2 refuses is counted in the archive's Otf2Writer::errors(), and the event is lost.
/// References (regions, communicators, calling contexts, strings) are the location's local
/// ids: global ids unless its local definitions map them (Otf2Writer::writeLocalDefinitions).
class Otf2EventWriter {
public:
    Otf2EventWriter() = default;

    /// Whether the location's event writer could be opened; no other call is allowed if not.
    bool valid() const noexcept { return m_writer != nullptr; }
    uint64_t location() const noexcept { return m_location; }
    /// Events written so far.
    uint64_t eventCount() const noexcept {
        uint64_t events = 0;
        OTF2_EvtWriter_GetNumberOfEvents(m_writer, &events);
        return events;
    }

    void enter(uint64_t time, uint32_t region) noexcept {
        m_errors->check(OTF2_EvtWriter_Enter(m_writer, nullptr, time, region));
    }
    void leave(uint64_t time, uint32_t region) noexcept {
        m_errors->check(OTF2_EvtWriter_Leave(m_writer, nullptr, time, region));
    }
    /// A program's start; `name` is a global string (see Otf2Writer::string()).
    void programBegin(uint64_t time, uint32_t name) noexcept {
        m_errors->check(OTF2_EvtWriter_ProgramBegin(m_writer, nullptr, time, name, 0, nullptr));
    }
    void programEnd(uint64_t time, int64_t exitStatus = kUnknownExitStatus) noexcept {
        m_errors->check(OTF2_EvtWriter_ProgramEnd(m_writer, nullptr, time, exitStatus));
    }

    /// Point-to-point messages: `peer` is a rank of `comm`.
    void mpiSend(uint64_t time, uint32_t receiver, uint32_t comm, uint32_t tag,
                 uint64_t bytes) noexcept {
        m_errors->check(
            OTF2_EvtWriter_MpiSend(m_writer, nullptr, time, receiver, comm, tag, bytes));
    }
    void mpiIsend(uint64_t time, uint32_t receiver, uint32_t comm, uint32_t tag, uint64_t bytes,
                  uint64_t request) noexcept {
        m_errors->check(
            OTF2_EvtWriter_MpiIsend(m_writer, nullptr, time, receiver, comm, tag, bytes, request));
    }
    void mpiIsendComplete(uint64_t time, uint64_t request) noexcept {
        m_errors->check(OTF2_EvtWriter_MpiIsendComplete(m_writer, nullptr, time, request));
    }
    void mpiIrecvRequest(uint64_t time, uint64_t request) noexcept {
        m_errors->check(OTF2_EvtWriter_MpiIrecvRequest(m_writer, nullptr, time, request));
    }
    void mpiRecv(uint64_t time, uint32_t sender, uint32_t comm, uint32_t tag,
                 uint64_t bytes) noexcept {
        m_errors->check(OTF2_EvtWriter_MpiRecv(m_writer, nullptr, time, sender, comm, tag, bytes));
    }
    void mpiIrecv(uint64_t time, uint32_t sender, uint32_t comm, uint32_t tag, uint64_t bytes,
                  uint64_t request) noexcept {
        m_errors->check(
            OTF2_EvtWriter_MpiIrecv(m_writer, nullptr, time, sender, comm, tag, bytes, request));
    }
    void mpiRequestTest(uint64_t time, uint64_t request) noexcept {
        m_errors->check(OTF2_EvtWriter_MpiRequestTest(m_writer, nullptr, time, request));
    }
    void mpiRequestCancelled(uint64_t time, uint64_t request) noexcept {
        m_errors->check(OTF2_EvtWriter_MpiRequestCancelled(m_writer, nullptr, time, request));
    }

    /// Collectives: begin, then end with the operation; `root` is a rank of `comm` or
    /// kUndefined. `op` is an OTF2_CollectiveOp (CollectiveOp::Other is not one).
    void mpiCollectiveBegin(uint64_t time) noexcept {
        m_errors->check(OTF2_EvtWriter_MpiCollectiveBegin(m_writer, nullptr, time));
    }
    void mpiCollectiveEnd(uint64_t time, CollectiveOp op, uint32_t comm, uint32_t root,
                          uint64_t sent, uint64_t received) noexcept {
        m_errors->check(OTF2_EvtWriter_MpiCollectiveEnd(m_writer, nullptr, time,
                                                        static_cast<OTF2_CollectiveOp>(op), comm,
                                                        root, sent, received));
    }
    void nonBlockingCollectiveRequest(uint64_t time, uint64_t request) noexcept {
        m_errors->check(
            OTF2_EvtWriter_NonBlockingCollectiveRequest(m_writer, nullptr, time, request));
    }
    void nonBlockingCollectiveComplete(uint64_t time, CollectiveOp op, uint32_t comm, uint32_t root,
                                       uint64_t sent, uint64_t received,
                                       uint64_t request) noexcept {
        m_errors->check(OTF2_EvtWriter_NonBlockingCollectiveComplete(
            m_writer, nullptr, time, static_cast<OTF2_CollectiveOp>(op), comm, root, sent, received,
            request));
    }
    void commCreate(uint64_t time, uint32_t comm) noexcept {
        m_errors->check(OTF2_EvtWriter_CommCreate(m_writer, nullptr, time, comm));
    }
    void commDestroy(uint64_t time, uint32_t comm) noexcept {
        m_errors->check(OTF2_EvtWriter_CommDestroy(m_writer, nullptr, time, comm));
    }

    /// Calling contexts (unwound call paths and samples). `unwindDistance` 0: as the
    /// measurement writes them; `interruptGenerator`: the sampling timer's id.
    void callingContextEnter(uint64_t time, uint32_t context,
                             uint32_t unwindDistance = 0) noexcept {
        m_errors->check(
            OTF2_EvtWriter_CallingContextEnter(m_writer, nullptr, time, context, unwindDistance));
    }
    void callingContextLeave(uint64_t time, uint32_t context) noexcept {
        m_errors->check(OTF2_EvtWriter_CallingContextLeave(m_writer, nullptr, time, context));
    }
    void callingContextSample(uint64_t time, uint32_t context, uint32_t unwindDistance = 0,
                              uint32_t interruptGenerator = 0) noexcept {
        m_errors->check(OTF2_EvtWriter_CallingContextSample(m_writer, nullptr, time, context,
                                                            unwindDistance, interruptGenerator));
    }

    /// One-sided communication (RMA): see Otf2EventEncoder for the operands.
    void rmaWinCreate(uint64_t time, uint32_t win) noexcept {
        m_errors->check(OTF2_EvtWriter_RmaWinCreate(m_writer, nullptr, time, win));
    }
    void rmaWinDestroy(uint64_t time, uint32_t win) noexcept {
        m_errors->check(OTF2_EvtWriter_RmaWinDestroy(m_writer, nullptr, time, win));
    }
    void rmaCollectiveBegin(uint64_t time) noexcept {
        m_errors->check(OTF2_EvtWriter_RmaCollectiveBegin(m_writer, nullptr, time));
    }
    void rmaCollectiveEnd(uint64_t time, CollectiveOp op, uint32_t syncLevel, uint32_t win,
                          uint32_t root, uint64_t sent, uint64_t received) noexcept {
        m_errors->check(OTF2_EvtWriter_RmaCollectiveEnd(m_writer, nullptr, time,
                                                        static_cast<OTF2_CollectiveOp>(op),
                                                        syncLevel, win, root, sent, received));
    }
    void rmaGroupSync(uint64_t time, uint32_t syncLevel, uint32_t win, uint32_t group) noexcept {
        m_errors->check(
            OTF2_EvtWriter_RmaGroupSync(m_writer, nullptr, time, syncLevel, win, group));
    }
    void rmaRequestLock(uint64_t time, uint32_t win, uint32_t remote, uint64_t lockId,
                        uint8_t lockType) noexcept {
        m_errors->check(
            OTF2_EvtWriter_RmaRequestLock(m_writer, nullptr, time, win, remote, lockId, lockType));
    }
    void rmaAcquireLock(uint64_t time, uint32_t win, uint32_t remote, uint64_t lockId,
                        uint8_t lockType) noexcept {
        m_errors->check(
            OTF2_EvtWriter_RmaAcquireLock(m_writer, nullptr, time, win, remote, lockId, lockType));
    }
    void rmaTryLock(uint64_t time, uint32_t win, uint32_t remote, uint64_t lockId,
                    uint8_t lockType) noexcept {
        m_errors->check(
            OTF2_EvtWriter_RmaTryLock(m_writer, nullptr, time, win, remote, lockId, lockType));
    }
    void rmaReleaseLock(uint64_t time, uint32_t win, uint32_t remote, uint64_t lockId) noexcept {
        m_errors->check(
            OTF2_EvtWriter_RmaReleaseLock(m_writer, nullptr, time, win, remote, lockId));
    }
    void rmaSync(uint64_t time, uint32_t win, uint32_t remote, uint8_t syncType) noexcept {
        m_errors->check(OTF2_EvtWriter_RmaSync(m_writer, nullptr, time, win, remote, syncType));
    }
    void rmaWaitChange(uint64_t time, uint32_t win) noexcept {
        m_errors->check(OTF2_EvtWriter_RmaWaitChange(m_writer, nullptr, time, win));
    }
    void rmaPut(uint64_t time, uint32_t win, uint32_t remote, uint64_t bytes,
                uint64_t matchingId) noexcept {
        m_errors->check(
            OTF2_EvtWriter_RmaPut(m_writer, nullptr, time, win, remote, bytes, matchingId));
    }
    void rmaGet(uint64_t time, uint32_t win, uint32_t remote, uint64_t bytes,
                uint64_t matchingId) noexcept {
        m_errors->check(
            OTF2_EvtWriter_RmaGet(m_writer, nullptr, time, win, remote, bytes, matchingId));
    }
    void rmaAtomic(uint64_t time, uint32_t win, uint32_t remote, uint8_t atomicType, uint64_t sent,
                   uint64_t received, uint64_t matchingId) noexcept {
        m_errors->check(OTF2_EvtWriter_RmaAtomic(m_writer, nullptr, time, win, remote, atomicType,
                                                 sent, received, matchingId));
    }
    void rmaOpCompleteBlocking(uint64_t time, uint32_t win, uint64_t matchingId) noexcept {
        m_errors->check(
            OTF2_EvtWriter_RmaOpCompleteBlocking(m_writer, nullptr, time, win, matchingId));
    }
    void rmaOpCompleteNonBlocking(uint64_t time, uint32_t win, uint64_t matchingId) noexcept {
        m_errors->check(
            OTF2_EvtWriter_RmaOpCompleteNonBlocking(m_writer, nullptr, time, win, matchingId));
    }
    void rmaOpTest(uint64_t time, uint32_t win, uint64_t matchingId) noexcept {
        m_errors->check(OTF2_EvtWriter_RmaOpTest(m_writer, nullptr, time, win, matchingId));
    }
    void rmaOpCompleteRemote(uint64_t time, uint32_t win, uint64_t matchingId) noexcept {
        m_errors->check(
            OTF2_EvtWriter_RmaOpCompleteRemote(m_writer, nullptr, time, win, matchingId));
    }

    /// Thread management, as Score-P records it for POSIX threads (`contingent` is the
    /// communicator of the threads that may create one another, `sequence` the created
    /// thread's number in it): ThreadCreate on the creator, ThreadBegin as the thread's first
    /// event, ThreadEnd as its last, ThreadWait on the thread that joined it.
    void threadCreate(uint64_t time, uint32_t contingent, uint64_t sequence) noexcept {
        m_errors->check(OTF2_EvtWriter_ThreadCreate(m_writer, nullptr, time, contingent, sequence));
    }
    void threadWait(uint64_t time, uint32_t contingent, uint64_t sequence) noexcept {
        m_errors->check(OTF2_EvtWriter_ThreadWait(m_writer, nullptr, time, contingent, sequence));
    }
    void threadBegin(uint64_t time, uint32_t contingent, uint64_t sequence) noexcept {
        m_errors->check(OTF2_EvtWriter_ThreadBegin(m_writer, nullptr, time, contingent, sequence));
    }
    void threadEnd(uint64_t time, uint32_t contingent, uint64_t sequence) noexcept {
        m_errors->check(OTF2_EvtWriter_ThreadEnd(m_writer, nullptr, time, contingent, sequence));
    }

    /// File I/O, as Score-P records MPI-IO: a handle (an IoHandle definition) created at open
    /// and destroyed at close; each read or write an IoOperationBegin (`mode` an
    /// OTF2_IoOperationMode, `flags` OTF2_IoOperationFlag bits, the bytes requested, an id
    /// matching it to its completion) and an IoOperationComplete with the bytes done, or for a
    /// nonblocking one IoOperationIssued at its start and the completion when its request
    /// completes; IoSeek for a seek.
    void ioCreateHandle(uint64_t time, uint32_t handle, uint8_t mode, uint32_t creationFlags,
                        uint32_t statusFlags) noexcept {
        m_errors->check(OTF2_EvtWriter_IoCreateHandle(m_writer, nullptr, time, handle, mode,
                                                      creationFlags, statusFlags));
    }
    void ioDestroyHandle(uint64_t time, uint32_t handle) noexcept {
        m_errors->check(OTF2_EvtWriter_IoDestroyHandle(m_writer, nullptr, time, handle));
    }
    void ioOperationBegin(uint64_t time, uint32_t handle, uint8_t mode, uint32_t flags,
                          uint64_t bytesRequested, uint64_t matchingId) noexcept {
        m_errors->check(OTF2_EvtWriter_IoOperationBegin(m_writer, nullptr, time, handle, mode,
                                                        flags, bytesRequested, matchingId));
    }
    void ioOperationIssued(uint64_t time, uint32_t handle, uint64_t matchingId) noexcept {
        m_errors->check(
            OTF2_EvtWriter_IoOperationIssued(m_writer, nullptr, time, handle, matchingId));
    }
    void ioOperationComplete(uint64_t time, uint32_t handle, uint64_t bytesDone,
                             uint64_t matchingId) noexcept {
        m_errors->check(OTF2_EvtWriter_IoOperationComplete(m_writer, nullptr, time, handle,
                                                           bytesDone, matchingId));
    }
    void ioSeek(uint64_t time, uint32_t handle, int64_t offsetRequested, uint8_t whence,
                uint64_t offsetResult) noexcept {
        m_errors->check(OTF2_EvtWriter_IoSeek(m_writer, nullptr, time, handle, offsetRequested,
                                              whence, offsetResult));
    }

private:
    friend class Otf2Writer;
    Otf2EventWriter(OTF2_EvtWriter* writer, uint64_t location, Otf2ErrorLog* errors)
        : m_writer(writer), m_location(location), m_errors(errors) {}

    OTF2_EvtWriter* m_writer = nullptr;
    uint64_t m_location = 0;
    Otf2ErrorLog* m_errors = nullptr;
};

} // namespace waitscope::trace
