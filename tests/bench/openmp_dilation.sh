#!/bin/bash
# The measurement's dilation of OpenMP code: openmp_dilation.c (a parallel loop of 10^6 tiny
# iterations, schedule(static), 200 times) built with clang's libomp (OMPT) and run plain and
# under libwaitscope.so (OpenMP recorded through OMPT), best of 5 runs each.
# Usage: tests/bench/openmp_dilation.sh BUILD_DIR [ranks [threads]]   (on demand, not in ctest)
set -eu
build=$(realpath "$1"); ranks=${2:-2}; threads=${3:-2}
here=$(dirname "$(realpath "$0")")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
clang -O2 -fopenmp $(mpicc --showme:compile) "$here/openmp_dilation.c" -o openmp_dilation \
  $(mpicc --showme:link)
export OMP_NUM_THREADS=$threads OMP_PROC_BIND=false
best() { # best (lowest) seconds per loop of 5 runs of "$@"
  local b=""
  for k in 1 2 3 4 5; do
    rm -rf waitscope_*
    t=$("$@" | awk '{print $1}')
    if [ -z "$b" ] || awk "BEGIN{exit !($t < $b)}"; then b=$t; fi
  done
  echo "$b"
}
plain=$(best mpirun -np "$ranks" --oversubscribe -x OMP_NUM_THREADS ./openmp_dilation)
measured=$(best mpirun -np "$ranks" --oversubscribe -x OMP_NUM_THREADS \
  -x LD_PRELOAD="$build/lib/libwaitscope.so" ./openmp_dilation)
awk -v p="$plain" -v m="$measured" -v r="$ranks" -v t="$threads" 'BEGIN {
  printf "openmp loop of 10^6 iterations, %d ranks x %d threads: plain %.3f ms, measured %.3f ms per loop: dilation %+.1f %%\n",
         r, t, 1e3 * p, 1e3 * m, 100 * (m - p) / p }'
