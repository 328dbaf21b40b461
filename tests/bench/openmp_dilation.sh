#!/bin/bash
# The measurement's dilation of OpenMP code: openmp_dilation.c (a parallel loop of 10^6 tiny
# iterations, schedule(static), 2000 times) built with clang's libomp (OMPT) and run plain and
# under libwaitscope.so (OpenMP recorded through OMPT), alternately, best of 7 runs each.
# Usage: tests/bench/openmp_dilation.sh BUILD_DIR [ranks [threads]]   (on demand, not in ctest)
set -eu
build=$(realpath "$1"); ranks=${2:-2}; threads=${3:-2}
here=$(dirname "$(realpath "$0")")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
clang -O2 -fopenmp $(mpicc --showme:compile) "$here/openmp_dilation.c" -o openmp_dilation \
  $(mpicc --showme:link)
export OMP_NUM_THREADS=$threads OMP_PROC_BIND=false
reps=2000
run() { rm -rf waitscope_*; "$@" ./openmp_dilation $reps | awk '{print $1}'; }
# Plain and measured runs alternate, so a change of the machine's load meets both; best of 7.
plain=""; measured=""
for k in 1 2 3 4 5 6 7; do
  p=$(run mpirun -np "$ranks" --oversubscribe -x OMP_NUM_THREADS)
  m=$(run mpirun -np "$ranks" --oversubscribe -x OMP_NUM_THREADS \
        -x LD_PRELOAD="$build/lib/libwaitscope.so")
  if [ -z "$plain" ] || awk "BEGIN{exit !($p < $plain)}"; then plain=$p; fi
  if [ -z "$measured" ] || awk "BEGIN{exit !($m < $measured)}"; then measured=$m; fi
done
awk -v p="$plain" -v m="$measured" -v r="$ranks" -v t="$threads" 'BEGIN {
  printf "openmp loop of 10^6 iterations, %d ranks x %d threads: plain %.3f ms, measured %.3f ms per loop: dilation %+.1f %%\n",
         r, t, 1e3 * p, 1e3 * m, 100 * (m - p) / p }'
