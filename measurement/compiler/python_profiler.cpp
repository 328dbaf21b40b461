// The profile function of Python programs in C: enters and leaves the regions of the program's
// own functions at the interpreter's call and return events, at a fraction of the cost of a
// profile function written in Python.
//
// libwaitscope.so is not linked with Python: the few functions of Python's stable C API this
// needs are looked up in the running interpreter. The region of a code object seen for the
// first time comes from the Python side (share/python/waitscope: naming and which code is the
// program's own), called back once per code object; after that a call costs one hash lookup.
#include "waitscope/measure/handle_map.h"

#include <cstdint>
#include <dlfcn.h>
#include <vector>

extern "C" int waitscope_python_enter(long region);
extern "C" void waitscope_python_leave(long region);

namespace waitscope::measure {

namespace {

using PyObject = void;
using TraceFunction = int (*)(PyObject*, PyObject*, int, PyObject*);

// The event numbers of Python's profile functions (Include/cpython/pystate.h), the same in
// every Python 3.
constexpr int kPyTraceCall = 0;
constexpr int kPyTraceReturn = 3;

/// The interpreter's functions, from its stable C API.
struct PythonApi {
    void (*setProfile)(TraceFunction, PyObject*) = nullptr;  // PyEval_SetProfile
    PyObject* (*frameCode)(PyObject*) = nullptr;             // PyFrame_GetCode (new reference)
    PyObject* (*callOneArg)(PyObject*, PyObject*) = nullptr; // PyObject_CallOneArg
    long (*asLong)(PyObject*) = nullptr;                     // PyLong_AsLong
    void (*incRef)(PyObject*) = nullptr;                     // Py_IncRef
    void (*decRef)(PyObject*) = nullptr;                     // Py_DecRef
    void (*clearError)() = nullptr;                          // PyErr_Clear
};

/// A region this profiler entered, with the frame whose return leaves it.
struct OpenCall {
    PyObject* frame;
    long region;
};

struct PythonProfiler {
    PythonApi api;
    PyObject* define = nullptr;    ///< the Python side's define(code) -> region id or -1
    HandleMap<long> regionsByCode; ///< code objects, kept alive, to region ids
    std::vector<OpenCall> open;
};

PythonProfiler* g_profiler = nullptr;

template <class F> bool lookUp(F& function, const char* name) {
    function = reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
    return function != nullptr;
}

long regionOf(PythonProfiler& p, PyObject* code) {
    if (long* known = p.regionsByCode.find(handleKey(code)))
        return *known;
    long region = -1;
    if (PyObject* result = p.api.callOneArg(p.define, code)) {
        region = p.api.asLong(result);
        p.api.decRef(result);
    }
    p.api.clearError(); // a failed definition records nothing, and raises nothing
    // The code object stays referenced: its address then never names another one.
    p.api.incRef(code);
    p.regionsByCode.insert(handleKey(code), region < 0 ? -1 : region);
    return region;
}

/// The profile function, called by the interpreter (main thread, holding the GIL) for every
/// call and return of Python and C functions; only Python calls and returns are looked at.
int onPythonEvent(PyObject*, PyObject* frame, int what, PyObject*) {
    PythonProfiler& p = *g_profiler;
    if (what == kPyTraceCall) {
        PyObject* code = p.api.frameCode(frame);
        if (!code)
            return 0;
        const long region = regionOf(p, code);
        p.api.decRef(code);
        if (region >= 0 && waitscope_python_enter(region))
            p.open.push_back({frame, region});
    } else if (what == kPyTraceReturn) {
        // Frames that began before the profiler did, or were not entered, are not left.
        if (!p.open.empty() && p.open.back().frame == frame) {
            waitscope_python_leave(p.open.back().region);
            p.open.pop_back();
        }
    }
    return 0;
}

} // namespace

} // namespace waitscope::measure

using namespace waitscope::measure;

/// Installs the C profile function on the calling thread (Python's main thread, holding the
/// GIL: call it through ctypes.PyDLL). `define` is a Python callable taking a code object and
/// returning its region id (waitscope_python_region) or -1. Returns 0 when the interpreter's C
/// API is not found (the caller then profiles in Python), 1 when installed.
extern "C" __attribute__((visibility("default"))) int waitscope_python_profile(void* define) {
    PythonApi api;
    if (!define || !lookUp(api.setProfile, "PyEval_SetProfile") ||
        !lookUp(api.frameCode, "PyFrame_GetCode") ||
        !lookUp(api.callOneArg, "PyObject_CallOneArg") || !lookUp(api.asLong, "PyLong_AsLong") ||
        !lookUp(api.incRef, "Py_IncRef") || !lookUp(api.decRef, "Py_DecRef") ||
        !lookUp(api.clearError, "PyErr_Clear"))
        return 0;
    if (!g_profiler)
        g_profiler = new PythonProfiler();
    g_profiler->api = api;
    api.incRef(define);
    if (g_profiler->define)
        api.decRef(g_profiler->define);
    g_profiler->define = define;
    g_profiler->open.reserve(256);
    api.setProfile(onPythonEvent, nullptr);
    return 1;
}

/// Removes the profile function (Python's main thread, holding the GIL).
extern "C" __attribute__((visibility("default"))) void waitscope_python_unprofile() {
    if (g_profiler)
        g_profiler->api.setProfile(nullptr, nullptr);
}
