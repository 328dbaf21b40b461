// `waitscope recover`: turns the records and definitions that the ranks of a failed run left in
// `ranks/` into an OTF2 trace of what is consistent, and says what was lost.
#pragma once

#include "waitscope/base/result.h"

#include <string>
#include <vector>

namespace waitscope::measure {

/// What recovery did, for the user.
struct RecoveryReport {
    bool recovered = false;                ///< a trace was written (false: there was one already)
    std::vector<std::string> notes;        ///< one line per rank that lost events, and why
    std::vector<std::uint64_t> keptEvents; ///< per rank
};

/// The name of the file in the experiment directory that holds the report's notes.
inline constexpr const char* kRecoveryFile = "recovery.txt";

/// Recovers the experiment `directory`: reads every rank's status, definitions and records,
/// cuts them to the consistent prefix (consistent_cut.h), and writes traces.otf2 with its
/// definitions, recovery.txt, and waitscope.measurement when the run left none. Fails, naming
/// the file, when nothing can be recovered (no rank left its definitions).
Result<RecoveryReport> recoverExperiment(const std::string& directory);

} // namespace waitscope::measure
