// Byte encoding of a RankResult, so that ranks can send their results to the writer rank.
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

} // namespace waitscope::analysis
