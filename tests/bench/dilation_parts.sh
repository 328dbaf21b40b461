#!/usr/bin/env bash
# The measurement's fixed cost per job, apart from its cost per event (on demand, not by ctest):
#   tests/bench/dilation_parts.sh BUILD_DIR [repeats] [ranks]
# Runs the barrier loop of measurement_collective_loop with 10 iterations (so almost nothing
# but start-up and shut-down) on each rank count of `ranks` (default "1 2") plain, traced and
# traced with sampling at 100 Hz, interleaved in every repeat (default 7; BASELINE_LIB=<other
# libwaitscope.so> adds its traced0 and sampled0 runs), and prints per configuration the median
# CPU milliseconds of the whole job (perf stat's task-clock over mpirun and the ranks, else
# user + system time) and what it adds to plain: loading the library and its dependencies,
# the setup in MPI_Init, the time after MPI_Finalize's barrier (unification and the write) and
# exit. Then, from the measurement's own record of the last run (means over ranks, wall):
# the setup in MPI_Init, the time after MPI_Finalize's barrier and the write within it.
# The load average before and after each rank count is printed: on a shared machine compare
# the differences of side-by-side runs, not absolute times.
set -euo pipefail
build=$(cd "${1:?usage: dilation_parts.sh BUILD_DIR [repeats] [ranks]}" && pwd)
repeats=${2:-7}
rankCounts=${3:-1 2}
loop="$build/tests/bench/measurement_collective_loop"
lib="$build/lib/libwaitscope.so"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Two ranks that busy-wait on a loaded machine make the CPU time follow the other load.
export OMPI_MCA_mpi_yield_when_idle=${OMPI_MCA_mpi_yield_when_idle:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
configs=(plain traced sampled)
[[ -n ${BASELINE_LIB:-} ]] && configs+=(traced0 sampled0)
usePerf=0
perf stat -x, -e task-clock -o "$work/probe" true >/dev/null 2>&1 && usePerf=1

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
# The mean over ranks of a per-rank field of waitscope.measurement, in ms.
recordMs() { awk -F= -v f="$2" '$1 ~ "^rank\\.[0-9]+\\." f "$" {s+=$2; n++} END {printf "%.2f", n ? 1e3*s/n : 0}' "$1/waitscope.measurement"; }

printf '%5s %-8s %12s %12s   %s\n' ranks config cpu_ms added_ms "record (last run, ms per rank): setup in MPI_Init, after MPI_Finalize's barrier, write"
for ranks in $rankCounts; do
  load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  declare -A cpu=() parts=()
  for ((r = 0; r < repeats; ++r)); do
    for config in "${configs[@]}"; do
      dir="$work/exp_${ranks}_$config"
      rm -rf "$dir"
      env=()
      chosen=$lib
      [[ $config == *0 ]] && chosen=$BASELINE_LIB
      case $config in
        traced*) env=(-x LD_PRELOAD="$chosen" -x WAITSCOPE_EXPERIMENT_DIRECTORY="$dir" -x WAITSCOPE_SAMPLING=false) ;;
        sampled*) env=(-x LD_PRELOAD="$chosen" -x WAITSCOPE_EXPERIMENT_DIRECTORY="$dir" -x WAITSCOPE_SAMPLING=true
                       -x WAITSCOPE_SAMPLING_FREQUENCY=100) ;;
      esac
      run=(mpirun -np "$ranks" --oversubscribe --bind-to none "${env[@]}" "$loop" barrier 10)
      if ((usePerf)); then
        perf stat -x, -e task-clock -o "$work/stat" "${run[@]}" >/dev/null 2>&1
        cpu[$config]+="$(awk -F, '/task-clock/ {print $1}' "$work/stat") "
      else
        /usr/bin/time -f "%U %S" -o "$work/stat" "${run[@]}" >/dev/null 2>&1
        cpu[$config]+="$(awk '{print 1e3*($1+$2)}' "$work/stat") "
      fi
      if [[ $config != plain ]]; then
        parts[$config]="$(recordMs "$dir" init_measurement_seconds) $(recordMs "$dir" finalize_measurement_seconds) $(recordMs "$dir" finalize_write_seconds)"
      fi
    done
  done
  plain=$(printf '%s\n' ${cpu[plain]} | median)
  for config in "${configs[@]}"; do
    m=$(printf '%s\n' ${cpu[$config]} | median)
    printf '%5s %-8s %12.2f %12.2f   %s\n' "$ranks" "$config" "$m" "$(awk -v a="$m" -v b="$plain" 'BEGIN{print a-b}')" \
      "${parts[$config]:--}"
  done
  echo "# $ranks ranks: load average before $load_before, after $(cut -d' ' -f1-3 /proc/loadavg)"
  for config in "${configs[@]}"; do
    echo "#   $config cpu_ms: ${cpu[$config]}"
  done
  unset cpu parts
done
