// readCubex: opens a CUBE4 .cubex report (Scalasca's, Score-P's or ours) without unpacking it.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <waitscope/base/result.h>
#include <waitscope/report/report.h>

namespace waitscope::report {

/// Told how far reading has come: the stage ("indexing archive", "parsing anchor.xml",
/// "building call tree", "building system tree") and the fraction of the whole read (0..1).
/// Called on the reading thread.
using ReadProgress = std::function<void(std::string_view stage, double fraction)>;

/// Opens the .cubex archive at `path`: memory-maps it, parses anchor.xml and returns a Report
/// whose metric data load on first use (sparse or dense index, plain or zlib-compressed data,
/// either byte order). Derived metrics that are sums or differences of other metrics are
/// evaluated; others are listed with `available == false`. Fails with a message naming the
/// file, the member and what is wrong (truncated archive, missing or malformed anchor.xml,
/// unknown data type, duplicate or out-of-range ids, ...); never crashes on bad input.
/// `progress`, if given, is told the stages as they begin.
Result<Report> readCubex(const std::string& path, const ReadProgress& progress = {});

/// Same as readCubex, from an in-memory copy of a .cubex file (used by tests and the fuzzer).
/// `name` is used in error messages.
Result<Report> readCubexFromMemory(std::string bytes, const std::string& name);

} // namespace waitscope::report
