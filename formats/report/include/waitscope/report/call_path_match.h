// Finding call paths by their last regions ("receive_block/MPI_Recv" for
// "example_late_sender/main/receive_block/MPI_Recv"), and what to suggest when none matches.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>
#include <waitscope/report/report.h>

namespace waitscope::report {

/// The call nodes that `path` ("a/b/c", region names joined by '/') names. A path equal to a
/// node's full callPath() names that node alone (all such nodes when several share the path);
/// otherwise every node whose path ends in `path` at a '/' boundary ("receive_block/MPI_Recv"
/// matches ".../main/receive_block/MPI_Recv", "Recv" matches nothing). In call-node id order;
/// empty when nothing matches or `path` is empty.
std::vector<CallNodeId> findCallPathsBySuffix(const Report& report, std::string_view path);

/// Up to `limit` full call paths that the user may have meant by `path` when
/// findCallPathsBySuffix() finds nothing: the paths whose last region is the last region of
/// `path` (ignoring case), else those whose last region contains it. In call-node id order.
std::vector<std::string> suggestCallPaths(const Report& report, std::string_view path,
                                          std::size_t limit = 3);

/// The message for a `path` that names no call node: "no call path 'PATH' in this report",
/// followed by "; did you mean 'a/b/c' or 'x/y/c'?" when suggestCallPaths() has candidates.
std::string noCallPathMessage(const Report& report, std::string_view path);

} // namespace waitscope::report
