// Fatal signals (SIGSEGV, SIGTERM, ...): the rank saves its status, definitions and records on
// the way out, then hands the signal on.
#pragma once

namespace waitscope::measure {

/// Installs the handler for the fatal signals, keeping the program's own handlers to call
/// after it (WAITSCOPE_SIGNAL_HANDLERS). Main thread, in runtimeInit.
void installSignalHandlers();

} // namespace waitscope::measure
