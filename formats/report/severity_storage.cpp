// Lazy loading and row access for the per-metric severity tables.
#include "severity_storage.h"

#include <bit>
#include <cstring>
#include <waitscope/report/report.h>

namespace waitscope::report::detail {

SeverityStorage::SeverityStorage(Loader loader, std::vector<bool> lazy)
    : m_loader(std::move(loader)), m_lazy(std::move(lazy)) {}

const SeverityStorage& SeverityStorage::of(const Report& report) {
    return *report.m_storage;
}

SeverityStorage::Slot& SeverityStorage::slot(MetricId metric) const {
    if (metric >= m_slots.size())
        m_slots.resize(metric + 1);
    if (!m_slots[metric]) {
        m_slots[metric] = std::make_unique<Slot>();
        m_slots[metric]->rows = std::make_unique<MetricRows>();
    }
    return *m_slots[metric];
}

Result<const MetricRows*> SeverityStorage::rows(MetricId metric, std::size_t) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    Slot& s = slot(metric);
    if (!s.loaded) {
        s.loaded = true;
        if (metric < m_lazy.size() && m_lazy[metric] && m_loader) {
            Status status = m_loader(metric, *s.rows);
            if (!status) {
                s.error = status.error();
                *s.rows = MetricRows{};
            }
        }
    }
    if (s.error)
        return *s.error;
    return static_cast<const MetricRows*>(s.rows.get());
}

MetricRows& SeverityStorage::mutableRows(MetricId metric) {
    std::lock_guard<std::mutex> lock(m_mutex);
    Slot& s = slot(metric);
    s.loaded = true;
    m_anyValueSet = true;
    return *s.rows;
}

namespace {

std::uint64_t decodeElement(const MetricRows& rows, const unsigned char* p) {
    switch (rows.elementSize) {
    case 1: {
        std::uint8_t v = p[0];
        return rows.signedElements ? static_cast<std::uint64_t>(
                                         static_cast<std::int64_t>(static_cast<std::int8_t>(v)))
                                   : v;
    }
    case 2: {
        std::uint16_t v;
        std::memcpy(&v, p, 2);
        if (rows.swapBytes)
            v = static_cast<std::uint16_t>((v >> 8) | (v << 8));
        return rows.signedElements ? static_cast<std::uint64_t>(
                                         static_cast<std::int64_t>(static_cast<std::int16_t>(v)))
                                   : v;
    }
    case 4: {
        std::uint32_t v;
        std::memcpy(&v, p, 4);
        if (rows.swapBytes)
            v = __builtin_bswap32(v);
        if (rows.floatElements)
            return std::bit_cast<std::uint64_t>(static_cast<double>(std::bit_cast<float>(v)));
        return rows.signedElements ? static_cast<std::uint64_t>(
                                         static_cast<std::int64_t>(static_cast<std::int32_t>(v)))
                                   : v;
    }
    default: {
        std::uint64_t v;
        std::memcpy(&v, p, 8);
        return rows.swapBytes ? __builtin_bswap64(v) : v;
    }
    }
}

} // namespace

void SeverityStorage::readRow(const MetricRows& rows, CallNodeId cnode, std::uint64_t* out,
                              std::size_t width) {
    std::uint32_t r = cnode < rows.rowOf.size() ? rows.rowOf[cnode] : kNoRow;
    if (r == kNoRow) {
        std::memset(out, 0, width * sizeof(std::uint64_t));
        return;
    }
    if (rows.mapped) {
        const unsigned char* p = rows.mapped + std::size_t(r) * width * rows.elementSize;
        if (rows.elementSize == 8 && !rows.swapBytes) {
            std::memcpy(out, p, width * 8);
            return;
        }
        for (std::size_t i = 0; i < width; ++i)
            out[i] = decodeElement(rows, p + i * rows.elementSize);
        return;
    }
    std::memcpy(out, rows.cells.data() + std::size_t(r) * width, width * sizeof(std::uint64_t));
}

std::uint64_t* SeverityStorage::writableRow(MetricRows& rows, CallNodeId cnode, std::size_t width) {
    if (cnode >= rows.rowOf.size())
        rows.rowOf.resize(cnode + 1, kNoRow);
    std::uint32_t& r = rows.rowOf[cnode];
    if (r == kNoRow) {
        r = static_cast<std::uint32_t>(rows.cells.size() / (width ? width : 1));
        rows.cells.resize(rows.cells.size() + width, 0);
    }
    return rows.cells.data() + std::size_t(r) * width;
}

} // namespace waitscope::report::detail
