// Building the overview: exclusive time per kind by walking each depth against the next (the
// children of a visit are the next depth's visits inside it), waiting time from the instances,
// then each coarser level by summing pairs of bins.
#include "timeline_summary.h"

#include "timeline_store.h"
#include "waitscope/analysis/wait_instances.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>

namespace waitscope::timeline {
namespace {

// 2: bins count the program and sampled calling contexts (visit_stack.h); 3: OpenMP and POSIX
// threads calls are a kind of their own (RegionKind::Threads), not MPI management. Older
// versions are built again.
constexpr char kMagic[] = "waitscope timeline summary 3\n";

bool isMpi(RegionKind kind) {
    return kind != RegionKind::Computation && kind != RegionKind::Measurement &&
           kind != RegionKind::Threads && kind != RegionKind::Count_;
}

// Adds [from, to] to the bins of one row (`add(bin, seconds)`), clipped to the run.
template <typename Add>
void spread(double begin, double width, uint32_t bins, double from, double to, Add add) {
    const double end = begin + width * bins;
    from = std::max(from, begin);
    to = std::min(to, end);
    if (!(to > from)) {
        return;
    }
    auto first = static_cast<uint32_t>(std::min<double>(bins - 1, (from - begin) / width));
    for (uint32_t b = first; b < bins; ++b) {
        const double binStart = begin + width * b;
        const double binEnd = b + 1 == bins ? end : binStart + width;
        if (binStart >= to) {
            break;
        }
        add(b, std::min(to, binEnd) - std::max(from, binStart));
    }
}

// The visits of one depth one after the other, from a vector.
class VisitCursor {
public:
    explicit VisitCursor(const std::vector<Visit>& visits) : m_visits(visits) {}
    bool done() const { return m_at == m_visits.size(); }
    const Visit& current() const { return m_visits[m_at]; }
    void advance() { ++m_at; }

private:
    const std::vector<Visit>& m_visits;
    size_t m_at = 0;
};

// The visits of one depth one after the other, decoded from the cache's records.
class RecordCursor {
public:
    static constexpr size_t kBytes = TimelineStore::kVisitBytes;
    explicit RecordCursor(const EncodedVisits& visits) : m_pieces(visits.pieces) { settle(); }
    bool done() const { return m_piece == m_pieces.size(); }
    const Visit& current() const { return m_current; }
    void advance() {
        ++m_at;
        settle();
    }

private:
    // Onto the next record there is (past empty pieces), decoded.
    void settle() {
        while (m_piece < m_pieces.size() && m_at == m_pieces[m_piece].second) {
            ++m_piece;
            m_at = 0;
        }
        if (m_piece < m_pieces.size()) {
            const char* record = m_pieces[m_piece].first + m_at * kBytes;
            std::memcpy(&m_current.start, record, 8);
            std::memcpy(&m_current.end, record + 8, 8);
            std::memcpy(&m_current.region, record + 16, 4);
        }
    }
    const std::vector<std::pair<const char*, uint64_t>>& m_pieces;
    size_t m_piece = 0;
    uint64_t m_at = 0;
    Visit m_current;
};

// One row's exclusive time per kind and visits per bin into `out` (`bins` bins over [begin,
// end]; waiting not touched): each depth walked against the next. `depthAt(depth)` gives a
// cursor over the row's visits at that depth; `kinds` is scratch.
template <typename DepthAt>
void sumRow(const Timeline& timeline, size_t depths, DepthAt depthAt, double begin, double end,
            uint32_t bins, std::vector<double>& kinds, Bin* out) {
    constexpr size_t kKinds = static_cast<size_t>(RegionKind::Count_);
    const double width = (end - begin) / bins;
    kinds.assign(static_cast<size_t>(bins) * kKinds, 0.0);
    for (size_t depth = 0; depth < depths; ++depth) {
        auto visits = depthAt(depth);
        auto children = depthAt(depth + 1 < depths ? depth + 1 : depths);
        for (; !visits.done(); visits.advance()) {
            const Visit& v = visits.current();
            if (v.start >= begin && v.start <= end) {
                const auto b =
                    static_cast<uint32_t>(std::min<double>(bins - 1, (v.start - begin) / width));
                ++out[b].visits;
            }
            const size_t kind = static_cast<size_t>(timeline.regionKind(v.region));
            const auto add = [&](uint32_t b, double seconds) {
                kinds[b * kKinds + kind] += seconds;
            };
            // The visit minus its children (the next depth's visits inside it).
            while (!children.done() && children.current().end <= v.start) {
                children.advance();
            }
            double cursor = v.start;
            for (; !children.done() && children.current().start < v.end; children.advance()) {
                spread(begin, width, bins, cursor, children.current().start, add);
                cursor = std::max(cursor, children.current().end);
            }
            spread(begin, width, bins, cursor, v.end, add);
        }
    }
    for (uint32_t b = 0; b < bins; ++b) {
        for (size_t k = 0; k < kKinds; ++k) {
            out[b].kinds[k] = static_cast<float>(kinds[b * kKinds + k]);
        }
    }
}

} // namespace

RegionKind Bin::dominant() const {
    size_t best = 0;
    for (size_t k = 1; k < kinds.size(); ++k) {
        if (kinds[k] > kinds[best]) {
            best = k;
        }
    }
    return static_cast<RegionKind>(best);
}

double Bin::mpi() const {
    double sum = 0.0;
    for (size_t k = 0; k < kinds.size(); ++k) {
        if (isMpi(static_cast<RegionKind>(k))) {
            sum += kinds[k];
        }
    }
    return sum;
}

double Bin::covered() const {
    double sum = 0.0;
    for (const float seconds : kinds) {
        sum += seconds;
    }
    return sum;
}

TimelineSummary TimelineSummary::build(const Timeline& timeline, uint32_t bins) {
    auto built = build(timeline, RowSource(), bins);
    return std::move(*built); // its own rows: nothing to fail
}

Result<TimelineSummary> TimelineSummary::build(const Timeline& timeline, const RowSource& rowAt,
                                               uint32_t bins) {
    Row read;
    Status failed = Status::success();
    static const std::vector<Visit> kNone;
    const auto depthAt = [&](uint32_t row, size_t depth) {
        if (!rowAt) {
            const std::vector<std::vector<Visit>>& depths = timeline.rows()[row].depths;
            return VisitCursor(depth < depths.size() ? depths[depth] : kNone);
        }
        if (depth == 0 || read.depths.empty()) {
            auto got = rowAt(row);
            if (!got) {
                failed = got.error();
                read = Row{};
            } else {
                read = std::move(*got);
            }
        }
        return VisitCursor(depth < read.depths.size() ? read.depths[depth] : kNone);
    };
    TimelineSummary summary = sum(timeline, depthAt, bins);
    if (!failed) {
        return failed.error();
    }
    return summary;
}

TimelineSummary
TimelineSummary::buildFromRecords(const Timeline& timeline,
                                  const std::vector<std::vector<EncodedVisits>>& visits,
                                  const std::vector<const Bin*>& given, uint32_t bins) {
    static const EncodedVisits kNone;
    return sum(
        timeline,
        [&](uint32_t row, size_t depth) {
            return RecordCursor(
                row < visits.size() && depth < visits[row].size() ? visits[row][depth] : kNone);
        },
        bins, given);
}

std::vector<Bin> TimelineSummary::rowFromRecords(const Timeline& timeline,
                                                 const std::vector<EncodedVisits>& depths,
                                                 uint32_t bins) {
    static const EncodedVisits kNone;
    std::vector<Bin> out(bins);
    std::vector<double> kinds;
    sumRow(
        timeline, depths.size(),
        [&](size_t depth) { return RecordCursor(depth < depths.size() ? depths[depth] : kNone); },
        timeline.begin(), std::max(timeline.end(), timeline.begin() + 1e-9), bins, kinds,
        out.data());
    return out;
}

template <typename DepthAt>
TimelineSummary TimelineSummary::sum(const Timeline& timeline, DepthAt depthAt, uint32_t bins,
                                     const std::vector<const Bin*>& given) {
    TimelineSummary summary;
    summary.m_rows = static_cast<uint32_t>(timeline.rows().size());
    summary.m_bins = bins;
    summary.m_begin = timeline.begin();
    summary.m_end = std::max(timeline.end(), timeline.begin() + 1e-9);
    const double width = (summary.m_end - summary.m_begin) / bins;
    // Sums in double per row, stored as float.
    std::vector<double> kinds;
    std::vector<Bin>& level =
        summary.m_levels.emplace_back(static_cast<size_t>(summary.m_rows) * bins);
    // The waiting time per row and bin, from the instances read a block at a time (the file
    // can be larger than memory; in a row's bins they are added in the file's order).
    std::vector<double> waitingOfRow(static_cast<size_t>(summary.m_rows) * bins, 0.0);
    const analysis::InstanceFile& instances = timeline.instances();
    std::vector<analysis::PatternInstance> chunk;
    for (uint64_t first = 0; first < instances.size();
         first += analysis::InstanceFile::kBlockRecords) {
        chunk.clear();
        if (!instances.read(first, analysis::InstanceFile::kBlockRecords, chunk)) {
            break; // a damaged record (the index was checked at open): the rest not counted
        }
        for (const analysis::PatternInstance& instance : chunk) {
            const uint32_t row = timeline.rowOfRank(instance.rank);
            if (row < summary.m_rows) {
                const auto [from, to] = analysis::waitingInterval(instance);
                double* waits = &waitingOfRow[static_cast<size_t>(row) * bins];
                spread(summary.m_begin, width, bins, from, to,
                       [waits](uint32_t b, double seconds) { waits[b] += seconds; });
            }
        }
    }
    for (uint32_t r = 0; r < summary.m_rows; ++r) {
        Bin* out = &level[static_cast<size_t>(r) * bins];
        if (r < given.size() && given[r] != nullptr) {
            std::copy_n(given[r], bins, out); // summed by the process that read the row
        } else {
            sumRow(
                timeline, timeline.rows()[r].depths.size(),
                [&](size_t depth) { return depthAt(r, depth); }, summary.m_begin, summary.m_end,
                bins, kinds, out);
        }
        for (uint32_t b = 0; b < bins; ++b) {
            out[b].waiting = static_cast<float>(waitingOfRow[static_cast<size_t>(r) * bins + b]);
        }
    }
    summary.buildLevels();
    return summary;
}

void TimelineSummary::buildLevels() {
    m_levels.resize(1);
    for (uint32_t bins = m_bins / 2; bins >= 1; bins /= 2) {
        const std::vector<Bin>& finer = m_levels.back();
        std::vector<Bin> coarser(static_cast<size_t>(m_rows) * bins);
        for (uint32_t r = 0; r < m_rows; ++r) {
            for (uint32_t b = 0; b < bins; ++b) {
                const Bin& x = finer[static_cast<size_t>(r) * bins * 2 + b * 2];
                const Bin& y = finer[static_cast<size_t>(r) * bins * 2 + b * 2 + 1];
                Bin& out = coarser[static_cast<size_t>(r) * bins + b];
                for (size_t k = 0; k < out.kinds.size(); ++k) {
                    out.kinds[k] = x.kinds[k] + y.kinds[k];
                }
                out.waiting = x.waiting + y.waiting;
                out.visits = x.visits + y.visits;
            }
        }
        m_levels.push_back(std::move(coarser));
    }
}

size_t TimelineSummary::levelFor(double width) const {
    for (size_t level = m_levels.size(); level-- > 0;) {
        if (binWidth(level) <= width) {
            return level;
        }
    }
    return 0;
}

template <typename Share>
std::vector<ShareRange> TimelineSummary::shares(size_t level, const std::vector<uint32_t>& mainRows,
                                                Share share) const {
    const uint32_t bins = binsAt(level);
    std::vector<ShareRange> out(bins);
    if (mainRows.empty()) {
        return out;
    }
    const double width = binWidth(level);
    for (uint32_t b = 0; b < bins; ++b) {
        double low = 1.0;
        double high = 0.0;
        double sum = 0.0;
        for (const uint32_t row : mainRows) {
            const double value = std::clamp(share(bin(level, row, b)) / width, 0.0, 1.0);
            low = std::min(low, value);
            high = std::max(high, value);
            sum += value;
        }
        out[b] = {static_cast<float>(low), static_cast<float>(sum / mainRows.size()),
                  static_cast<float>(high)};
    }
    return out;
}

std::vector<ShareRange> TimelineSummary::mpiShare(size_t level,
                                                  const std::vector<uint32_t>& mainRows) const {
    return shares(level, mainRows, [](const Bin& b) { return b.mpi(); });
}

std::vector<ShareRange> TimelineSummary::waitingShare(size_t level,
                                                      const std::vector<uint32_t>& mainRows) const {
    return shares(level, mainRows, [](const Bin& b) { return static_cast<double>(b.waiting); });
}

TimelineSummary TimelineSummary::cached(const Timeline& timeline) {
    if (timeline.anchor().empty()) {
        return build(timeline);
    }
    const std::string path =
        (std::filesystem::path(timeline.anchor()).parent_path() / kCacheFile).string();
    const std::string signature = signatureOf(timeline.anchor());
    if (auto read = load(path, signature); read && read->rows() == timeline.rows().size()) {
        return std::move(*read);
    }
    TimelineSummary summary = build(timeline);
    (void)summary.save(path, signature); // a read-only experiment: built again next time
    return summary;
}

std::string TimelineSummary::signatureOf(const std::string& anchor) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(anchor).parent_path();
    const fs::path stem = fs::path(anchor).stem();
    std::string signature;
    std::error_code error;
    const auto add = [&](const fs::path& file) {
        const auto size = fs::file_size(file, error);
        const auto time = fs::last_write_time(file, error);
        signature += file.filename().string() + ":" + std::to_string(error ? 0 : size) + ":" +
                     std::to_string(error ? 0 : time.time_since_epoch().count()) + " ";
    };
    add(anchor);
    add(dir / (stem.string() + ".def"));
    add(dir / analysis::kWaitInstancesFile);
    uintmax_t events = 0;
    for (fs::recursive_directory_iterator it(dir / stem, error), end; !error && it != end;
         it.increment(error)) {
        if (it->is_regular_file(error)) {
            events += it->file_size(error);
        }
    }
    return signature + "events:" + std::to_string(events);
}

Status TimelineSummary::save(const std::string& path, const std::string& signature) const {
    const std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "wb"), &std::fclose);
    if (!file) {
        return Error(path + ": cannot write");
    }
    const auto length = static_cast<uint32_t>(signature.size());
    std::fwrite(kMagic, 1, sizeof(kMagic) - 1, file.get());
    std::fwrite(&length, sizeof length, 1, file.get());
    std::fwrite(signature.data(), 1, signature.size(), file.get());
    std::fwrite(&m_rows, sizeof m_rows, 1, file.get());
    std::fwrite(&m_bins, sizeof m_bins, 1, file.get());
    std::fwrite(&m_begin, sizeof m_begin, 1, file.get());
    std::fwrite(&m_end, sizeof m_end, 1, file.get());
    std::fwrite(m_levels[0].data(), sizeof(Bin), m_levels[0].size(), file.get());
    if (std::ferror(file.get()) != 0) {
        return Error(path + ": cannot write");
    }
    return Status::success();
}

Result<TimelineSummary> TimelineSummary::load(const std::string& path,
                                              const std::string& signature) {
    const std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!file) {
        return Error(path + ": cannot open");
    }
    const auto damaged = [&] { return Error(path + ": not a timeline summary (damaged)"); };
    char magic[sizeof(kMagic) - 1];
    uint32_t length = 0;
    if (std::fread(magic, 1, sizeof magic, file.get()) != sizeof magic ||
        std::memcmp(magic, kMagic, sizeof magic) != 0 ||
        std::fread(&length, sizeof length, 1, file.get()) != 1 || length > 1u << 20) {
        return damaged();
    }
    std::string stored(length, '\0');
    if (std::fread(stored.data(), 1, length, file.get()) != length) {
        return damaged();
    }
    if (stored != signature) {
        return Error(path + ": summarizes another version of the trace");
    }
    TimelineSummary summary;
    if (std::fread(&summary.m_rows, sizeof summary.m_rows, 1, file.get()) != 1 ||
        std::fread(&summary.m_bins, sizeof summary.m_bins, 1, file.get()) != 1 ||
        std::fread(&summary.m_begin, sizeof summary.m_begin, 1, file.get()) != 1 ||
        std::fread(&summary.m_end, sizeof summary.m_end, 1, file.get()) != 1 ||
        summary.m_bins == 0 || (summary.m_bins & (summary.m_bins - 1)) != 0 ||
        summary.m_bins > (1u << 20) || summary.m_rows > (1u << 24)) {
        return damaged();
    }
    std::vector<Bin>& level =
        summary.m_levels.emplace_back(static_cast<size_t>(summary.m_rows) * summary.m_bins);
    if (std::fread(level.data(), sizeof(Bin), level.size(), file.get()) != level.size()) {
        return damaged();
    }
    summary.buildLevels();
    return summary;
}

} // namespace waitscope::timeline
