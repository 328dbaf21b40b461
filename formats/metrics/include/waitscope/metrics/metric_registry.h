// The metric registry: one definition per metric (name, display name, unit, parent, kind,
// description, documentation file), from which the analyzer's metric table and the runtime
// profile's metrics are taken. Plain constant data: no allocation, no exceptions, no static
// constructors, so libwaitscope.so may use it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <waitscope/metrics/metric_list.h>

namespace waitscope::metrics {

/// Every metric of the tree: first the ones the analyzer computes (in its order), then the
/// ones only documented. None marks the absent parent of a root.
enum class MetricId : std::uint8_t {
#define WAITSCOPE_METRIC_ID(id, ...) id,
    WAITSCOPE_ANALYZED_METRICS(WAITSCOPE_METRIC_ID)
        WAITSCOPE_DOCUMENTED_METRICS(WAITSCOPE_METRIC_ID)
#undef WAITSCOPE_METRIC_ID
            None,
};

/// Number of metrics in the tree.
inline constexpr std::size_t kMetricCount = static_cast<std::size_t>(MetricId::None);

/// Number of metrics the analyzer computes: MetricId values below it are analysis::Metric's.
inline constexpr std::size_t kAnalyzedMetricCount = [] {
    std::size_t count = 0;
#define WAITSCOPE_METRIC_COUNT(...) ++count;
    WAITSCOPE_ANALYZED_METRICS(WAITSCOPE_METRIC_COUNT)
#undef WAITSCOPE_METRIC_COUNT
    return count;
}();

/// What a metric measures.
enum class Unit : std::uint8_t { Seconds, Occurrences, Bytes };

/// What kind of quantity a metric is (see metric_list.h).
enum class Kind : std::uint8_t { Measured, WaitState, WaitStateCount, RootCause };

/// The definition of one metric of the tree.
struct MetricDefinition {
    MetricId id;
    std::string_view uniqueName;  ///< Scalasca's unique name, e.g. "mpi_latesender"
    std::string_view displayName; ///< e.g. "Late Sender"
    MetricId parent;              ///< MetricId::None for a root
    Unit unit;
    Kind kind;
    std::string_view description;   ///< one line
    std::string_view documentation; ///< its file in share/metrics, e.g. "mpi_latesender.md"
};

/// The blocks of the tree that a report carries only when the trace has what they measure, so
/// that the reports of other programs stay as they were before the block existed. Every other
/// metric is in Always. Which metrics form a block is their list in metric_list.h.
enum class Block : std::uint8_t {
    Always,    ///< every report
    OpenMp,    ///< WAITSCOPE_OPENMP_METRICS: only when the trace defines OpenMP regions
    MpiFileIo, ///< WAITSCOPE_ANALYZED_MPI_FILE_METRICS: only when the run read or wrote MPI files
    Pthread,   ///< WAITSCOPE_PTHREAD_METRICS: only when the trace defines pthread regions
    Rma,       ///< WAITSCOPE_ANALYZED_RMA_METRICS: only when the trace defines RMA windows
};

/// Number of blocks.
inline constexpr std::size_t kBlockCount = 5;

/// The block `id` belongs to.
constexpr Block metricBlock(MetricId id) noexcept {
    switch (id) {
#define WAITSCOPE_METRIC_CASE(id, ...) case MetricId::id:
        WAITSCOPE_OPENMP_METRICS(WAITSCOPE_METRIC_CASE)
        return Block::OpenMp;
        WAITSCOPE_ANALYZED_MPI_FILE_METRICS(WAITSCOPE_METRIC_CASE)
        return Block::MpiFileIo;
        WAITSCOPE_PTHREAD_METRICS(WAITSCOPE_METRIC_CASE)
        return Block::Pthread;
        WAITSCOPE_ANALYZED_RMA_METRICS(WAITSCOPE_METRIC_CASE)
        return Block::Rma;
#undef WAITSCOPE_METRIC_CASE
    default:
        return Block::Always;
    }
}

/// Every metric of the tree, indexed by MetricId.
inline constexpr MetricDefinition kMetricDefinitions[] = {
#define WAITSCOPE_METRIC_DEFINITION(id, name, display, parent, unit, kind, description)            \
    {MetricId::id, name,       display,     MetricId::parent,                                      \
     Unit::unit,   Kind::kind, description, name ".md"},
    WAITSCOPE_ANALYZED_METRICS(WAITSCOPE_METRIC_DEFINITION)
        WAITSCOPE_DOCUMENTED_METRICS(WAITSCOPE_METRIC_DEFINITION)
#undef WAITSCOPE_METRIC_DEFINITION
};
static_assert(std::size(kMetricDefinitions) == kMetricCount);

/// The definition of `id` (which must not be None).
constexpr const MetricDefinition& metricDefinition(MetricId id) noexcept {
    return kMetricDefinitions[static_cast<std::size_t>(id)];
}

/// The metric with unique name `name`, if the tree has one.
std::optional<MetricId> findMetric(std::string_view uniqueName) noexcept;

/// The unit as CUBE reports write it: "sec", "occ" or "bytes".
std::string_view unitName(Unit unit) noexcept;

/// How the runtime profile stores a metric's values (CUBE data types).
enum class ValueType : std::uint8_t { Double, Uint64, MinDouble, MaxDouble };

/// The runtime profile's metrics, in their order in its report.
enum class ProfileMetricId : std::uint8_t {
#define WAITSCOPE_PROFILE_METRIC_ID(id, ...) id,
    WAITSCOPE_PROFILE_METRICS(WAITSCOPE_PROFILE_METRIC_ID)
#undef WAITSCOPE_PROFILE_METRIC_ID
        Count_, ///< number of profile metrics, not a metric
};

/// Number of metrics of the runtime profile.
inline constexpr std::size_t kProfileMetricCount =
    static_cast<std::size_t>(ProfileMetricId::Count_);

/// The definition of one metric of the runtime profile.
struct ProfileMetricDefinition {
    ProfileMetricId id;
    std::string_view uniqueName;
    std::string_view displayName;
    ValueType valueType;
    Unit unit;
    std::string_view description;
};

/// Every metric of the runtime profile, indexed by ProfileMetricId.
inline constexpr ProfileMetricDefinition kProfileMetricDefinitions[] = {
#define WAITSCOPE_PROFILE_METRIC_DEFINITION(id, name, display, type, unit, description)            \
    {ProfileMetricId::id, name, display, ValueType::type, Unit::unit, description},
    WAITSCOPE_PROFILE_METRICS(WAITSCOPE_PROFILE_METRIC_DEFINITION)
#undef WAITSCOPE_PROFILE_METRIC_DEFINITION
};
static_assert(std::size(kProfileMetricDefinitions) == kProfileMetricCount);

/// Every metric of the tree, indexed by MetricId.
constexpr std::span<const MetricDefinition> metricDefinitions() noexcept {
    return kMetricDefinitions;
}

/// Every metric of the runtime profile, indexed by ProfileMetricId.
constexpr std::span<const ProfileMetricDefinition> profileMetricDefinitions() noexcept {
    return kProfileMetricDefinitions;
}

} // namespace waitscope::metrics
