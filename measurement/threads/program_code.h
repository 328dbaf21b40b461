// Which code is the program's own: the POSIX threads wrappers record only the calls the
// program makes, not those of the MPI library, the OpenMP runtime or other system libraries
// (which lock mutexes all the time inside their own calls).
#pragma once

namespace waitscope::measure {

/// Any thread, not signal context: true when `address` (a return address) lies in the
/// executable or in a shared library that is neither a system library (below /usr or /lib)
/// nor the measurement itself. The modules are listed once, on the first call; modules loaded
/// later count as not the program's. False while another thread is still listing them.
bool isProgramCode(const void* address) noexcept;

} // namespace waitscope::measure
