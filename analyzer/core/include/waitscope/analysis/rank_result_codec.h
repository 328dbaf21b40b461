// Byte encoding of a RankResult (severities as sparse rows), so that ranks can send their
// results to the writer rank, and of a call tree alone.
#pragma once

#include "waitscope/analysis/rank_result.h"
#include "waitscope/base/result.h"

#include <cstdint>
#include <vector>

namespace waitscope::analysis {

/// Encodes `result` (host byte order; both ends run the same binary).
std::vector<uint8_t> encodeRankResult(const RankResult& result);
/// Decodes what encodeRankResult produced; fails naming the offset on a short or bad buffer.
Result<RankResult> decodeRankResult(const uint8_t* data, size_t size);

/// Encodes a call tree alone: the ranks' trees are unified before their results are merged.
std::vector<uint8_t> encodeCallTree(const CallTree& tree);
/// Decodes what encodeCallTree produced; fails naming the offset on a short or bad buffer.
Result<CallTree> decodeCallTree(const uint8_t* data, size_t size);

} // namespace waitscope::analysis
