// findCallPathsBySuffix: finds call nodes by the end of their call path ("MPI_Recv",
// "receive_block/MPI_Recv"), the rule `waitscope report` and the GUI's --callpath share.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>
#include <waitscope/report/report.h>

namespace waitscope::report {

/// The call nodes whose call path (Report::callPath, region names joined by '/') ends with
/// `suffix` at a '/' boundary, in id order: "main/MPI_Recv" matches "prog/main/MPI_Recv" and
/// "main/MPI_Recv" but not "domain/MPI_Recv". A suffix starting with '/' must match from a
/// root ("/prog/main"). An empty suffix, or one with an empty component ("a//b"), matches
/// nothing. Work is linear in the call nodes times the suffix's components.
std::vector<CallNodeId> findCallPathsBySuffix(const Report& report, std::string_view suffix);

/// Up to `limit` call nodes to suggest when `path` matches nothing: those whose own region is
/// named like the last component of `path`, else those whose region name contains it, else
/// those whose region name (3 characters or more) it contains; ignoring case, in id order.
std::vector<CallNodeId> suggestCallPaths(const Report& report, std::string_view path,
                                         std::size_t limit = 5);

} // namespace waitscope::report
