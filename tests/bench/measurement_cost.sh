#!/usr/bin/env bash
# Every figure of "what the measurement costs the job" (issue #21) in one run (on demand, not by
# ctest):
#   tests/bench/measurement_cost.sh BUILD_DIR [repeats]
# Runs, side by side and interleaved within each benchmark, with medians of `repeats` (default
# 7) and the load average around each:
#   1. measurement_overhead.sh: the barrier, nonblocking-ring and broadcast loops on 1 rank
#      (ITERATIONS_1, default 100000) and on 2 ranks (ITERATIONS_2, default 20000), plain,
#      traced and traced with hybrid call paths at 100 Hz;
#   2. sampling_overhead.sh's unwind part: the added CPU per MPI call of unwinding with a warm
#      and a cold cache;
#   3. instrument_overhead.sh: the C++ code of many tiny functions under full compiler
#      instrumentation and under hybrid measurement (TINY_CALLS, default 20000000);
#   4. trace_writer_bench: the finalize encoding per event without MPI;
# then prints each figure against its target, the spill writer thread's CPU per event and the
# total of thread and finalize (CPU per event: the trace's writing wherever it runs), and the
# flush variance: the ring loop's in-loop time per call over the runs (median and slowest), with
# the default buffer, which the 1-rank ring fills about once a run. Two ranks that busy-wait on a loaded machine
# make every run's wall time follow the other load: unless OMPI_MCA_mpi_yield_when_idle is set,
# it is set to 1 for the 2-rank runs (all configurations alike). CPU times (the loop thread's,
# the finalize write's) are what a loaded machine does not inflate; wall-time ratios on a
# machine with a load above its core count are reported, but cannot show a target met.
set -euo pipefail
build=$(cd "${1:?usage: measurement_cost.sh BUILD_DIR [repeats]}" && pwd)
repeats=${2:-7}
here=$(cd "$(dirname "$0")" && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "# measurement cost, $(date -u '+%F %T') UTC, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "## 1. loops on 1 rank"
"$here/measurement_overhead.sh" "$build" "${ITERATIONS_1:-100000}" "$repeats" "barrier ring bcast" 1 |
  tee "$work/one.txt"
echo "## 1. loops on 2 ranks"
OMPI_MCA_mpi_yield_when_idle=${OMPI_MCA_mpi_yield_when_idle:-1} \
  "$here/measurement_overhead.sh" "$build" "${ITERATIONS_2:-20000}" "$repeats" "barrier ring bcast" 2 |
  tee "$work/two.txt"
echo "## 2. unwinding at MPI calls"
"$here/sampling_overhead.sh" "$build" "$repeats" 20000 unwind | tee "$work/unwind.txt"
echo "## 3. tiny C++ functions: full instrumentation against hybrid measurement"
"$here/instrument_overhead.sh" "$build" "${TINY_CALLS:-20000000}" "$repeats" | tee "$work/tiny.txt"
echo "## 4. finalize encoding without MPI (CPU)"
"$build/tests/bench/trace_writer_bench" "$work/archive" 1000000 "$repeats" | tee "$work/encode.txt"

# Column of a measurement_overhead.sh row: op ranks config loop_us cpu_us loop_x cpu_x wall_s
# cpu_s wall_x cpu_x write_s write_ns/ev wcpu_ns/ev bytes/ev spill_ns/ev total_ns/ev.
row() { awk -v op="$2" -v n="$3" -v c="$4" -v k="$5" '$1==op && $2==n && $3==c {print $k}' "$1"; }
verdict() { awk -v v="$1" -v t="$2" 'BEGIN{print (v <= t ? "meets" : "misses")}'; }

echo
echo "## figures against the targets (load average now $(cut -d' ' -f1-3 /proc/loadavg); $(uptime))"
printf '%-58s %10s %8s %s\n' figure value target verdict
for op in barrier ring bcast; do
  for n in 1 2; do
    file="$work/one.txt"; [[ $n == 2 ]] && file="$work/two.txt"
    w=$(row "$file" "$op" "$n" traced 13); c=$(row "$file" "$op" "$n" traced 14)
    printf '%-58s %10s %8s %s\n' "finalize write ns/event/rank, $op $n rank(s), wall" "$w" 5 "$(verdict "$w" 5)"
    printf '%-58s %10s %8s %s\n' "finalize write ns/event/rank, $op $n rank(s), CPU" "$c" 5 "$(verdict "$c" 5)"
    # The spill writer thread's CPU per event during the run (off the program's thread), and
    # the total with the finalize write's: the issue's "in total, if written during the run".
    printf '%-58s %10s %8s %s\n' "spill writer thread ns/event/rank, $op $n rank(s), CPU" \
      "$(row "$file" "$op" "$n" traced 16)" - "-"
    t=$(row "$file" "$op" "$n" traced 17)
    printf '%-58s %10s %8s %s\n' "thread + finalize ns/event/rank, $op $n rank(s), CPU" "$t" 5 "$(verdict "$t" 5)"
    if [[ -n ${BASELINE_LIB:-} ]]; then
      printf '%-58s %10s %8s %s\n' "  baseline: finalize write ns/event/rank, wall / CPU" \
        "$(row "$file" "$op" "$n" traced0 13) / $(row "$file" "$op" "$n" traced0 14)" - "-"
      printf '%-58s %10s %8s %s\n' "  baseline: thread / thread + finalize ns/event/rank, CPU" \
        "$(row "$file" "$op" "$n" traced0 16) / $(row "$file" "$op" "$n" traced0 17)" - "-"
    fi
  done
done
# The flush variance: the ring loop with the default buffer fills it about once per run, so a
# flush lands in the timed loop of every run; the spread of the in-loop time per call over the
# runs shows what a flush costs the program (median and the slowest run).
loopRuns() { awk -v op="$2" -v n="$3" -v c="$4" '$0 ~ "^# " op " " n " ranks" {on=1; next}
    on && /^# [a-z]+ [0-9]+ ranks/ {on=0}
    on && $2==c {for (i=1; i<=NF; ++i) if ($i=="loop_us:") for (j=i+1; j<=NF && $j!="|"; ++j) print $j}' "$1"; }
for n in 1 2; do
  file="$work/one.txt"; [[ $n == 2 ]] && file="$work/two.txt"
  for c in traced traced0; do
    [[ $c == traced0 && -z ${BASELINE_LIB:-} ]] && continue
    spread=$(loopRuns "$file" ring "$n" "$c" | sort -g |
      awk '{a[NR]=$1*1000} END {if (NR) printf "%.0f / %.0f", (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2), a[NR]}')
    printf '%-58s %10s %8s %s\n' "ring $n rank(s), in-loop ns/call median / max ($c)" "$spread" - "-"
  done
done
enc=$(sed -n 's/.*encoding \([0-9.]*\) ns\/event, whole write \([0-9.]*\).*/\2/p' "$work/encode.txt")
printf '%-58s %10s %8s %s\n' "finalize write ns/event without MPI (CPU, trace_writer_bench)" "$enc" 5 "$(verdict "$enc" 5)"
# Runs of a loop and configuration (CPU us per call), from measurement_overhead.sh's lines.
runs() { awk -v op="$2" -v n="$3" -v c="$4" '$0 ~ "^# " op " " n " ranks" {on=1; next}
    on && /^# [a-z]+ [0-9]+ ranks/ {on=0} on && $2==c {for (i=4; i<=NF && $i!="|"; ++i) print $i}' "$1"; }
for n in 1 2; do
  file="$work/one.txt"; [[ $n == 2 ]] && file="$work/two.txt"
  # Added by call paths: sampled against traced, CPU of the loop thread per MPI call, from the
  # fastest runs of each: whether a buffer flush lands in a run makes two modes (see the runs).
  added=$(awk -v a="$(runs "$file" ring "$n" sampled | sort -g | head -1)" \
    -v b="$(runs "$file" ring "$n" traced | sort -g | head -1)" 'BEGIN{printf "%.1f", (a-b)*1000}')
  printf '%-58s %10s %8s %s\n' "ns per MPI call added by call paths, ring $n rank(s), CPU" "$added" 20 "$(verdict "$added" 20)"
done
for op in barrier ring bcast; do
  x=$(row "$work/two.txt" "$op" 2 sampled 10)
  printf '%-58s %10s %8s %s\n' "whole-process dilation at 100 Hz, $op 2 ranks, wall" "$x" 1.10 "$(verdict "$x" 1.10)"
  x=$(row "$work/two.txt" "$op" 2 sampled 11)
  printf '%-58s %10s %8s %s\n' "whole-process dilation at 100 Hz, $op 2 ranks, CPU" "$x" 1.10 "$(verdict "$x" 1.10)"
done
# The 1-rank barrier loop: ns added per event (4 events a call) and its spread over the runs.
spread=$(awk '/^# barrier 1 ranks/ {on=1} on && /#   traced cpu_us:/ {
    min=1e9; max=0; for (i=4; i<=NF && $i!="|"; ++i) {if ($i<min) min=$i; if ($i>max) max=$i}
    printf "%.1f-%.1f", min*1000/4, max*1000/4; exit}' "$work/one.txt")
perEvent=$(awk -v a="$(row "$work/one.txt" barrier 1 traced 5)" -v b="$(row "$work/one.txt" barrier 1 plain 5)" \
  'BEGIN{printf "%.1f", (a-b)*1000/4}')
printf '%-58s %10s %8s %s\n' "1-rank barrier: ns added per event (CPU; runs: $spread incl. plain)" "$perEvent" - "-"
warm=$(awk '$1=="cached" {print $3*1000}' "$work/unwind.txt")
cold=$(awk '$1=="uncached" {print $3*1000}' "$work/unwind.txt")
printf '%-58s %10s %8s %s\n' "unwind ns per MPI call, warm cache (CPU)" "$warm" 20 "$(verdict "$warm" 20)"
printf '%-58s %10s %8s %s\n' "unwind ns per MPI call, cold cache (CPU)" "$cold" - "-"
full=$(awk '$1=="unfiltered" {print $4}' "$work/tiny.txt")
hybrid=$(awk '$1=="hybrid_100Hz" {print $4}' "$work/tiny.txt")
printf '%-58s %10s %8s %s\n' "tiny C++ functions: dilation, full instrumentation (CPU)" "$full" - "-"
printf '%-58s %10s %8s %s\n' "tiny C++ functions: dilation, hybrid at 100 Hz (CPU)" "$hybrid" 1.05x \
  "$(verdict "${hybrid%x}" 1.05)"
