#!/usr/bin/env bash
# Hybrid measurement (sampling) overhead benchmark (run on demand, not by ctest):
#   tests/bench/sampling_overhead.sh BUILD_DIR [repeats] [barrier_iterations] [all|dilation|unwind]
# 1. Dilation: wall time of example programs and of Debian's hpcc (if installed; input
#    tests/measurement/hpccinf.txt with N=$HPCC_N, default 2500), 2 ranks,
#    plain, preloaded without sampling, and preloaded with sampling at 10 Hz and 100 Hz, run
#    side by side in turn; prints the median wall times and the dilation against plain and
#    against the preloaded run without sampling (what sampling itself adds), then every run's
#    time and the load average before and after. ONLY=NAME measures one program (e.g. hpcc).
#    On a shared machine, hpcc's ranks spin while they wait and its wall time follows the other
#    load (plain runs from 6 to 60 s on 2 busy cores): OMPI_MCA_mpi_yield_when_idle=1 in the
#    environment (passed on to every configuration alike) makes waiting ranks yield and the
#    runs comparable (10-13 s).
# 2. Unwind cost per MPI call: the barrier loop on 1 rank preloaded without unwinding, with
#    unwinding and its caches (warm: the call site's stack is remembered after its first call),
#    and with WAITSCOPE_UNWIND_CACHE=false (cold: every frame resolved anew, as at a call site's
#    first call; run with iterations/200, at least 20, since each call costs about a
#    millisecond); prints the median CPU microseconds per call of the loop thread and the added
#    cost of unwinding.
set -euo pipefail
build=$(cd "${1:?usage: sampling_overhead.sh BUILD_DIR [repeats] [barrier_iterations]}" && pwd)
repeats=${2:-5}
iterations=${3:-2000}
parts=${4:-all}
here=$(cd "$(dirname "$0")" && pwd)
lib="$build/lib/libwaitscope.so"
loop="$build/tests/bench/measurement_collective_loop"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
mpi() { mpirun -np "$1" --oversubscribe --bind-to none "${@:2}"; }

# Seconds one run of: ranks, configuration, program and arguments takes (wall clock).
timed() {
  local ranks=$1 config=$2; shift 2
  local env=() dir="$work/exp_$RANDOM$RANDOM"
  case $config in
    plain) ;;
    preloaded) env=(-x LD_PRELOAD="$lib" -x WAITSCOPE_EXPERIMENT_DIRECTORY="$dir" -x WAITSCOPE_SAMPLING=false) ;;
    10Hz|100Hz) env=(-x LD_PRELOAD="$lib" -x WAITSCOPE_EXPERIMENT_DIRECTORY="$dir"
                     -x WAITSCOPE_SAMPLING=true -x WAITSCOPE_SAMPLING_FREQUENCY="${config%Hz}") ;;
  esac
  local start end
  start=$(date +%s.%N)
  (cd "$work" && mpi "$ranks" "${env[@]}" "$@" > "$work/last.log" 2>&1) || { cat "$work/last.log" >&2; exit 1; }
  end=$(date +%s.%N)
  rm -rf "$dir"
  awk -v a="$start" -v b="$end" 'BEGIN{printf "%.4f\n", b-a}'
}

programs=("example_late_sender:$build/share/examples/example_late_sender"
          "example_wait_nxn:$build/share/examples/example_wait_nxn"
          "example_rank0_serial:$build/share/examples/example_rank0_serial")
if hpcc=$(command -v hpcc); then
  # The test input with a larger HPL problem (HPCC_N, default 2500: about 6 s on 2 ranks), so
  # the run is not just MPI start-up.
  sed "6s/^200 /$(printf '%-4s' "${HPCC_N:-2500}")/" "$here/../measurement/hpccinf.txt" > "$work/hpccinf.txt"
  programs+=("hpcc:$hpcc")
fi
configs=(plain preloaded 10Hz 100Hz)
if [[ $parts != unwind ]]; then
echo "# dilation: median wall seconds of $repeats side-by-side runs, 2 ranks"
printf '%-22s %9s %9s %9s %9s %13s %13s %13s\n' program plain preload 10Hz 100Hz \
  100Hz/plain 10Hz/preload 100Hz/preload
raw=()
for entry in "${programs[@]}"; do
  name=${entry%%:*}; program=${entry#*:}
  [[ -n ${ONLY:-} && $name != "$ONLY" ]] && continue
  load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  declare -A times=()
  for ((r = 0; r < repeats; ++r)); do
    for config in "${configs[@]}"; do
      times[$config]+="$(timed 2 "$config" "$program") "
    done
  done
  declare -A med=()
  for config in "${configs[@]}"; do
    med[$config]=$(printf '%s\n' ${times[$config]} | median)
  done
  awk -v n="$name" -v p="${med[plain]}" -v q="${med[preloaded]}" -v a="${med[10Hz]}" -v b="${med[100Hz]}" \
    'BEGIN{printf "%-22s %9.3f %9.3f %9.3f %9.3f %12.1f%% %12.1f%% %12.1f%%\n", n, p, q, a, b,
           (b/p-1)*100, (a/q-1)*100, (b/q-1)*100}'
  for config in "${configs[@]}"; do
    raw+=("# $name $config: ${times[$config]}")
  done
  raw+=("# $name load average before: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg)")
  unset times med
done
printf '%s\n' "${raw[@]}"
fi
[[ $parts == dilation ]] && exit 0

echo
# The loop program times 5 runs of `iterations` calls and prints the median per call.
echo "# unwind cost per MPI call (CPU): barrier loop, 1 rank, $iterations calls, median of $repeats"
printf '%-30s %12s %14s\n' configuration us/call added_us/call
declare -A cost=()
for ((r = 0; r < repeats; ++r)); do
  for config in none cached uncached; do
    env=(-x LD_PRELOAD="$lib" -x WAITSCOPE_EXPERIMENT_DIRECTORY="$work/loop_$config")
    case $config in
      none) env+=(-x WAITSCOPE_SAMPLING=false) ;;
      # 1 Hz: the call sites are unwound, almost no samples are taken.
      cached) env+=(-x WAITSCOPE_SAMPLING=true -x WAITSCOPE_SAMPLING_FREQUENCY=1) ;;
      uncached) env+=(-x WAITSCOPE_SAMPLING=true -x WAITSCOPE_SAMPLING_FREQUENCY=1
                      -x WAITSCOPE_UNWIND_CACHE=false) ;;
    esac
    n=$iterations
    [[ $config == uncached ]] && n=$(( iterations / 200 > 20 ? iterations / 200 : 20 ))
    # CPU time of the loop thread per call: waiting for a core on a loaded machine is not cost.
    us=$(mpi 1 "${env[@]}" "$loop" barrier "$n" | sed -n 's/.*cpu_usec_per_call=\([0-9.]*\).*/\1/p')
    rm -rf "$work/loop_$config"
    cost[$config]+="$us "
  done
done
base=$(printf '%s\n' ${cost[none]} | median)
echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for config in none cached uncached; do
  m=$(printf '%s\n' ${cost[$config]} | median)
  awk -v c="$config" -v m="$m" -v b="$base" 'BEGIN{printf "%-30s %12.3f %14.3f\n", c, m, m-b}'
done
