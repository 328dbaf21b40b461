// Handlers of the MPI-IO calls that Score-P records as I/O events: a file's handle created at
// MPI_File_open and destroyed at MPI_File_close (an OTF2 I/O handle with the file's
// communicator), each read and write an IoOperationBegin with the bytes requested and an
// IoOperationComplete with the bytes done (from the status), the split collectives' begin and
// end as one operation, nonblocking reads and writes issued at once and completed with their
// request (requests.cpp), a sync as a flush, a seek as an IoSeek.
#pragma once

#include "call.h"

#include <cstdint>

namespace waitscope::measure::mpi {

/// OTF2's I/O operation modes and flags, as the handlers record them.
enum class FileMode : std::uint8_t { kRead = 0, kWrite = 1, kFlush = 2 };
inline constexpr std::uint32_t kFileCollective = 2;  ///< OTF2_IO_OPERATION_FLAG_COLLECTIVE
inline constexpr std::uint32_t kFileNonBlocking = 1; ///< OTF2_IO_OPERATION_FLAG_NON_BLOCKING

/// The records' room of a file call: Enter, the call path, begin, complete, Leave.
inline constexpr std::size_t kFileCallWords = 5 * kMaxRecordWords;

/// MPI_File_open: an IoCreateHandle when the file opened.
class FileOpen : public Call {
public:
    FileOpen(std::uint32_t region, std::uint32_t group, MPI_Comm comm, const char* filename,
             int amode, MPI_File* fh) noexcept;
    void finish(int rc) noexcept;

private:
    MPI_Comm m_comm;
    const char* m_filename;
    int m_amode;
    MPI_File* m_fh;
};

/// MPI_File_close: an IoDestroyHandle when the file closed.
class FileClose : public Call {
public:
    FileClose(std::uint32_t region, std::uint32_t group, MPI_File* fh) noexcept;
    void finish(int rc) noexcept;

private:
    std::uint64_t m_key = 0;
};

/// A blocking read or write (individual or collective, explicit offset, individual or shared
/// pointer), or a sync (kFlush, 0 bytes): begin at enter, complete at leave.
class FileOp : public Call, public StatusKeeper {
public:
    FileOp(std::uint32_t region, std::uint32_t group, MPI_File fh, FileMode mode,
           std::uint32_t flags, int count, MPI_Datatype type, MPI_Status* status) noexcept;
    /// A sync: a collective flush of no bytes.
    FileOp(std::uint32_t region, std::uint32_t group, MPI_File fh) noexcept;
    void finish(int rc) noexcept;

private:
    std::uint32_t m_handle = 0;
    std::uint64_t m_id = 0;
    bool m_known = false;
    bool m_flush = false;
};

/// The begin of a split collective (MPI_File_*_all_begin, *_ordered_begin): the operation's
/// begin, remembered on the file until its end.
class FileSplitBegin : public Call {
public:
    FileSplitBegin(std::uint32_t region, std::uint32_t group, MPI_File fh, FileMode mode, int count,
                   MPI_Datatype type) noexcept;
    void finish(int rc) noexcept;

private:
    MPI_File m_fh;
    std::uint64_t m_id = 0; ///< 0: nothing begun (an unknown file)
};

/// The end of a split collective: the remembered operation completes with the status's bytes.
class FileSplitEnd : public Call, public StatusKeeper {
public:
    FileSplitEnd(std::uint32_t region, std::uint32_t group, MPI_File fh,
                 MPI_Status* status) noexcept;
    void finish(int rc) noexcept;

private:
    MPI_File m_fh;
};

/// MPI_File_seek and MPI_File_seek_shared: an IoSeek with the offset requested, the whence and
/// the pointer's position after the call (MPI_File_get_position or _shared, in etypes), as
/// Score-P records it.
class FileSeek : public Call {
public:
    FileSeek(std::uint32_t region, std::uint32_t group, MPI_File fh, MPI_Offset offset, int whence,
             bool shared) noexcept;
    void finish(int rc) noexcept;

private:
    MPI_File m_fh;
    MPI_Offset m_offset;
    int m_whence;
    bool m_shared;
};

/// A nonblocking read or write (MPI_File_iread*, iwrite*): begin and issued now, complete when
/// a completion call finishes its request.
class FileIop : public Call {
public:
    FileIop(std::uint32_t region, std::uint32_t group, MPI_File fh, FileMode mode,
            std::uint32_t flags, int count, MPI_Datatype type, MPI_Request* request) noexcept;
    void finish(int rc) noexcept;

private:
    MPI_File m_fh;
    MPI_Request* m_request;
    std::uint64_t m_id = 0; ///< 0: nothing begun (an unknown file)
};

} // namespace waitscope::measure::mpi
