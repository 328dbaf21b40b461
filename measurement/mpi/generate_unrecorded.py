#!/usr/bin/env python3
"""Generates the count-and-forward wrappers of the MPI functions Waitscope does not record.

Reads the preprocessed mpi.h of the MPI library the measurement is built against (so the
prototypes are that library's, #if blocks resolved) and mpi_functions.spec, and writes
mpi_unrecorded.cpp: for every `int MPI_*` function mpi.h declares that the spec does not wrap,
an entry point that counts the call and calls its PMPI_ twin with the same arguments, plus the
table of their names the self-measurement reports ("not recorded: MPI_Win_allocate_shared x 12").

Left out, and said so here: MPI_Pcontrol (variadic: it cannot be forwarded), and the functions
that do not return an error code (MPI_Wtime, MPI_Wtick, the handle conversions *_f2c/*_c2f),
which are local and take nanoseconds.

Fortran: Open MPI's Fortran bindings call the C library's PMPI_ functions, so a Fortran call of
a function without a Fortran wrapper would pass the C wrappers by. For every such function (the
ones above, the spec's functions without the F flag and without a hand-written Fortran entry
point in this folder, and the functions MPI-3 removed that Fortran programs still call) the Fortran entry points (mpi_x_, mpi_x, mpi_x__, MPI_X, and
mpi_f08's mpi_x_f08_) are counted under the same name and forwarded to the library's own
profiling twin (pmpi_x_, pmpi_x_f08_), found with dlsym at the first call. Every Fortran
argument is an address, plus one hidden length per string argument, so the forwarders take and
pass that many pointer-sized arguments.
"""
import re
import sys
from pathlib import Path

VARIADIC = {"MPI_Pcontrol"}
# Functions MPI-3 removed, which mpi.h no longer declares but Fortran programs still call (NPB's
# BT-IO: MPI_Type_struct, MPI_Type_extent) and Open MPI's Fortran bindings still have: their
# Fortran entry points are counted too, with their Fortran arguments (ierror included).
REMOVED_FORTRAN_ARITY = {
    "MPI_Address": 3, "MPI_Attr_delete": 3, "MPI_Attr_get": 5, "MPI_Attr_put": 4,
    "MPI_Errhandler_create": 3, "MPI_Errhandler_get": 3, "MPI_Errhandler_set": 3,
    "MPI_Keyval_create": 5, "MPI_Keyval_free": 2, "MPI_Type_extent": 3,
    "MPI_Type_hindexed": 6, "MPI_Type_hvector": 6, "MPI_Type_lb": 3, "MPI_Type_struct": 6,
    "MPI_Type_ub": 3}


def declared_functions(preprocessed):
    text = re.sub(r"__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)", " ", preprocessed)
    text = re.sub(r"\s+", " ", text)
    functions = {}
    for m in re.finditer(r"(?<![A-Za-z0-9_*])(?:extern )?int (MPI_[A-Za-z0-9_]+) ?\(([^()]*(?:\([^()]*\)[^()]*)*)\) ?;",
                         text):
        name, params = m.group(1), m.group(2).strip()
        if name in VARIADIC or "..." in params or name.endswith(("_c2f", "_f2c")):
            continue
        functions[name] = params
    return functions


def parameter_name(param, index):
    param = param.strip()
    if param in ("", "void"):
        return None
    core = re.sub(r"(\[[^\]]*\])+$", "", param).strip()
    m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)$", core)
    words = core.split()
    # A parameter written without a name ("int*") gets one.
    if not m or len(words) == 1 or core.endswith("*") or m.group(1) in ("int", "char", "void"):
        return None
    return m.group(1)


def wrapper(name, params):
    parts = [] if params in ("", "void") else [p.strip() for p in params.split(",")]
    named, args = [], []
    for i, p in enumerate(parts):
        n = parameter_name(p, i)
        if n is None:
            n = f"arg{i}"
            if p.endswith("[]"):
                p = f"{p[:-2].strip()} {n}[]"
            else:
                p = f"{p} {n}"
        named.append(p)
        args.append(n)
    signature = ", ".join(named) if named else "void"
    return (f"extern \"C\" WAITSCOPE_EXPORT int {name}({signature}) {{\n"
            f"    countUnrecorded(kUnrecorded_{name});\n"
            f"    return P{name}({', '.join(args)});\n}}")


def split_params(params):
    return [] if params.strip() in ("", "void") else [p.strip() for p in params.split(",")]


def fortran_arity(params):
    """The Fortran entry point's arguments: each parameter, ierror, one length per string."""
    parts = split_params(params)
    return len(parts) + 1 + sum(1 for p in parts if "char" in p)


def fortran_forwarded(declared, unrecorded, spec):
    """(name, arity) of every function whose Fortran calls only these forwarders can count."""
    hand_written = set()
    for source in spec.parent.glob("*.cpp"):
        hand_written |= set(re.findall(r"WAITSCOPE_EXPORT void (mpi_[a-z0-9_]+?)_\(",
                                       source.read_text()))
    out = [(n, fortran_arity(declared[n])) for n in unrecorded]
    out += [(n, arity) for n, arity in REMOVED_FORTRAN_ARITY.items() if n not in declared]
    for m in re.finditer(r"^int (MPI_[A-Za-z0-9_]+)\((.*?)\)\s*\|(.*)$", spec.read_text(), re.M):
        name, params, rest = m.group(1), m.group(2), m.group(3)
        if rest.rstrip().endswith("| F") or name.lower() in hand_written:
            continue
        out.append((name, fortran_arity(params)))
    return sorted(out)


def fortran_forwarder(name, arity):
    lower = name.lower()
    params = ", ".join(f"void* a{i}" for i in range(arity))
    types = ", ".join(["void*"] * arity)
    args = ", ".join(f"a{i}" for i in range(arity))
    lines = []
    for entry, twin in ((lower + "_", "p" + lower + "_"), (lower + "_f08_", "p" + lower + "_f08_")):
        lines += [f"namespace {{ std::atomic<void*> g_twin_{entry}{{nullptr}}; }}",
                  f"extern \"C\" WAITSCOPE_EXPORT void {entry}({params}) {{",
                  f"    countUnrecorded(kUnrecorded_{name});",
                  f"    using Twin = void (*)({types});",
                  f"    if (auto twin = reinterpret_cast<Twin>(fortranTwin(g_twin_{entry}, \"{twin}\")))",
                  f"        twin({args});", "}"]
    for alias in (lower, lower + "__", name.upper()):
        lines.append(f"extern \"C\" WAITSCOPE_EXPORT void {alias}({params}) "
                     f"__attribute__((alias(\"{lower}_\")));")
    return "\n".join(lines)


def main(argv):
    if len(argv) != 4:
        print("usage: generate_unrecorded.py PREPROCESSED_MPI_H SPEC OUTFILE", file=sys.stderr)
        return 2
    declared = declared_functions(Path(argv[1]).read_text())
    if len(declared) < 100:
        print(f"{argv[1]}: error: only {len(declared)} MPI functions found: not a preprocessed "
              "mpi.h?", file=sys.stderr)
        return 1
    wrapped = set(re.findall(r"^int (MPI_[A-Za-z0-9_]+)\(", Path(argv[2]).read_text(), re.M))
    names = sorted(n for n in declared if n not in wrapped)
    fortran = fortran_forwarded(declared, names, Path(argv[2]))
    table = sorted(set(names) | {n for n, _ in fortran})
    out = ["// Generated by generate_unrecorded.py from mpi.h and mpi_functions.spec: do not edit.",
           "// The MPI functions Waitscope does not record: each is counted and forwarded.",
           "#include \"call.h\"", "#include \"waitscope/measure/unrecorded_functions.h\"", "",
           "#include <atomic>", "#include <dlfcn.h>", "",
           "#pragma GCC diagnostic ignored \"-Wdeprecated-declarations\"", "",
           "namespace waitscope::measure::mpi {", "namespace {", "",
           "enum UnrecordedId : std::uint32_t {"]
    out += [f"    kUnrecorded_{n}," for n in table]
    out += ["    kUnrecordedCount", "};", "",
            "const char* const kUnrecordedNames[] = {"]
    out += [f"    \"{n}\"," for n in table]
    out += ["};", "", "std::uint64_t g_unrecordedCounts[kUnrecordedCount] = {};", "",
            "inline void countUnrecorded(UnrecordedId id) noexcept {",
            "    countFromAnyThread(g_unrecordedCounts[id]);", "}", "",
            "/// The MPI library's Fortran entry point `name` (a profiling twin), looked up once.",
            "void* fortranTwin(std::atomic<void*>& slot, const char* name) noexcept {",
            "    void* twin = slot.load(std::memory_order_acquire);",
            "    if (!twin) {",
            "        twin = dlsym(RTLD_DEFAULT, name);",
            "        slot.store(twin, std::memory_order_release);",
            "    }",
            "    return twin;", "}", "", "} // namespace", "",
            "} // namespace waitscope::measure::mpi", "",
            "namespace waitscope::measure {", "",
            "UnrecordedFunctions unrecordedFunctionTable() noexcept {",
            "    return {mpi::kUnrecordedNames, mpi::g_unrecordedCounts, mpi::kUnrecordedCount};",
            "}", "", "} // namespace waitscope::measure", "",
            "using namespace waitscope::measure::mpi;", ""]
    for n in names:
        out += [wrapper(n, declared[n]), ""]
    out += ["// Fortran entry points: counted, then forwarded to the library's profiling twin.", ""]
    for n, arity in fortran:
        out += [fortran_forwarder(n, arity), ""]
    text = "\n".join(out)
    path = Path(argv[3])
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
