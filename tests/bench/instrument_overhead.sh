#!/usr/bin/env bash
# Instrumentation overhead benchmark (run on demand, not by ctest):
#   tests/bench/instrument_overhead.sh BUILD_DIR [calls] [repeats]
# Builds instrument_tiny_functions.cpp plain, instrumented, and instrumented with a compile-time
# filter; runs each (1 rank) side by side, the instrumented one also with a run-time filter
# and with a 1 GiB buffer (no flushes), and the plain one under hybrid measurement (preloaded,
# MPI calls recorded, call paths by sampling at 100 Hz, as `waitscope analyze` runs a program
# it did not build), and prints the median ns per call of each variant (wall, and CPU of the
# loop thread: what a loaded machine does not inflate) and its dilation in CPU time
# against the plain run: hybrid measurement against full compiler instrumentation of the same
# code, the comparison of Szebenyi et al. (IPDPS 2011) for C++ codes with many small functions.
set -euo pipefail
build=$(cd "${1:?usage: instrument_overhead.sh BUILD_DIR [calls] [repeats]}" && pwd)
calls=${2:-20000000}
repeats=${3:-5}
src="$(cd "$(dirname "$0")" && pwd)/instrument_tiny_functions.cpp"
ws="$build/bin/waitscope"
lib="$build/lib/libwaitscope.so"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
# C++ regions are named with their parameters ("tiny_add(double, double)"), so at run time a
# wildcard matches them; at compile time GCC matches literal names as substrings.
printf 'SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE tiny_*\nSCOREP_REGION_NAMES_END\n' > runtime.filter
printf 'SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE tiny_add tiny_scale\nSCOREP_REGION_NAMES_END\n' > compile.filter
mpicxx -O2 -o plain "$src"
"$ws" instrument mpicxx -O2 -o instrumented "$src"
"$ws" instrument --filter compile.filter mpicxx -O2 -o compiled_out "$src"

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
# The loop thread's CPU ns per call (the wall time is printed as ns_per_call).
ns() { sed -n 's/.*cpu_per_call_ns=\([0-9.]*\).*/\1/p'; }
declare -A results
for ((r = 0; r < repeats; ++r)); do
  results[plain]+="$(mpirun -np 1 ./plain "$calls" | ns) "
  rm -rf e1; results[unfiltered]+="$(mpirun -np 1 -x WAITSCOPE_EXPERIMENT_DIRECTORY=e1 ./instrumented "$calls" | ns) "
  rm -rf e2; results[unfiltered_1G]+="$(mpirun -np 1 -x WAITSCOPE_TOTAL_MEMORY=1G -x WAITSCOPE_EXPERIMENT_DIRECTORY=e2 ./instrumented "$calls" | ns) "
  rm -rf e3; results[runtime_filter]+="$(mpirun -np 1 -x WAITSCOPE_FILTER=runtime.filter -x WAITSCOPE_EXPERIMENT_DIRECTORY=e3 ./instrumented "$calls" | ns) "
  rm -rf e4; results[compile_filter]+="$(mpirun -np 1 -x WAITSCOPE_EXPERIMENT_DIRECTORY=e4 ./compiled_out "$calls" | ns) "
  rm -rf e5; results[hybrid_100Hz]+="$(mpirun -np 1 -x LD_PRELOAD="$lib" -x WAITSCOPE_SAMPLING=true -x WAITSCOPE_SAMPLING_FREQUENCY=100 -x WAITSCOPE_EXPERIMENT_DIRECTORY=e5 ./plain "$calls" | ns) "
done
base=$(echo ${results[plain]} | tr ' ' '\n' | median)
echo "# 1 rank, $calls calls, median of $repeats; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-16s %12s %12s %10s\n' variant cpu_ns/call added_ns dilation
for v in plain unfiltered unfiltered_1G runtime_filter compile_filter hybrid_100Hz; do
  m=$(echo ${results[$v]} | tr ' ' '\n' | median)
  printf '%-16s %12.2f %12.2f %9.3fx\n' "$v" "$m" "$(awk -v a="$m" -v b="$base" 'BEGIN{print a-b}')" \
    "$(awk -v a="$m" -v b="$base" 'BEGIN{print a/b}')"
done
for v in plain unfiltered hybrid_100Hz; do
  echo "#   $v: ${results[$v]}"
done
