// writeCubex: writes a Report as a CUBE4 .cubex archive that the Cube tools open.
#pragma once

#include <cstdint>
#include <string>
#include <waitscope/base/result.h>
#include <waitscope/report/report.h>

namespace waitscope::report {

/// Choices that change the bytes written, not the values.
struct WriteOptions {
    /// Modification time stored in the tar headers (seconds since 1970). Fixed by default so
    /// that writing the same report twice gives identical files.
    std::int64_t timestamp = 0;
};

/// Writes `report` to `path` (replacing it) as an uncompressed ustar archive: one
/// `<id>.index` (sparse) and `<id>.data` per stored metric, rows in CUBE's order for the
/// metric's kind, then anchor.xml. Metrics get dense ids in metric-tree pre-order, call nodes
/// and locations are numbered in tree pre-order; a metric of the shipped catalog with an empty
/// display name or description gets the catalog's. Only rows with a nonzero value are
/// written. Fails
/// with a message naming the file if it cannot be written or a metric's data cannot be loaded.
Status writeCubex(const Report& report, const std::string& path, const WriteOptions& options = {});

/// Same as writeCubex, into a string (used by tests).
Result<std::string> writeCubexToMemory(const Report& report, const WriteOptions& options = {});

} // namespace waitscope::report
