// readCubex: opens a CUBE4 .cubex report (Scalasca's, Score-P's or ours) without unpacking it.
#pragma once

#include <string>
#include <waitscope/base/result.h>
#include <waitscope/report/report.h>

namespace waitscope::report {

/// Opens the .cubex archive at `path`: memory-maps it, parses anchor.xml and returns a Report
/// whose metric data load on first use (sparse or dense index, plain or zlib-compressed data,
/// either byte order). Derived metrics that are sums or differences of other metrics are
/// evaluated; others are listed with `available == false`. Fails with a message naming the
/// file, the member and what is wrong (truncated archive, missing or malformed anchor.xml,
/// unknown data type, duplicate or out-of-range ids, ...); never crashes on bad input.
Result<Report> readCubex(const std::string& path);

/// Same as readCubex, from an in-memory copy of a .cubex file (used by tests and the fuzzer).
/// `name` is used in error messages.
Result<Report> readCubexFromMemory(std::string bytes, const std::string& name);

} // namespace waitscope::report
