// The MPI-IO handlers (file_io.h): the open files by their MPI_File handle, and the records.
#include "file_io.h"

#include "communicators.h"
#include "requests.h"
#include "table_lock.h"
#include "waitscope/measure/handle_map.h"

#include <otf2/OTF2_Definitions.h>
#include <otf2/OTF2_Events.h>
#include <otf2/OTF2_GeneralDefinitions.h>

namespace waitscope::measure::mpi {

namespace {

/// An open file: its I/O handle (local id) and the split collective in progress on it.
struct FileInfo {
    std::uint32_t handle = 0;
    bool splitOpen = false;
    std::uint64_t splitId = 0;
};

HandleMap<FileInfo>* g_files = nullptr;
std::uint64_t g_nextOperation = 1;

HandleMap<FileInfo>& files() {
    if (!g_files)
        g_files = new HandleMap<FileInfo>();
    return *g_files;
}

FileInfo* findFile(MPI_File fh) noexcept {
    return g_files && fh != MPI_FILE_NULL ? g_files->find(handleKey(fh)) : nullptr;
}

void recordBegin(std::uint64_t time, std::uint32_t handle, FileMode mode, std::uint32_t flags,
                 std::uint64_t bytes, std::uint64_t id) noexcept {
    std::uint64_t* x = appendRecord(time, EventKind::IoOperationBegin, handle);
    x[0] = static_cast<std::uint64_t>(mode) | (static_cast<std::uint64_t>(flags) << 8);
    x[1] = bytes;
    x[2] = id;
}

/// OTF2's access mode, creation and status flags of an MPI_File_open amode.
std::uint64_t openFlags(int amode) noexcept {
    std::uint64_t access = OTF2_IO_ACCESS_MODE_READ_WRITE;
    if ((amode & MPI_MODE_RDONLY) != 0)
        access = OTF2_IO_ACCESS_MODE_READ_ONLY;
    else if ((amode & MPI_MODE_WRONLY) != 0)
        access = OTF2_IO_ACCESS_MODE_WRITE_ONLY;
    std::uint64_t creation = OTF2_IO_CREATION_FLAG_NONE;
    if ((amode & MPI_MODE_CREATE) != 0)
        creation |= OTF2_IO_CREATION_FLAG_CREATE;
    if ((amode & MPI_MODE_EXCL) != 0)
        creation |= OTF2_IO_CREATION_FLAG_EXCLUSIVE;
    std::uint64_t status = OTF2_IO_STATUS_FLAG_NONE;
    if ((amode & MPI_MODE_APPEND) != 0)
        status |= OTF2_IO_STATUS_FLAG_APPEND;
    if ((amode & MPI_MODE_DELETE_ON_CLOSE) != 0)
        status |= OTF2_IO_STATUS_FLAG_DELETE_ON_CLOSE;
    return access | (creation << 8) | (status << 32);
}

} // namespace

void recordFileCompletion(std::uint32_t handle, std::uint64_t id, MPI_Status* status,
                          std::uint64_t time) noexcept {
    std::uint64_t* x = appendRecord(time, EventKind::IoOperationComplete, handle);
    x[0] = status != MPI_STATUS_IGNORE ? receivedBytes(status) : 0;
    x[1] = id;
}

FileOpen::FileOpen(std::uint32_t region, std::uint32_t group, MPI_Comm comm, const char* filename,
                   int amode, MPI_File* fh) noexcept
    : Call(region, group, kFileCallWords), m_comm(comm), m_filename(filename), m_amode(amode),
      m_fh(fh) {
    if (m_active)
        enter();
}

void FileOpen::finish(int rc) noexcept {
    if (!m_active)
        return;
    const std::uint64_t t = now();
    if (rc == MPI_SUCCESS && m_fh && *m_fh != MPI_FILE_NULL) {
        Definitions& defs = definitions();
        const std::uint32_t comm = commInfo(m_comm).id;
        FileInfo info;
        {
            // Another thread may define a communicator meanwhile (the definitions' lists grow).
            TableLock lock;
            const CommKey key = comm < defs.comms().size() ? defs.comms()[comm].key : kNoCommKey;
            info.handle = defs.addIoHandle(m_filename ? m_filename : "", key);
        }
        files().insert(handleKey(*m_fh), info);
        appendRecord(t, EventKind::IoCreateHandle, info.handle)[0] = openFlags(m_amode);
    }
    leave(t);
}

FileClose::FileClose(std::uint32_t region, std::uint32_t group, MPI_File* fh) noexcept
    : Call(region, group, kFileCallWords) {
    if (!m_active)
        return;
    if (fh && findFile(*fh))
        m_key = handleKey(*fh);
    enter();
}

void FileClose::finish(int rc) noexcept {
    if (!m_active)
        return;
    const std::uint64_t t = now();
    FileInfo* info = m_key != 0 && g_files ? g_files->find(m_key) : nullptr;
    if (info && rc == MPI_SUCCESS) {
        appendRecord(t, EventKind::IoDestroyHandle, info->handle);
        g_files->erase(m_key);
    }
    leave(t);
}

FileOp::FileOp(std::uint32_t region, std::uint32_t group, MPI_File fh, FileMode mode,
               std::uint32_t flags, int count, MPI_Datatype type, MPI_Status* status) noexcept
    : Call(region, group, kFileCallWords), StatusKeeper(status) {
    if (!m_active)
        return;
    enter();
    if (const FileInfo* info = findFile(fh)) {
        m_known = true;
        m_handle = info->handle;
        m_id = g_nextOperation++;
        recordBegin(m_enter, m_handle, mode, flags, typeBytes(count, type), m_id);
    }
}

FileOp::FileOp(std::uint32_t region, std::uint32_t group, MPI_File fh) noexcept
    : FileOp(region, group, fh, FileMode::kFlush, kFileCollective, 0, MPI_BYTE, MPI_STATUS_IGNORE) {
    m_flush = true;
}

void FileOp::finish(int rc) noexcept {
    if (!m_active)
        return;
    const std::uint64_t t = now();
    if (m_known) {
        // A failed call completes its operation with no bytes.
        recordFileCompletion(m_handle, m_id,
                             m_flush || rc != MPI_SUCCESS ? MPI_STATUS_IGNORE : m_status, t);
    }
    leave(t);
}

FileSplitBegin::FileSplitBegin(std::uint32_t region, std::uint32_t group, MPI_File fh,
                               FileMode mode, int count, MPI_Datatype type) noexcept
    : Call(region, group, kFileCallWords), m_fh(fh) {
    if (!m_active)
        return;
    enter();
    // At the enter: the members' wait for the last one is in the begin call.
    if (FileInfo* info = findFile(fh)) {
        m_id = g_nextOperation++;
        recordBegin(m_enter, info->handle, mode, kFileCollective, typeBytes(count, type), m_id);
    }
}

void FileSplitBegin::finish(int rc) noexcept {
    if (!m_active)
        return;
    const std::uint64_t t = now();
    FileInfo* info = findFile(m_fh);
    if (info && m_id != 0) {
        if (rc == MPI_SUCCESS) {
            info->splitOpen = true;
            info->splitId = m_id;
        } else {
            recordFileCompletion(info->handle, m_id, MPI_STATUS_IGNORE, t);
        }
    }
    leave(t);
}

FileSplitEnd::FileSplitEnd(std::uint32_t region, std::uint32_t group, MPI_File fh,
                           MPI_Status* status) noexcept
    : Call(region, group, kFileCallWords), StatusKeeper(status), m_fh(fh) {
    if (m_active)
        enter();
}

void FileSplitEnd::finish(int rc) noexcept {
    if (!m_active)
        return;
    const std::uint64_t t = now();
    FileInfo* info = findFile(m_fh);
    if (info && info->splitOpen) {
        recordFileCompletion(info->handle, info->splitId,
                             rc == MPI_SUCCESS ? m_status : MPI_STATUS_IGNORE, t);
        info->splitOpen = false;
    }
    leave(t);
}

FileSeek::FileSeek(std::uint32_t region, std::uint32_t group, MPI_File fh, MPI_Offset offset,
                   int whence, bool shared) noexcept
    : Call(region, group, kFileCallWords), m_fh(fh), m_offset(offset), m_whence(whence),
      m_shared(shared) {
    if (m_active)
        enter();
}

void FileSeek::finish(int rc) noexcept {
    if (!m_active)
        return;
    const FileInfo* info = rc == MPI_SUCCESS ? findFile(m_fh) : nullptr;
    MPI_Offset position = 0;
    // The position is asked before the time is taken: the query belongs to the call's time.
    const bool known = info && (m_shared ? PMPI_File_get_position_shared(m_fh, &position)
                                         : PMPI_File_get_position(m_fh, &position)) == MPI_SUCCESS;
    const std::uint64_t t = now();
    if (known) {
        std::uint64_t whence = OTF2_IO_SEEK_FROM_START;
        if (m_whence == MPI_SEEK_CUR)
            whence = OTF2_IO_SEEK_FROM_CURRENT;
        else if (m_whence == MPI_SEEK_END)
            whence = OTF2_IO_SEEK_FROM_END;
        std::uint64_t* x = appendRecord(t, EventKind::IoSeek, info->handle);
        x[0] = static_cast<std::uint64_t>(static_cast<std::int64_t>(m_offset));
        x[1] = static_cast<std::uint64_t>(position);
        x[2] = whence;
    }
    leave(t);
}

FileIop::FileIop(std::uint32_t region, std::uint32_t group, MPI_File fh, FileMode mode,
                 std::uint32_t flags, int count, MPI_Datatype type, MPI_Request* request) noexcept
    : Call(region, group, kFileCallWords), m_fh(fh), m_request(request) {
    if (!m_active)
        return;
    enter();
    if (const FileInfo* info = findFile(fh)) {
        m_id = g_nextOperation++;
        recordBegin(m_enter, info->handle, mode, flags | kFileNonBlocking, typeBytes(count, type),
                    m_id);
    }
}

void FileIop::finish(int rc) noexcept {
    if (!m_active)
        return;
    const std::uint64_t t = now();
    const FileInfo* info = findFile(m_fh);
    const bool started = rc == MPI_SUCCESS && m_request && *m_request != MPI_REQUEST_NULL;
    if (info && m_id != 0) {
        if (started)
            appendRecord(t, EventKind::IoOperationIssued, info->handle)[0] = m_id;
        else
            recordFileCompletion(info->handle, m_id, MPI_STATUS_IGNORE, t);
    }
    if (started) {
        RequestInfo request;
        request.active = true;
        if (info && m_id != 0) {
            request.kind = RequestInfo::kFileIo;
            request.comm = info->handle;
            request.id = m_id;
        } else {
            request.silent = true; // a file opened before the measurement: nothing to record
        }
        trackRequest(*m_request, request);
    }
    leave(t);
}

} // namespace waitscope::measure::mpi
