// Writing one location's events straight into OTF2's event-file encoding: the bytes libotf2's
// event writer produces (chunk headers, timestamps, compressed integers), encoded by inline code
// into a buffer in memory and written to the location's event file a window at a time, so that
// translating a buffer of records is a tight loop with no library call per event.
//
// Format (OTF2 2.x/3.x event files, little-endian host): the file is a sequence of chunks of the
// archive's event chunk size, the last one cut after its end-of-buffer byte. A chunk starts with
// a header (byte 3, the endianness byte, the number of its first event and of its last event,
// each 8 bytes); a new chunk starts with a timestamp (byte 5 and 8 bytes of time). Then records:
// a timestamp when the time moved on, the event's type byte, for most types a length byte, and
// the event's fields as OTF2 compresses them (a size byte then that many low bytes; 0 and the
// all-ones value as one byte). A record starts a new chunk unless its largest encoding plus a
// timestamp leaves a byte free (for the end-of-chunk byte 0 that pads the chunk). Which records
// have a length byte and how large libotf2 bounds each record are libotf2's choices: the test
// that compares our bytes with libotf2's (tests/formats/trace) keeps them in step.
#pragma once

#include "waitscope/trace/definitions.h"
#include "waitscope/trace/otf2_event_writer.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

namespace waitscope::trace {

/// OTF2's event records as the bytes libotf2 writes (see above), with the calls of
/// Otf2EventWriter, written at the position m_pos of a buffer ending at m_end. `Self` makes room
/// when a record might not fit (Self::makeRoom(time): the next window of the chunk, or a new
/// chunk when the record might not fit in this one) and counts an event refused for
/// going back in time (Self::refuse()): Otf2EventEncoder, or its Run (a loop's copy of the
/// position, which the compiler can keep in registers).
template <class Self> class Otf2EventRecords {
public:
    /// Events encoded so far.
    uint64_t eventCount() const noexcept { return m_events; }

    void enter(uint64_t time, uint32_t region) noexcept { regionOnly(kEnter, time, region); }
    void leave(uint64_t time, uint32_t region) noexcept { regionOnly(kLeave, time, region); }
    /// A program's start without arguments; `name` is a global string.
    void programBegin(uint64_t time, uint32_t name) noexcept {
        if (begin(time, 12)) {
            type(kProgramBegin);
            uint8_t* length = openLength();
            u32(name);
            u32(0);
            closeLength(length);
        }
    }
    void programEnd(uint64_t time, int64_t exitStatus = kUnknownExitStatus) noexcept {
        if (begin(time, 11)) {
            type(kProgramEnd);
            uint8_t* length = openLength();
            i64(exitStatus);
            closeLength(length);
        }
    }
    void mpiSend(uint64_t time, uint32_t receiver, uint32_t comm, uint32_t tag,
                 uint64_t bytes) noexcept {
        message(kMpiSend, time, receiver, comm, tag, bytes);
    }
    void mpiRecv(uint64_t time, uint32_t sender, uint32_t comm, uint32_t tag,
                 uint64_t bytes) noexcept {
        message(kMpiRecv, time, sender, comm, tag, bytes);
    }
    void mpiIsend(uint64_t time, uint32_t receiver, uint32_t comm, uint32_t tag, uint64_t bytes,
                  uint64_t request) noexcept {
        requestMessage(kMpiIsend, time, receiver, comm, tag, bytes, request);
    }
    void mpiIrecv(uint64_t time, uint32_t sender, uint32_t comm, uint32_t tag, uint64_t bytes,
                  uint64_t request) noexcept {
        requestMessage(kMpiIrecv, time, sender, comm, tag, bytes, request);
    }
    void mpiIsendComplete(uint64_t time, uint64_t request) noexcept {
        requestOnly(kMpiIsendComplete, time, request);
    }
    void mpiIrecvRequest(uint64_t time, uint64_t request) noexcept {
        requestOnly(kMpiIrecvRequest, time, request);
    }
    void mpiRequestTest(uint64_t time, uint64_t request) noexcept {
        requestOnly(kMpiRequestTest, time, request);
    }
    void mpiRequestCancelled(uint64_t time, uint64_t request) noexcept {
        requestOnly(kMpiRequestCancelled, time, request);
    }
    void mpiCollectiveBegin(uint64_t time) noexcept {
        if (begin(time, 2)) {
            type(kMpiCollectiveBegin);
            *m_pos++ = 0; // the length of a record without fields
        }
    }
    void mpiCollectiveEnd(uint64_t time, CollectiveOp op, uint32_t comm, uint32_t root,
                          uint64_t sent, uint64_t received) noexcept {
        if (begin(time, 31)) {
            type(kMpiCollectiveEnd);
            uint8_t* length = openLength();
            *m_pos++ = static_cast<uint8_t>(op);
            u32(comm);
            u32(root);
            u64(sent);
            u64(received);
            closeLength(length);
        }
    }
    void nonBlockingCollectiveRequest(uint64_t time, uint64_t request) noexcept {
        if (begin(time, 11)) { // a record of OTF2 3, with a length byte unlike the older ones
            type(kNonBlockingCollectiveRequest);
            uint8_t* length = openLength();
            u64(request);
            closeLength(length);
        }
    }
    void nonBlockingCollectiveComplete(uint64_t time, CollectiveOp op, uint32_t comm, uint32_t root,
                                       uint64_t sent, uint64_t received,
                                       uint64_t request) noexcept {
        if (begin(time, 40)) {
            type(kNonBlockingCollectiveComplete);
            uint8_t* length = openLength();
            *m_pos++ = static_cast<uint8_t>(op);
            u32(comm);
            u32(root);
            u64(sent);
            u64(received);
            u64(request);
            closeLength(length);
        }
    }
    void commCreate(uint64_t time, uint32_t comm) noexcept {
        lengthAndU32(kCommCreate, time, comm);
    }
    void commDestroy(uint64_t time, uint32_t comm) noexcept {
        lengthAndU32(kCommDestroy, time, comm);
    }
    void callingContextEnter(uint64_t time, uint32_t context,
                             uint32_t unwindDistance = 0) noexcept {
        if (begin(time, 12)) {
            type(kCallingContextEnter);
            uint8_t* length = openLength();
            u32(context);
            u32(unwindDistance);
            closeLength(length);
        }
    }
    void callingContextLeave(uint64_t time, uint32_t context) noexcept {
        lengthAndU32(kCallingContextLeave, time, context);
    }
    void callingContextSample(uint64_t time, uint32_t context, uint32_t unwindDistance = 0,
                              uint32_t interruptGenerator = 0) noexcept {
        if (begin(time, 17)) {
            type(kCallingContextSample);
            uint8_t* length = openLength();
            u32(context);
            u32(unwindDistance);
            u32(interruptGenerator);
            closeLength(length);
        }
    }

    /// One-sided communication (RMA), as OTF2 1.2+ defines the records: `win` an RmaWin id,
    /// `remote` a rank of the window's communicator (kUndefined: all), `syncLevel` a set of
    /// OTF2_RmaSyncLevel bits, `lockType` an OTF2_LockType, `atomicType` an OTF2_RmaAtomicType.
    void rmaWinCreate(uint64_t time, uint32_t win) noexcept {
        lengthAndU32(kRmaWinCreate, time, win);
    }
    void rmaWinDestroy(uint64_t time, uint32_t win) noexcept {
        lengthAndU32(kRmaWinDestroy, time, win);
    }
    void rmaCollectiveBegin(uint64_t time) noexcept {
        if (begin(time, 2)) {
            type(kRmaCollectiveBegin);
            *m_pos++ = 0; // the length of a record without fields
        }
    }
    void rmaCollectiveEnd(uint64_t time, CollectiveOp op, uint32_t syncLevel, uint32_t win,
                          uint32_t root, uint64_t sent, uint64_t received) noexcept {
        if (begin(time, 36)) {
            type(kRmaCollectiveEnd);
            uint8_t* length = openLength();
            *m_pos++ = static_cast<uint8_t>(op);
            u32(syncLevel);
            u32(win);
            u32(root);
            u64(sent);
            u64(received);
            closeLength(length);
        }
    }
    void rmaGroupSync(uint64_t time, uint32_t syncLevel, uint32_t win, uint32_t group) noexcept {
        if (begin(time, 17)) {
            type(kRmaGroupSync);
            uint8_t* length = openLength();
            u32(syncLevel);
            u32(win);
            u32(group);
            closeLength(length);
        }
    }
    void rmaRequestLock(uint64_t time, uint32_t win, uint32_t remote, uint64_t lockId,
                        uint8_t lockType) noexcept {
        rmaLock(kRmaRequestLock, time, win, remote, lockId, lockType);
    }
    void rmaAcquireLock(uint64_t time, uint32_t win, uint32_t remote, uint64_t lockId,
                        uint8_t lockType) noexcept {
        rmaLock(kRmaAcquireLock, time, win, remote, lockId, lockType);
    }
    void rmaTryLock(uint64_t time, uint32_t win, uint32_t remote, uint64_t lockId,
                    uint8_t lockType) noexcept {
        rmaLock(kRmaTryLock, time, win, remote, lockId, lockType);
    }
    void rmaReleaseLock(uint64_t time, uint32_t win, uint32_t remote, uint64_t lockId) noexcept {
        if (begin(time, 21)) {
            type(kRmaReleaseLock);
            uint8_t* length = openLength();
            u32(win);
            u32(remote);
            u64(lockId);
            closeLength(length);
        }
    }
    /// `syncType` an OTF2_RmaSyncType.
    void rmaSync(uint64_t time, uint32_t win, uint32_t remote, uint8_t syncType) noexcept {
        if (begin(time, 13)) {
            type(kRmaSync);
            uint8_t* length = openLength();
            u32(win);
            u32(remote);
            *m_pos++ = syncType;
            closeLength(length);
        }
    }
    void rmaWaitChange(uint64_t time, uint32_t win) noexcept {
        lengthAndU32(kRmaWaitChange, time, win);
    }
    void rmaPut(uint64_t time, uint32_t win, uint32_t remote, uint64_t bytes,
                uint64_t matchingId) noexcept {
        rmaTransfer(kRmaPut, time, win, remote, bytes, matchingId);
    }
    void rmaGet(uint64_t time, uint32_t win, uint32_t remote, uint64_t bytes,
                uint64_t matchingId) noexcept {
        rmaTransfer(kRmaGet, time, win, remote, bytes, matchingId);
    }
    void rmaAtomic(uint64_t time, uint32_t win, uint32_t remote, uint8_t atomicType, uint64_t sent,
                   uint64_t received, uint64_t matchingId) noexcept {
        if (begin(time, 40)) {
            type(kRmaAtomic);
            uint8_t* length = openLength();
            u32(win);
            u32(remote);
            *m_pos++ = atomicType;
            u64(sent);
            u64(received);
            u64(matchingId);
            closeLength(length);
        }
    }
    void rmaOpCompleteBlocking(uint64_t time, uint32_t win, uint64_t matchingId) noexcept {
        rmaOp(kRmaOpCompleteBlocking, time, win, matchingId);
    }
    void rmaOpCompleteNonBlocking(uint64_t time, uint32_t win, uint64_t matchingId) noexcept {
        rmaOp(kRmaOpCompleteNonBlocking, time, win, matchingId);
    }
    void rmaOpTest(uint64_t time, uint32_t win, uint64_t matchingId) noexcept {
        rmaOp(kRmaOpTest, time, win, matchingId);
    }
    void rmaOpCompleteRemote(uint64_t time, uint32_t win, uint64_t matchingId) noexcept {
        rmaOp(kRmaOpCompleteRemote, time, win, matchingId);
    }

    /// File I/O records (Otf2EventWriter's I/O calls), each with a length byte.
    void ioCreateHandle(uint64_t time, uint32_t handle, uint8_t mode, uint32_t creationFlags,
                        uint32_t statusFlags) noexcept {
        if (begin(time, 18)) {
            type(kIoCreateHandle);
            uint8_t* length = openLength();
            u32(handle);
            *m_pos++ = mode;
            u32(creationFlags);
            u32(statusFlags);
            closeLength(length);
        }
    }
    void ioDestroyHandle(uint64_t time, uint32_t handle) noexcept {
        lengthAndU32(kIoDestroyHandle, time, handle);
    }
    void ioOperationBegin(uint64_t time, uint32_t handle, uint8_t mode, uint32_t flags,
                          uint64_t bytesRequested, uint64_t matchingId) noexcept {
        if (begin(time, 31)) {
            type(kIoOperationBegin);
            uint8_t* length = openLength();
            u32(handle);
            *m_pos++ = mode;
            u32(flags);
            u64(bytesRequested);
            u64(matchingId);
            closeLength(length);
        }
    }
    void ioOperationIssued(uint64_t time, uint32_t handle, uint64_t matchingId) noexcept {
        if (begin(time, 16)) {
            type(kIoOperationIssued);
            uint8_t* length = openLength();
            u32(handle);
            u64(matchingId);
            closeLength(length);
        }
    }
    void ioOperationComplete(uint64_t time, uint32_t handle, uint64_t bytesDone,
                             uint64_t matchingId) noexcept {
        if (begin(time, 25)) {
            type(kIoOperationComplete);
            uint8_t* length = openLength();
            u32(handle);
            u64(bytesDone);
            u64(matchingId);
            closeLength(length);
        }
    }
    void ioSeek(uint64_t time, uint32_t handle, int64_t offsetRequested, uint8_t whence,
                uint64_t offsetResult) noexcept {
        if (begin(time, 26)) {
            type(kIoSeek);
            uint8_t* length = openLength();
            u32(handle);
            i64(offsetRequested);
            *m_pos++ = whence;
            u64(offsetResult);
            closeLength(length);
        }
    }

    /// POSIX thread order (see Otf2EventWriter::threadCreate): `contingent` a communicator,
    /// `sequence` the created thread's number in it.
    void threadCreate(uint64_t time, uint32_t contingent, uint64_t sequence) noexcept {
        threadEvent(kThreadCreate, time, contingent, sequence);
    }
    void threadBegin(uint64_t time, uint32_t contingent, uint64_t sequence) noexcept {
        threadEvent(kThreadBegin, time, contingent, sequence);
    }
    void threadWait(uint64_t time, uint32_t contingent, uint64_t sequence) noexcept {
        threadEvent(kThreadWait, time, contingent, sequence);
    }
    void threadEnd(uint64_t time, uint32_t contingent, uint64_t sequence) noexcept {
        threadEvent(kThreadEnd, time, contingent, sequence);
    }

    // OTF2's event type ids (OTF2's internal event enumeration, stable across versions); public
    // for readers of these bytes (`waitscope recover` reads back what a killed rank encoded).
    static constexpr uint8_t kEnter = 12, kLeave = 13, kMpiSend = 14, kMpiIsend = 15,
                             kMpiIsendComplete = 16, kMpiIrecvRequest = 17, kMpiRecv = 18,
                             kMpiIrecv = 19, kMpiRequestTest = 20, kMpiRequestCancelled = 21,
                             kMpiCollectiveBegin = 22, kMpiCollectiveEnd = 23,
                             kCallingContextEnter = 66, kCallingContextLeave = 67,
                             kCallingContextSample = 68, kProgramBegin = 83, kProgramEnd = 84,
                             kNonBlockingCollectiveRequest = 85,
                             kNonBlockingCollectiveComplete = 86, kCommCreate = 87,
                             kCommDestroy = 88;
    static constexpr uint8_t kTimestamp = 5;
    // The thread order records' ids.
    static constexpr uint8_t kThreadCreate = 62, kThreadBegin = 63, kThreadWait = 64,
                             kThreadEnd = 65;
    // OTF2's RMA event type ids.
    static constexpr uint8_t kRmaWinCreate = 35, kRmaWinDestroy = 36, kRmaCollectiveBegin = 37,
                             kRmaCollectiveEnd = 38, kRmaGroupSync = 39, kRmaRequestLock = 40,
                             kRmaAcquireLock = 41, kRmaTryLock = 42, kRmaReleaseLock = 43,
                             kRmaSync = 44, kRmaWaitChange = 45, kRmaPut = 46, kRmaGet = 47,
                             kRmaAtomic = 48, kRmaOpCompleteBlocking = 49,
                             kRmaOpCompleteNonBlocking = 50, kRmaOpTest = 51,
                             kRmaOpCompleteRemote = 52;
    // The file I/O records' ids (appended apart so that other record groups append theirs).
    static constexpr uint8_t kIoCreateHandle = 69, kIoDestroyHandle = 70, kIoSeek = 72,
                             kIoOperationBegin = 75, kIoOperationIssued = 77,
                             kIoOperationComplete = 78;
    // The bytes that structure a chunk (see above).
    static constexpr uint8_t kEndOfChunk = 0, kEndOfBuffer = 1, kEndOfFile = 2, kChunkHeader = 3;
    /// A chunk header's bytes: its type, the endianness, its first and its last event number.
    static constexpr size_t kChunkHeaderBytes = 2 + 8 + 8;

protected:
    /// Starts a record of at most `maxBytes` (without its timestamp) at `time`: a new chunk when
    /// it might not fit, the timestamp when time moved on. False (counted) when time went back.
    bool begin(uint64_t time, size_t maxBytes) noexcept {
        if (time < m_time) [[unlikely]] {
            static_cast<Self*>(this)->refuse();
            return false;
        }
        if (maxBytes + 9 >= static_cast<size_t>(m_end - m_pos)) [[unlikely]] {
            static_cast<Self*>(this)->makeRoom(time);
        }
        if (time > m_time || time == 0) [[likely]] {
            *m_pos++ = kTimestamp;
            std::memcpy(m_pos, &time, 8);
            m_pos += 8;
            m_time = time;
        }
        ++m_events;
        return true;
    }
    void type(uint8_t id) noexcept { *m_pos++ = id; }
    uint8_t* openLength() noexcept { return m_pos++; }
    void closeLength(uint8_t* length) noexcept {
        *length = static_cast<uint8_t>(m_pos - length - 1);
    }
    /// OTF2's compressed unsigned integers: 0 and all ones as themselves in one byte, else the
    /// number of significant bytes and those bytes, lowest first.
    void u32(uint32_t value) noexcept {
        if (value == 0 || value == UINT32_MAX) {
            *m_pos++ = static_cast<uint8_t>(value);
            return;
        }
        const uint8_t size = static_cast<uint8_t>(4 - __builtin_clz(value) / 8);
        *m_pos = size;
        std::memcpy(m_pos + 1, &value, 4); // the chunk keeps room for the whole word
        m_pos += 1 + size;
    }
    void u64(uint64_t value) noexcept {
        if (value == 0 || value == UINT64_MAX) {
            *m_pos++ = static_cast<uint8_t>(value);
            return;
        }
        const uint8_t size = static_cast<uint8_t>(8 - __builtin_clzll(value) / 8);
        *m_pos = size;
        std::memcpy(m_pos + 1, &value, 8);
        m_pos += 1 + size;
    }
    /// Signed: negative values take all 8 bytes; 0 is the size byte 0.
    void i64(int64_t value) noexcept {
        uint64_t bits = 0;
        std::memcpy(&bits, &value, 8);
        const uint8_t size =
            value == 0 ? 0 : (value < 0 ? 8 : static_cast<uint8_t>(8 - __builtin_clzll(bits) / 8));
        *m_pos = size;
        std::memcpy(m_pos + 1, &bits, 8);
        m_pos += 1 + size;
    }
    void message(uint8_t id, uint64_t time, uint32_t peer, uint32_t comm, uint32_t tag,
                 uint64_t bytes) noexcept {
        if (begin(time, 26)) {
            type(id);
            uint8_t* length = openLength();
            u32(peer);
            u32(comm);
            u32(tag);
            u64(bytes);
            closeLength(length);
        }
    }
    void requestMessage(uint8_t id, uint64_t time, uint32_t peer, uint32_t comm, uint32_t tag,
                        uint64_t bytes, uint64_t request) noexcept {
        if (begin(time, 35)) {
            type(id);
            uint8_t* length = openLength();
            u32(peer);
            u32(comm);
            u32(tag);
            u64(bytes);
            u64(request);
            closeLength(length);
        }
    }
    /// A record of one id without a length byte (Enter, Leave).
    void regionOnly(uint8_t id, uint64_t time, uint32_t region) noexcept {
        if (begin(time, 6)) {
            type(id);
            u32(region);
        }
    }
    /// A record of one id with a length byte (CommCreate, CommDestroy, CallingContextLeave).
    void lengthAndU32(uint8_t id, uint64_t time, uint32_t value) noexcept {
        if (begin(time, 7)) {
            type(id);
            uint8_t* length = openLength();
            u32(value);
            closeLength(length);
        }
    }
    /// A thread order record: contingent and sequence number, with a length byte.
    void threadEvent(uint8_t id, uint64_t time, uint32_t contingent, uint64_t sequence) noexcept {
        if (begin(time, 16)) {
            type(id);
            uint8_t* length = openLength();
            u32(contingent);
            u64(sequence);
            closeLength(length);
        }
    }
    void requestOnly(uint8_t id, uint64_t time, uint64_t request) noexcept {
        if (begin(time, 10)) {
            type(id);
            u64(request);
        }
    }
    /// The lock records of RMA (request, acquire, try): window, remote, lock id, lock type.
    void rmaLock(uint8_t id, uint64_t time, uint32_t win, uint32_t remote, uint64_t lockId,
                 uint8_t lockType) noexcept {
        if (begin(time, 22)) {
            type(id);
            uint8_t* length = openLength();
            u32(win);
            u32(remote);
            u64(lockId);
            *m_pos++ = lockType;
            closeLength(length);
        }
    }
    /// RmaPut and RmaGet: window, remote, bytes, matching id.
    void rmaTransfer(uint8_t id, uint64_t time, uint32_t win, uint32_t remote, uint64_t bytes,
                     uint64_t matchingId) noexcept {
        if (begin(time, 30)) {
            type(id);
            uint8_t* length = openLength();
            u32(win);
            u32(remote);
            u64(bytes);
            u64(matchingId);
            closeLength(length);
        }
    }
    /// The completion and test records of an RMA operation: window and matching id.
    void rmaOp(uint8_t id, uint64_t time, uint32_t win, uint64_t matchingId) noexcept {
        if (begin(time, 16)) {
            type(id);
            uint8_t* length = openLength();
            u32(win);
            u64(matchingId);
            closeLength(length);
        }
    }

    uint8_t* m_pos = nullptr;
    uint8_t* m_end = nullptr;
    uint64_t m_time = 0;
    uint64_t m_events = 0;
};

/// The events of one location, encoded as libotf2 would write them (see above), with the calls
/// of Otf2EventWriter. Obtained from Otf2Writer::encodeEvents() and finished by
/// Otf2Writer::closeEvents(). Event calls are noexcept and allocate nothing; an event whose time
/// is before the last one's is refused and counted in the archive's errors (as libotf2 does), a
/// failed write of a chunk is counted with its errno (ENOSPC: OTF2_ERROR_ENOSPC) and later
/// chunks are dropped.
class Otf2EventEncoder : public Otf2EventRecords<Otf2EventEncoder> {
public:
    class Run;

    Otf2EventEncoder() = default;
    Otf2EventEncoder(Otf2EventEncoder&& other) noexcept;
    Otf2EventEncoder& operator=(Otf2EventEncoder&& other) noexcept;
    Otf2EventEncoder(const Otf2EventEncoder&) = delete;
    Otf2EventEncoder& operator=(const Otf2EventEncoder&) = delete;
    /// Closes an event file still open without finishing it (a cut file: call finish()).
    ~Otf2EventEncoder();

    bool valid() const noexcept { return m_buffer != nullptr; }
    uint64_t location() const noexcept { return m_location; }

    /// Writes the events encoded since the last write into the file, the current chunk's used
    /// part so far (its header's last event stays 0 until the chunk is full), so that the file
    /// holds every event encoded (a process killed afterwards leaves them). The chunk's later
    /// writes leave the part written alone: the file ends byte for byte as without this call.
    /// False when a write failed (now or before: counted then).
    bool writePending() noexcept;
    /// The bytes of the file written so far: whole chunks and the part writePending() wrote.
    uint64_t fileBytes() const noexcept { return m_chunkOffset + m_flushed; }

private:
    friend class Otf2EventRecords<Otf2EventEncoder>;
    friend class Otf2Writer;
    /// Takes `fd` (an event file opened for writing, or -1: nothing is written, every chunk
    /// counted as a failed write) and a chunk of `chunkBytes`; not valid() when there is no
    /// memory for the chunk.
    Otf2EventEncoder(int fd, uint64_t location, size_t chunkBytes, Otf2ErrorLog* errors) noexcept;
    /// Ends the events (the end-of-file and end-of-buffer bytes), writes the last chunk's used part
    /// and closes the file. Returns OTF2_SUCCESS or the first failure (counted when it happened).
    OTF2_ErrorCode finish() noexcept;

    /// Makes room for a record at `time` (slow path): the chunk's next window when the buffer
    /// ends before the chunk (a whole window of room: every record fits), else a new chunk.
    void makeRoom(uint64_t time) noexcept;
    /// Writes the buffer's bytes not yet in the file up to its window's end and moves the bytes
    /// beyond (a record begun in the slack) to its start: the chunk's next window.
    void slide() noexcept;
    /// Pads the full chunk, writes it and starts the next one at `time`.
    void newChunk(uint64_t time) noexcept;
    /// True when the chunk goes on beyond the buffer's end.
    bool bufferEndsBeforeChunk() const noexcept {
        return m_windowOffset + static_cast<size_t>(m_end - m_buffer) < m_chunkBytes;
    }
    /// The chunk's bytes so far (written or in the buffer).
    size_t chunkUsed() const noexcept {
        return m_windowOffset + static_cast<size_t>(m_pos - m_buffer);
    }
    /// Counts an event refused for going back in time.
    void refuse() noexcept;
    /// Writes the chunk's header (its first event is the next one).
    void writeHeader() noexcept;
    /// Writes the chunk's first `bytes` to the file (what writePending() wrote of them stays);
    /// counts a failure, after which nothing is written.
    void writeOut(size_t bytes) noexcept;
    /// Writes `bytes` at `offset` of the file unless a write failed; counts a failure.
    void writeAt(const uint8_t* from, size_t bytes, uint64_t offset) noexcept;
    /// Reserves the file's blocks ahead of a write ending at `end` (see m_reserved).
    void reserve(uint64_t end) noexcept;
    /// Gives back the blocks reserved beyond the file's end (when the file is closed).
    void releaseReserved() noexcept;
    void release() noexcept;

    /// The current chunk's bytes from m_windowOffset on: a chunk goes to the file a window at a
    /// time (m_window bytes at aligned offsets of the chunk, which is whole windows), through a
    /// buffer of one window and kSlack bytes for the record that crosses its end. Half a
    /// megabyte costs 128 page faults when first used, not a 1 MiB chunk's 256 (0.3 ms of CPU
    /// per rank on a virtual machine, issue 21); windows of half a megabyte and more at aligned
    /// offsets cost the kernel no more CPU per byte than whole chunks (smaller or unaligned
    /// writes get smaller page-cache folios: up to twice as much).
    uint8_t* m_buffer = nullptr;
    size_t m_bufferBytes = 0;  ///< the window and the slack (a chunk of one window: the chunk)
    size_t m_window = 0;       ///< kWindowBytes, or half a chunk of less than 1 MiB
    size_t m_windowOffset = 0; ///< where the buffer's first byte is in the current chunk
    size_t m_chunkBytes = 0;
    int m_fd = -1;
    uint64_t m_location = 0;
    Otf2ErrorLog* m_errors = nullptr;
    OTF2_ErrorCode m_failure = OTF2_SUCCESS;
    uint64_t m_chunkOffset = 0; ///< where the current chunk starts in the file
    size_t m_flushed = 0;       ///< its first bytes, already in the file (writePending, slide)
    /// The file's bytes whose blocks are reserved ahead of the writes (fallocate, the file's
    /// size unchanged): the kernel's CPU for a write into reserved blocks is a third less than
    /// for one that reserves its blocks page by page (ext4's delayed allocation; issue 21).
    /// kNoReserve once the file system refused.
    uint64_t m_reserved = 0;
    static constexpr uint64_t kNoReserve = ~uint64_t{0};

public:
    /// The window of a chunk of 1 MiB or more (a multiple of it).
    static constexpr size_t kWindowBytes = 512 * 1024;
    /// Room beyond the window for the record that crosses its end: more than any record with
    /// its timestamp takes, and the slack holds only one record's start.
    static constexpr size_t kSlack = 256;
};

/// A loop encoding many events (the measurement's translation of its records): the encoder's
/// position copied into this object, which lives on the loop's stack and whose address is never
/// passed on, so that the compiler keeps it in registers (the bytes written through m_pos could
/// alias the encoder's own members: each write would reload and store them). The encoder is
/// brought up to date when a chunk is full and when the Run ends; meanwhile only the Run encodes.
class Otf2EventEncoder::Run : public Otf2EventRecords<Otf2EventEncoder::Run> {
public:
    explicit Run(Otf2EventEncoder& encoder) noexcept : m_encoder(encoder) { load(); }
    Run(const Run&) = delete;
    Run& operator=(const Run&) = delete;
    ~Run() { store(); }

private:
    friend class Otf2EventRecords<Otf2EventEncoder::Run>;
    void makeRoom(uint64_t time) noexcept {
        store();
        m_encoder.makeRoom(time);
        load();
    }
    void refuse() noexcept { m_encoder.refuse(); }
    void load() noexcept {
        m_pos = m_encoder.m_pos;
        m_end = m_encoder.m_end;
        m_time = m_encoder.m_time;
        m_events = m_encoder.m_events;
    }
    void store() noexcept {
        m_encoder.m_pos = m_pos;
        m_encoder.m_end = m_end;
        m_encoder.m_time = m_time;
        m_encoder.m_events = m_events;
    }

    Otf2EventEncoder& m_encoder;
};

} // namespace waitscope::trace
