"""The hook that enters and leaves a region per call of the program's Python functions.

Only the program's own code is recorded, not the standard library's or installed packages'
(mpi4py's Python layer among them). The hook is libwaitscope.so's profile function in C
(waitscope_python_profile), which asks define() once per code object for its region and then
costs a hash lookup per call; where the interpreter's C API cannot be found, a trace function
in Python does the same (C builtins cost it nothing, a recorded call about a microsecond). A function is defined once (name, file, first and last line) and
entered and left by id, through libwaitscope.so's waitscope_python_* functions.
"""

import ctypes
import glob
import os
import sys
import sysconfig

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_recording = None


def _find_library(path=None):
    """The path of libwaitscope.so to load, or None when it is in the process already
    (preloaded): `path`, or the one installed with this package."""
    if hasattr(ctypes.CDLL(None), "waitscope_python_region"):
        return None
    if not path:
        # Installed as <prefix>/share/waitscope/python/waitscope: the library is in <prefix>/lib.
        prefix = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(_PACKAGE_DIR))))
        found = sorted(glob.glob(os.path.join(prefix, "lib", "libwaitscope.so")) +
                       glob.glob(os.path.join(prefix, "lib*", "*", "libwaitscope.so")))
        path = found[0] if found else None
    if not path:
        raise RuntimeError("waitscope: libwaitscope.so not found: preload it "
                           "(LD_PRELOAD, or `waitscope analyze`) or name it with --library")
    return path


def _load(path, kind=ctypes.CDLL):
    # Global, and before mpi4py loads libmpi, so mpi4py's MPI calls reach the wrappers.
    return kind(path, mode=ctypes.RTLD_GLOBAL)


def _library_folders():
    folders = {_PACKAGE_DIR}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        folder = sysconfig.get_paths().get(key)
        if folder:
            folders.add(folder)
    for folder in sys.path:
        if folder.endswith(("site-packages", "dist-packages")):
            folders.add(folder)
    return tuple(os.path.join(os.path.realpath(f), "") for f in folders)


def _last_line(code):
    lines = [line for _, _, line in code.co_lines() if line] if hasattr(code, "co_lines") else []
    return max(lines) if lines else code.co_firstlineno


class _Recording:
    def __init__(self, path):
        library = _load(path)
        # Called holding the GIL (PyDLL): they install the interpreter's profile function.
        self.python = _load(path, ctypes.PyDLL)
        self.region = library.waitscope_python_region
        self.region.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int]
        self.region.restype = ctypes.c_long
        self.enter = library.waitscope_python_enter
        self.enter.argtypes = [ctypes.c_long]
        self.enter.restype = ctypes.c_int
        self.leave = library.waitscope_python_leave
        self.leave.argtypes = [ctypes.c_long]
        self.leave.restype = None
        self.skipped = _library_folders()
        self.ids = {}  # code object -> region id, -1 when not recorded

    def define(self, code):
        """The region of `code`: "function (file.py:12)", or -1 for code that is not the
        program's own."""
        path = code.co_filename
        region = -1
        if not path.startswith("<"):
            real = os.path.realpath(path)
            if not real.startswith(self.skipped):
                name = "%s (%s:%d)" % (getattr(code, "co_qualname", code.co_name),
                                       os.path.basename(path), code.co_firstlineno)
                region = self.region(name.encode(), real.encode(), code.co_firstlineno,
                                     _last_line(code))
        self.ids[code] = region
        return region

    def tracer(self):
        """A trace function (sys.settrace): called for Python frames only (C builtins cost
        nothing), it returns a local tracer, which gets the frame's return, only for the
        program's own functions, and turns off their line events."""
        ids = self.ids
        define = self.define
        enter = self.enter
        leave = self.leave

        def call(frame, event, arg):
            if event != "call":
                return None
            code = frame.f_code
            region = ids.get(code)
            if region is None:
                region = define(code)
            if region < 0 or not enter(region):
                return None
            frame.f_trace_lines = False

            def local(frame, event, arg):
                if event == "return":
                    leave(region)
                return local

            return local

        return call

def start(library=None, pure_python=False):
    """Records the calling (main) thread's Python functions from now on: with the library's
    profile function in C, or (not found, or `pure_python`) a trace function in Python.
    `library` is the libwaitscope.so to load when none is preloaded. Raises RuntimeError when
    none can be found."""
    global _recording
    if _recording is None:
        _recording = _Recording(_find_library(library))
    profile = getattr(_recording.python, "waitscope_python_profile", None)
    if profile is not None and not pure_python:
        profile.argtypes = [ctypes.py_object]
        profile.restype = ctypes.c_int
        if profile(_recording.define) == 1:
            return
    sys.settrace(_recording.tracer())


def stop():
    """Stops recording (functions still open are closed by MPI_Finalize's measurement)."""
    if _recording is not None:
        unprofile = getattr(_recording.python, "waitscope_python_unprofile", None)
        if unprofile is not None:
            unprofile()
    sys.settrace(None)
