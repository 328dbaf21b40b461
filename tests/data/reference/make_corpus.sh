#!/bin/sh
# Makes the corpus of third-party MPI codes in tests/data/reference: each code is built from its
# public sources outside the project (THIRDPARTY), run with 4 ranks measured by libwaitscope.so
# (preloaded, or compiled with `waitscope instrument`), and its trace analyzed by Scalasca 2.6
# (SCOUT, then `square`: the oracle of tests/oracle). Into tests/data/reference/<code> go
# trace/ (the OTF2 files), trace.cubex and trace.stat (Scalasca's), scalasca.json (Scalasca's
# values read by Cube's own cube_dump: tests/oracle/cube_values.py) and known_differences.tsv
# (where waitscope-replay differs today, written by the corpus test; see docs/fidelity.md).
# On demand only, never in CI; ctest compares the stored files (waitscope_corpus_<code>).
#
# Usage: make_corpus.sh [CODE...]          (default: every code below)
# Environment: BUILD (Waitscope build, default build/dev), ORACLE_PREFIX (Scalasca, default
# /work/oracle/prefix, tests/oracle/build_oracle.sh), CUBE_PREFIX (Cube tools, default
# /work/oracle/cube-prefix, tests/oracle/build_cube.sh), THIRDPARTY (sources and builds, default
# /work/thirdparty), WORK (runs, default /tmp/waitscope_corpus).
# Debian packages besides the project's: gfortran (NAS), python3-mpi4py python3-numpy (mpi4py),
# hpcc. The sources are cloned from GitHub at the commits named below unless THIRDPARTY already
# holds them.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=$(realpath "${BUILD:-$root/build/dev}")
oracle=${ORACLE_PREFIX:-/work/oracle/prefix}
cube=${CUBE_PREFIX:-/work/oracle/cube-prefix}
thirdparty=${THIRDPARTY:-/work/thirdparty}
work=${WORK:-/tmp/waitscope_corpus}
library="$build/lib/libwaitscope.so"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export PATH="$cube/bin:$oracle/bin:$PATH"
mkdir -p "$thirdparty" "$work"
[ -f "$library" ] || { echo "make_corpus.sh: $library: not built" >&2; exit 2; }
command -v cube_dump >/dev/null || { echo "make_corpus.sh: no cube_dump in $cube/bin" >&2; exit 2; }

# source NAME URL COMMIT: the public repository at COMMIT in $thirdparty/NAME.
source_of() {
    if [ ! -d "$thirdparty/$1" ]; then
        git clone -q "$2" "$thirdparty/$1"
        git -C "$thirdparty/$1" checkout -q "$3"
    fi
}

# measure CODE COMMAND...: COMMAND run with 4 ranks, its experiment in $work/CODE.
# PRELOAD=no for programs built with `waitscope instrument`.
measure() {
    code=$1
    shift
    rm -rf "${work:?}/$code"
    if [ "${PRELOAD:-yes}" = yes ]; then
        set -- -x LD_PRELOAD="$library" "$@"
    fi
    mpirun -np 4 --oversubscribe -x WAITSCOPE_EXPERIMENT_DIRECTORY="$work/$code" "$@" \
        >"$work/$code.out" 2>&1 || { echo "make_corpus.sh: $code failed: $work/$code.out" >&2; exit 1; }
}

# oracle CODE: Scalasca on the experiment, and the files of tests/data/reference/CODE.
oracle() {
    code=$1
    experiment="$work/$code"
    (cd "$experiment" && mpirun -np 4 --oversubscribe "$oracle/bin/scout.mpi" traces.otf2 \
        >scout.log 2>&1) || { echo "make_corpus.sh: SCOUT failed: $experiment/scout.log" >&2; exit 1; }
    rm -f "$experiment/trace.cubex"
    # square -s writes trace.cubex, then fails for want of Score-P's scorep-score (the textual
    # score report, not needed here).
    square -s "$experiment" >"$experiment/square.log" 2>&1 || true
    [ -f "$experiment/trace.cubex" ] ||
        { echo "make_corpus.sh: square failed: $experiment/square.log" >&2; exit 1; }
    out="$here/$code"
    mkdir -p "$out"
    rm -rf "$out/trace"
    mkdir -p "$out/trace"
    cp -r "$experiment/traces.otf2" "$experiment/traces.def" "$experiment/traces" "$out/trace/"
    cp "$experiment/trace.cubex" "$experiment/trace.stat" "$out/"
    python3 "$root/tests/oracle/cube_values.py" "$out/trace.cubex" >"$out/scalasca.json"
    if [ -x "$build/tests/analyzer/waitscope_analysis_tests" ]; then
        WAITSCOPE_CORPUS_UPDATE=1 "$build/tests/analyzer/waitscope_analysis_tests" \
            "[corpus][$code]" >/dev/null || true
    fi
    echo "$code: $(du -sh "$out" | cut -f1)"
}

osu() {
    source_of osu-micro-benchmarks https://github.com/forresti/osu-micro-benchmarks.git \
        993f966d750386dd813a3d970b83c7c4938bb926
    src="$thirdparty/osu-micro-benchmarks"
    chmod +x "$src/configure" "$src/install-sh" "$src/missing" "$src/depcomp" "$src/compile"
    find "$src" -type f -exec touch -d 2016-04-15T00:00:00 {} +
    mkdir -p "$src/build"
    (cd "$src/build" && { [ -f Makefile ] || ../configure -q CC=mpicc CXX=mpicxx; } &&
        make -s -C mpi/pt2pt osu_multi_lat && make -s -C mpi/collective osu_allreduce osu_ialltoall)
    bin="$src/build/mpi"
    # Every message size from 1 byte to 4 MB (eager and rendezvous), 5 iterations and 2 warm-ups.
    measure osu_multi_lat "$bin/pt2pt/osu_multi_lat" -i 5 -x 2
    oracle osu_multi_lat
    measure osu_allreduce "$bin/collective/osu_allreduce" -i 5 -x 2 -m 65536
    oracle osu_allreduce
    measure osu_ialltoall "$bin/collective/osu_ialltoall" -i 5 -x 2 -m 16384
    oracle osu_ialltoall
}

npb() {
    # NPB 3.4 MPI, a fork that adds an optional early stop (unused: no arguments are given).
    source_of NPB3.4-MPI https://github.com/thaisacs/NPB3.4-MPI.git \
        d228c8f590e76ddc4da75a01d1c731234c4c00ec
    src="$thirdparty/NPB3.4-MPI"
    make -s -C "$src/kernel_stats"
    for kernel in CG LU MG IS; do
        make -s -C "$src" "$kernel" CLASS=S RAND=randdp FFLAGS="-O2 -fallow-argument-mismatch"
    done
    for kernel in cg lu mg is; do
        measure "npb_$kernel" "$src/bin/$kernel.S.x"
        oracle "npb_$kernel"
    done
}

hpcc() {
    # Debian's hpcc (stripped; MPI calls only), the example input with N=200, NB=40 on 2x2.
    mkdir -p "$work/hpcc_run"
    sed -e 's/^1000         Ns/200          Ns/' -e 's/^80           NBs/40           NBs/' \
        /usr/share/doc/hpcc/examples/_hpccinf.txt >"$work/hpcc_run/hpccinf.txt"
    rm -f "$work/hpcc_run/hpccoutf.txt"
    (cd "$work/hpcc_run" && measure hpcc hpcc)
    oracle hpcc
}

minivite() {
    source_of miniVite https://github.com/ECP-ExaGraph/miniVite.git \
        4cbf5beb58c64c67ef3bb5b31305bb65d713b8b8
    src="$thirdparty/miniVite"
    mpicxx -std=c++11 -g -O2 -fopenmp -DPRINT_DIST_STATS -o "$src/miniVite" "$src/main.cpp"
    # A generated random geometric graph of 20000 vertices, one OpenMP thread per rank.
    measure minivite -x OMP_NUM_THREADS=1 "$src/miniVite" -n 20000
    oracle minivite
}

comd() {
    source_of CoMD https://github.com/ECP-copa/CoMD.git 3d48396b77ca8caa3124bc2391f9139c3ffb556c
    src="$thirdparty/CoMD/src-mpi"
    # Compiler instrumentation (call paths), leaving out the small per-atom helpers
    # (comd.filter); CoMD's build records the compiler command, so it goes through a script.
    wrapper="$thirdparty/CoMD/waitscope-mpicc"
    printf '#!/bin/sh\nexec "%s" instrument --filter "%s" mpicc "$@"\n' "$build/bin/waitscope" \
        "$here/comd/comd.filter" >"$wrapper"
    chmod +x "$wrapper" "$src/generate_info_header"
    cp "$src/Makefile.vanilla" "$src/Makefile"
    make -s -C "$src" clean 2>/dev/null || true  # its clean target wants makedepend
    make -s -C "$src" CC="$wrapper" OPTFLAGS="-g -O2"
    # Lennard-Jones, 8x8x8 unit cells on a 2x2x1 rank grid, 10 steps.
    mkdir -p "$work/comd_run"
    (cd "$work/comd_run" &&
        PRELOAD=no measure comd "$thirdparty/CoMD/bin/CoMD-mpi" -i 2 -j 2 -k 1 -x 8 -y 8 -z 8 -N 10 -n 5)
    oracle comd
}

hpcg() {
    source_of hpcg https://github.com/hpcg-benchmark/hpcg.git 114602d458d1034faa52b71e4c15aba9b3a17698
    src="$thirdparty/hpcg"
    chmod +x "$src/configure"
    mkdir -p "$src/build"
    (cd "$src/build" && { [ -f Makefile ] || ../configure Linux_MPI >/dev/null; } &&
        make -s CXXFLAGS='$(HPCG_DEFS) -O2')
    # A 16^3 local grid, run time 0: one set of 50 CG iterations after the validation.
    mkdir -p "$work/hpcg_run"
    printf 'HPCG benchmark input file\nSandia National Laboratories; University of Tennessee, Knoxville\n16 16 16\n0\n' \
        >"$work/hpcg_run/hpcg.dat"
    (cd "$work/hpcg_run" && measure hpcg "$src/build/bin/xhpcg")
    oracle hpcg
}

minife() {
    source_of miniFE https://github.com/Mantevo/miniFE.git c79e0f7f7afdd6c8191936efce7a668316159cc3
    src="$thirdparty/miniFE/ref/src"
    make -s -C "$src"
    # A 24^3 brick: assembly, then CG (Isend/Irecv halo exchanges, Allreduce).
    mkdir -p "$work/minife_run"
    (cd "$work/minife_run" && measure minife "$src/miniFE.x" -nx 24 -ny 24 -nz 24)
    oracle minife
}

mpi4py_mandelbrot() {
    # mpi4py's demo/mandelbrot/mandelbrot.py, run by Debian's Python with python3-mpi4py.
    source_of mpi4py https://github.com/mpi4py/mpi4py.git 7c8dac2c58203a4d538961c6524e3940b04a42dc
    measure mpi4py_mandelbrot -x PYTHONPATH="$build/share/waitscope/python" /usr/bin/python3 \
        -m waitscope "$thirdparty/mpi4py/demo/mandelbrot/mandelbrot.py"
    oracle mpi4py_mandelbrot
}

codes=${*:-"osu npb hpcc minivite comd hpcg minife mpi4py_mandelbrot"}
for code in $codes; do
    "$code"
done
du -sh "$here"
