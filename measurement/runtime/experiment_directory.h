// The experiment directory: deciding where the run goes, and writing its small text files
// (configuration, rank status) with failures noted for the rank's status.
#pragma once

#include "waitscope/measure/config.h"

#include <string>

namespace waitscope::measure {

struct RuntimeState;

/// Rank 0 decides whether the run is measured and where (creating the directory and its
/// `ranks` folder, or warning why not); every rank learns the answer and s.directory.
/// Collective on s.comm (none without MPI).
bool prepareDirectory(RuntimeState& s);

/// The text of waitscope.config: the settings the run used.
std::string configDump(const Config& c);

/// Remembers the first failed write (errno, file) for the rank's status and warning.
void noteWriteError(RuntimeState& s, const std::string& path, int error);

/// Writes `text` to `path`, replacing it; false (errno set) when any step failed.
bool writeTextFile(const std::string& path, const std::string& text);

/// writeTextFile that records a failure in the rank's state (its status and warning say it).
bool writeExperimentFile(RuntimeState& s, const std::string& path, const std::string& text);

/// Replaces the rank's status file (ranks/<rank>.status) with `text`, when it has one.
void writeStatus(RuntimeState& s, const std::string& text);

} // namespace waitscope::measure
