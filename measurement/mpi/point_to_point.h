// Handlers of point-to-point calls: blocking and nonblocking sends and receives, probes,
// persistent request creation and MPI_Start.
#pragma once

#include "call.h"
#include "communicators.h"
#include "requests.h"

namespace waitscope::measure::mpi {

namespace detail {
inline void recordMessage(std::uint64_t time, EventKind kind, int peer, std::uint32_t comm, int tag,
                          std::uint64_t bytes) noexcept {
    std::uint64_t* x = appendRecord(time, kind, tracePeer(comm, peer));
    x[0] = packPair(comm, static_cast<std::uint32_t>(tag));
    x[1] = bytes;
}
} // namespace detail

/// Blocking sends (Send, Bsend, Ssend, Rsend): MpiSend at enter, as the trace convention has it.
class Send : public Call {
public:
    Send(std::uint32_t region, std::uint32_t group, int count, MPI_Datatype type, int dest, int tag,
         MPI_Comm comm) noexcept
        : Call(region, group) {
        if (!m_active)
            return;
        enter();
        if (dest != MPI_PROC_NULL)
            detail::recordMessage(m_enter, EventKind::MpiSend, dest, commInfo(comm).id, tag,
                                  typeBytes(count, type));
    }
    void finish(int) noexcept {
        if (m_active)
            leave(now());
    }
};

/// Blocking receives: MpiRecv at leave, with source, tag and size from the status.
class Recv : public Call, public StatusKeeper {
public:
    Recv(std::uint32_t region, std::uint32_t group, int source, MPI_Comm comm,
         MPI_Status* status) noexcept
        : Call(region, group), StatusKeeper(status), m_source(source), m_comm(comm) {
        if (m_active)
            enter();
    }
    void finish(int rc) noexcept {
        if (!m_active)
            return;
        std::uint64_t t = now();
        if (rc == MPI_SUCCESS && m_source != MPI_PROC_NULL && m_status->MPI_SOURCE != MPI_PROC_NULL)
            detail::recordMessage(t, EventKind::MpiRecv, m_status->MPI_SOURCE, commInfo(m_comm).id,
                                  m_status->MPI_TAG, receivedBytes(m_status));
        leave(t);
    }

private:
    int m_source;
    MPI_Comm m_comm;
};

/// Sendrecv and Sendrecv_replace: a send at enter and a receive at leave.
class Sendrecv : public Recv {
public:
    Sendrecv(std::uint32_t region, std::uint32_t group, int count, MPI_Datatype type, int dest,
             int tag, int source, MPI_Comm comm, MPI_Status* status) noexcept
        : Recv(region, group, source, comm, status) {
        if (m_active && dest != MPI_PROC_NULL)
            detail::recordMessage(m_enter, EventKind::MpiSend, dest, commInfo(comm).id, tag,
                                  typeBytes(count, type));
    }
};

/// Isend and Irecv: the request's peer, communicator and tag taken at enter; tracked when the
/// call succeeds, with a fresh id and its own record unless the peer is MPI_PROC_NULL.
class PointToPointRequest : public Call {
protected:
    PointToPointRequest(std::uint32_t region, std::uint32_t group, RequestInfo::Kind kind, int peer,
                        int tag, MPI_Comm comm, MPI_Request* request) noexcept
        : Call(region, group), m_request(request) {
        if (!m_active)
            return;
        enter();
        m_info.kind = kind;
        m_info.active = true;
        m_info.silent = peer == MPI_PROC_NULL;
        m_info.comm = commInfo(comm).id;
        m_info.peer = static_cast<std::uint32_t>(peer);
        m_info.tag = static_cast<std::uint32_t>(tag);
    }
    /// Ends the call; `record()` appends the request's record (m_info.id is set by then).
    template <class Record> void finishRequest(int rc, Record record) noexcept {
        if (!m_active)
            return;
        if (rc == MPI_SUCCESS && m_request) {
            if (!m_info.silent) {
                m_info.id = nextRequestId();
                record();
            }
            trackRequest(*m_request, m_info);
        }
        leave(now());
    }

    MPI_Request* m_request;
    RequestInfo m_info;
};

/// Nonblocking sends: MpiIsend with a new request id; completion records MpiIsendComplete.
class Isend : public PointToPointRequest {
public:
    Isend(std::uint32_t region, std::uint32_t group, int count, MPI_Datatype type, int dest,
          int tag, MPI_Comm comm, MPI_Request* request) noexcept
        : PointToPointRequest(region, group, RequestInfo::kSend, dest, tag, comm, request) {
        if (m_active)
            m_info.bytes = typeBytes(count, type);
    }
    void finish(int rc) noexcept {
        finishRequest(rc, [this] {
            std::uint64_t* x = appendRecord(m_enter, EventKind::MpiIsend,
                                            tracePeer(m_info.comm, static_cast<int>(m_info.peer)));
            x[0] = packPair(m_info.comm, m_info.tag);
            x[1] = m_info.bytes;
            x[2] = m_info.id;
        });
    }
};

/// Nonblocking receives: MpiIrecvRequest now; MpiIrecv when a completion call finishes it.
class Irecv : public PointToPointRequest {
public:
    Irecv(std::uint32_t region, std::uint32_t group, int source, int tag, MPI_Comm comm,
          MPI_Request* request) noexcept
        : PointToPointRequest(region, group, RequestInfo::kRecv, source, tag, comm, request) {}
    void finish(int rc) noexcept {
        finishRequest(
            rc, [this] { appendRecord(m_enter, EventKind::MpiIrecvRequest, 0)[0] = m_info.id; });
    }
};

/// The end of a persistent request's creation: tracked, inactive until MPI_Start.
template <class CallType>
inline void finishPersistentInit(bool active, int rc, MPI_Request* request, RequestInfo info,
                                 CallType& call) noexcept {
    if (!active)
        return;
    if (rc == MPI_SUCCESS && request) {
        info.persistent = true;
        info.active = false;
        trackRequest(*request, info);
    }
    call.leaveNow();
}

/// Persistent send creation: tracked inactive until MPI_Start.
class SendInit : public Isend {
public:
    SendInit(std::uint32_t region, std::uint32_t group, int count, MPI_Datatype type, int dest,
             int tag, MPI_Comm comm, MPI_Request* request) noexcept
        : Isend(region, group, count, type, dest, tag, comm, request) {}
    void finish(int rc) noexcept { finishPersistentInit(m_active, rc, m_request, m_info, *this); }
};

/// Persistent receive creation: tracked inactive until MPI_Start.
class RecvInit : public Irecv {
public:
    RecvInit(std::uint32_t region, std::uint32_t group, int source, int tag, MPI_Comm comm,
             MPI_Request* request) noexcept
        : Irecv(region, group, source, tag, comm, request) {}
    void finish(int rc) noexcept { finishPersistentInit(m_active, rc, m_request, m_info, *this); }
};

/// MPI_Start and MPI_Startall: each started request records like a new Isend or Irecv.
class Start : public Call {
public:
    Start(std::uint32_t region, std::uint32_t group, int count, MPI_Request* requests) noexcept
        : Call(region, group, 2 * kMaxRecordWords + (count > 0 ? count : 0) * kMaxRecordWords),
          m_count(count), m_requests(requests) {
        if (m_active)
            enter();
    }
    void finish(int rc) noexcept {
        if (!m_active)
            return;
        if (rc == MPI_SUCCESS)
            for (int i = 0; i < m_count; ++i)
                recordStart(m_requests[i], m_enter);
        leave(now());
    }

private:
    int m_count;
    MPI_Request* m_requests;
};

/// MPI_Request_free: forgets the request (a pending one completes unseen, which is counted).
class RequestFree : public Plain {
public:
    RequestFree(std::uint32_t region, std::uint32_t group, MPI_Request* request) noexcept
        : Plain(region, group), m_request(request ? *request : MPI_REQUEST_NULL) {}
    void finish(int rc) noexcept {
        if (rc == MPI_SUCCESS && m_request != MPI_REQUEST_NULL)
            forgetRequest(m_request);
        Plain::finish(rc);
    }

private:
    MPI_Request m_request;
};

/// MPI_Iprobe: recorded only when it finds a message (or when the reqtest group is on), so
/// polling loops do not flood the trace.
class Iprobe : public Call {
public:
    Iprobe(std::uint32_t region, std::uint32_t group, int* flag) noexcept
        : Call(region, group, 2 * kMaxRecordWords, CallSite::WhenRecorded), m_flag(flag) {}
    void finish(int rc) noexcept {
        if (!m_active)
            return;
        if (rc == MPI_SUCCESS && m_flag && !*m_flag && !(g_hot.recordMask & kGroupReqTest)) {
            countFromAnyThread(g_diagnostics.skippedTests); // any recording thread
            return;
        }
        enter();
        leave(now());
    }

private:
    int* m_flag;
};

/// Remembers which communicator a matched message (MPI_Message) belongs to.
void rememberMessage(MPI_Message message, MPI_Comm comm) noexcept;
/// The communicator of a matched message and forgets it; world if unknown.
std::uint32_t takeMessageComm(MPI_Message message) noexcept;

/// MPI_Mprobe: plain, and remembers the message's communicator for MPI_Mrecv/MPI_Imrecv.
class Mprobe : public Plain {
public:
    Mprobe(std::uint32_t region, std::uint32_t group, MPI_Comm comm, MPI_Message* message) noexcept
        : Plain(region, group), m_comm(comm), m_message(message) {}
    void finish(int rc) noexcept {
        if (rc == MPI_SUCCESS && m_message && *m_message != MPI_MESSAGE_NO_PROC)
            rememberMessage(*m_message, m_comm);
        Plain::finish(rc);
    }

private:
    MPI_Comm m_comm;
    MPI_Message* m_message;
};

/// MPI_Improbe: as Iprobe, remembering the message when one was found.
class Improbe : public Iprobe {
public:
    Improbe(std::uint32_t region, std::uint32_t group, MPI_Comm comm, int* flag,
            MPI_Message* message) noexcept
        : Iprobe(region, group, flag), m_comm(comm), m_flag2(flag), m_message(message) {}
    void finish(int rc) noexcept {
        if (rc == MPI_SUCCESS && m_flag2 && *m_flag2 && m_message &&
            *m_message != MPI_MESSAGE_NO_PROC)
            rememberMessage(*m_message, m_comm);
        Iprobe::finish(rc);
    }

private:
    MPI_Comm m_comm;
    int* m_flag2;
    MPI_Message* m_message;
};

/// What MPI_Mrecv and MPI_Imrecv share: the call is entered at once, and the communicator comes
/// from the matched message (remembered by Mprobe/Improbe, forgotten once received).
class MatchedReceive : public Call {
protected:
    MatchedReceive(std::uint32_t region, std::uint32_t group, MPI_Message* message) noexcept
        : Call(region, group), m_message(message ? *message : MPI_MESSAGE_NULL) {
        if (m_active)
            enter();
    }
    /// The matched message's communicator (0 for MPI_MESSAGE_NO_PROC), forgotten afterwards;
    /// taken whether or not the call is recorded.
    std::uint32_t takeComm() noexcept {
        return m_message != MPI_MESSAGE_NO_PROC ? takeMessageComm(m_message) : 0;
    }

    MPI_Message m_message;
};

/// MPI_Mrecv: a receive whose communicator comes from the matched message.
class Mrecv : public MatchedReceive, public StatusKeeper {
public:
    Mrecv(std::uint32_t region, std::uint32_t group, MPI_Message* message,
          MPI_Status* status) noexcept
        : MatchedReceive(region, group, message), StatusKeeper(status) {}
    void finish(int rc) noexcept {
        std::uint32_t comm = takeComm();
        if (!m_active)
            return;
        std::uint64_t t = now();
        if (rc == MPI_SUCCESS && m_message != MPI_MESSAGE_NO_PROC &&
            m_status->MPI_SOURCE != MPI_PROC_NULL)
            detail::recordMessage(t, EventKind::MpiRecv, m_status->MPI_SOURCE, comm,
                                  m_status->MPI_TAG, receivedBytes(m_status));
        leave(t);
    }
};

/// MPI_Imrecv: a nonblocking receive of a matched message.
class Imrecv : public MatchedReceive {
public:
    Imrecv(std::uint32_t region, std::uint32_t group, MPI_Message* message,
           MPI_Request* request) noexcept
        : MatchedReceive(region, group, message), m_request(request) {}
    void finish(int rc) noexcept {
        std::uint32_t comm = takeComm();
        if (!m_active)
            return;
        if (rc == MPI_SUCCESS && m_request) {
            RequestInfo info;
            info.kind = RequestInfo::kRecv;
            info.active = true;
            info.silent = m_message == MPI_MESSAGE_NO_PROC;
            info.comm = comm;
            if (!info.silent) {
                info.id = nextRequestId();
                appendRecord(m_enter, EventKind::MpiIrecvRequest, 0)[0] = info.id;
            }
            trackRequest(*m_request, info);
        }
        leave(now());
    }

private:
    MPI_Request* m_request;
};

} // namespace waitscope::measure::mpi
