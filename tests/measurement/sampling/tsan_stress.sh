#!/usr/bin/env bash
# The sampling stress run under ThreadSanitizer: a TSan-built stress program with a TSan-built
# libwaitscope.so preloaded, sampled at a high rate on several ranks. Fails on any TSan report
# not suppressed (tsan.supp: only reports inside OpenMPI and OTF2, which are not instrumented),
# on a crash or hang, and when nothing was sampled. The program's helper thread calls MPI
# meanwhile (MPI_THREAD_MULTIPLE), recorded on its own location, so the measurement's state is
# touched from two threads and the signal handler; created after MPI_Init, the helper is
# sampled too (its own timer and ring, drained by the main thread). Run by `cmake --workflow --preset tsan`.
#   tsan_stress.sh MPIRUN LIBWAITSCOPE PROGRAM SUPPRESSIONS [ranks] [iterations] [hz]
set -euo pipefail
mpirun=${1:?usage: tsan_stress.sh MPIRUN LIBWAITSCOPE PROGRAM SUPPRESSIONS [ranks] [iterations] [hz]}
lib=$2 program=$3 suppressions=$4 ranks=${5:-3} iterations=${6:-20000} hz=${7:-2000}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# report_signal_unsafe: malloc and other unsafe calls inside the signal handler are reported.
tsan="suppressions=$suppressions halt_on_error=0 report_signal_unsafe=1 second_deadlock_stack=1"
tsan+=" log_path=$work/tsan history_size=4"
status=0
# A crashed run has no self-measurement: the counts below read 0 and its log is printed.
timeout 500 "$mpirun" -np "$ranks" --oversubscribe --bind-to none \
  -x TSAN_OPTIONS="$tsan" -x LD_PRELOAD="$lib" \
  -x WAITSCOPE_EXPERIMENT_DIRECTORY="$work/exp" -x WAITSCOPE_SAMPLING=true \
  -x WAITSCOPE_SAMPLING_FREQUENCY="$hz" "$program" "$iterations" helper > "$work/out.log" 2>&1 || status=$?
reports=$(cat "$work"/tsan.* 2>/dev/null | grep -c '^WARNING: ThreadSanitizer' || true)
cat "$work"/tsan.* 2>/dev/null || true
samples=$(sed -n 's/^rank\.[0-9]*\.samples=//p' "$work/exp/waitscope.measurement" 2>/dev/null |
          awk '{s += $1} END {print s + 0}' || true)
foreign=$(sed -n 's/^rank\.[0-9]*\.foreign_thread_calls=//p' "$work/exp/waitscope.measurement" 2>/dev/null |
          awk '{s += $1} END {print s + 0}' || true)
threads=$(sed -n 's/^rank\.[0-9]*\.sampled_threads=//p' "$work/exp/waitscope.measurement" 2>/dev/null |
          awk '{s += $1} END {print s + 0}' || true)
echo "tsan_stress: $ranks ranks, $iterations iterations, $hz Hz: exit $status, $samples samples," \
     "$foreign unrecorded calls from the helper thread, $threads sampled threads, $reports unsuppressed ThreadSanitizer reports"
if ((status != 0)); then cat "$work/out.log"; exit 1; fi
for ((r = 0; r < ranks; ++r)); do
  grep -q '^complete' "$work/exp/ranks/$r.status" || { echo "rank $r incomplete"; exit 1; }
done
((samples > 0)) || { echo "nothing was sampled"; exit 1; }
# The helper's MPI calls are recorded on its own location (thread 1 of rank 0), none only counted.
((foreign == 0)) || { echo "$foreign of the helper thread's MPI calls were not recorded"; exit 1; }
helper=$(otf2-print -L $((1 << 32)) "$work/exp/traces.otf2" 2>/dev/null | grep -c '^MPI_SEND ' || true)
((helper > 0)) || { echo "the helper thread's MPI calls are not on its location"; exit 1; }
((threads == ranks)) || { echo "the helper threads were not sampled"; exit 1; }
((reports == 0))
