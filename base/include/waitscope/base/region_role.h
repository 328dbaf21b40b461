// What a region does and which programming model it belongs to, shared by the trace reader,
// the measurement and the analysis; the values are OTF2's, so the writer passes them through.
#pragma once

#include <cstdint>

namespace waitscope {

/// The role of a region, numerically equal to OTF2_RegionRole (the writer casts, the reader
/// maps). The trace reader keeps the OpenMP roles the analysis distinguishes (parallel,
/// barriers, worksharing, critical, ordered, tasks, fork/join) and reduces the other thread and
/// allocation roles to Other.
enum class RegionRole : std::uint8_t {
    Unknown = 0,
    Function = 1,
    Wrapper = 2,
    Loop = 3,
    Code = 4,
    Parallel = 5,
    Sections = 6,
    Section = 7,
    Workshare = 8,
    Single = 9,
    SingleSblock = 10,
    Master = 11,
    Critical = 12,
    CriticalSblock = 13,
    Atomic = 14,
    Barrier = 15,
    ImplicitBarrier = 16,
    Flush = 17,
    Ordered = 18,
    OrderedSblock = 19,
    Task = 20,
    TaskCreate = 21,
    TaskWait = 22,
    CollectiveOneToAll = 23,
    CollectiveAllToOne = 24,
    CollectiveAllToAll = 25,
    CollectiveOther = 26,
    FileIo = 27,
    PointToPoint = 28,
    Rma = 29,
    DataTransfer = 30,
    Artificial = 31,
    ThreadCreate = 32,
    ThreadWait = 33,
    TaskUntied = 34,
    Allocate = 35,
    Deallocate = 36,
    Reallocate = 37,
    FileIoMetadata = 38,
    Other = 0xff, ///< not an OTF2 role: a role the trace reader does not distinguish
};

/// The programming model of a region or group, numerically equal to OTF2_Paradigm for the
/// paradigms Waitscope writes or distinguishes.
enum class Paradigm : std::uint8_t {
    Unknown = 0,
    User = 1,
    Compiler = 2,
    OpenMp = 3,
    Mpi = 4,
    MeasurementSystem = 6,
    Pthread = 7,
    Sampling = 21,
    Other = 0xff, ///< not an OTF2 paradigm: one the trace reader does not distinguish
};

} // namespace waitscope
