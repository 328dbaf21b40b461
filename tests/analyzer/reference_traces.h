// The seven reference traces of tests/data/reference, which Scalasca's reports were made from.
#pragma once

#include <string>
#include <vector>

namespace waitscope::testing {

/// The reference traces' folder names.
inline const std::vector<std::string> kReferenceTraces = {
    "early_reduce",   "late_broadcast",  "late_receiver", "late_sender",
    "nb_late_sender", "wait_at_barrier", "wait_nxn"};

/// The folder of reference trace `name` (its trace is `trace/`, Scalasca's report beside it).
inline std::string referenceDirectory(const std::string& name) {
    return std::string(WAITSCOPE_REFERENCE_DIR) + "/" + name;
}

} // namespace waitscope::testing
