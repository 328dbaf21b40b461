// SeverityStorage: the dense/sparse row tables that hold each metric's stored values.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>
#include <waitscope/base/result.h>
#include <waitscope/report/call_tree.h>
#include <waitscope/report/metric.h>
#include <waitscope/report/system_tree.h>

namespace waitscope::report {
class Report;
}

namespace waitscope::report::detail {

/// Marks a call node without a stored row (all zero).
inline constexpr std::uint32_t kNoRow = 0xffffffffu;

/// Stored values of one metric: a row per call node that has data, one 8-byte cell per
/// location. Rows live either in `cells` (built in memory, decompressed, widened) or in a
/// memory-mapped data member (`mapped`), decoded on access.
struct MetricRows {
    std::vector<std::uint32_t> rowOf;      ///< per call node: row number or kNoRow
    std::vector<std::uint64_t> cells;      ///< owned rows, row r at r * width
    const unsigned char* mapped = nullptr; ///< first row in a mapped data member, or nullptr
    unsigned elementSize = 8;              ///< bytes per mapped value (1, 2, 4 or 8)
    bool swapBytes = false;                ///< mapped values in the other byte order
    bool signedElements = false;           ///< mapped integers are signed (widened by sign)
    bool floatElements = false;            ///< mapped 4-byte values are IEEE float
};

/// Severity tables of every metric, with lazy loading for reports read from files.
class SeverityStorage {
public:
    /// Loads a metric's rows on first use; returns its error if the data is corrupt.
    using Loader = std::function<Status(MetricId, MetricRows&)>;

    SeverityStorage() = default;
    /// The storage of `report`, for the writer, which reads the row tables directly.
    static const SeverityStorage& of(const Report& report);
    /// Storage for a file: each metric with `lazy[m]` is filled by `loader` on first use.
    SeverityStorage(Loader loader, std::vector<bool> lazy);

    /// Returns the loaded rows of `metric` (empty rows if it has none), loading them first if
    /// needed. Thread-safe. The pointer stays valid while the storage lives.
    Result<const MetricRows*> rows(MetricId metric, std::size_t locationCount) const;
    /// Returns the rows of `metric` for writing, creating them. Not thread-safe.
    MetricRows& mutableRows(MetricId metric);
    /// Whether rows come from a file (their width is fixed by it).
    bool fileBacked() const { return static_cast<bool>(m_loader); }
    /// Whether any metric has a value set through mutableRows().
    bool anyValueSet() const { return m_anyValueSet; }

    /// Reads one stored row (zeros if absent) into `out` (size = location count).
    static void readRow(const MetricRows& rows, CallNodeId cnode, std::uint64_t* out,
                        std::size_t width);
    /// Returns a pointer to a writable row, creating a zero row if absent.
    static std::uint64_t* writableRow(MetricRows& rows, CallNodeId cnode, std::size_t width);

private:
    struct Slot {
        std::unique_ptr<MetricRows> rows;
        bool loaded = false;
        std::optional<Error> error;
    };
    Slot& slot(MetricId metric) const;

    Loader m_loader;
    std::vector<bool> m_lazy;
    mutable std::vector<std::unique_ptr<Slot>> m_slots;
    mutable std::mutex m_mutex;
    bool m_anyValueSet = false;
};

} // namespace waitscope::report::detail
