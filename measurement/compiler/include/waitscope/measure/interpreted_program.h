// Whether the program is an interpreter that records its own functions as regions (Python run
// with `python3 -m waitscope`), so unwound stacks, the interpreter's frames, are left out.
#pragma once

namespace waitscope::measure {

/// True once an interpreted program defined a region of its own code through the
/// waitscope_python_* functions. Main thread; read at record points, not in signal context.
bool interpretedProgram() noexcept;

} // namespace waitscope::measure
