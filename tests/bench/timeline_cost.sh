#!/usr/bin/env bash
# timeline_cost.sh: what the timeline's caches (timeline_events.bin, timeline_summary.bin, built
# from the analysis's own read of the trace) add to the analysis (the issue: at most 10 %). On a
# generated trace of RANKS x EVENTS events (tests/support generator), waitscope-replay runs with
# and without --no-timeline, alternated side by side, REPEATS times each, in each MODE:
#   serial   waitscope-replay --serial
#   mpi      mpirun -np RANKS waitscope-replay (a process per traced rank)
#   mn       mpirun -np RANKS/2 waitscope-replay (M:N, two ranks per process)
#   windowed mpirun -np RANKS waitscope-replay --no-root-cause --window-events 100000
# Printed per mode: the median CPU seconds (user + system of every process) and wall seconds
# with and without the caches, and their ratio; the load average before and after each mode.
# With BASELINE (another build's waitscope-replay), its runs alternate with this build's, so that
# both builds' ratios are measured side by side under the same load.
# Run on demand (not by ctest):
#   cmake --build build/dev --target waitscope-replay waitscope_analyzer_generate_trace
#   tests/bench/timeline_cost.sh [build-dir] [events-per-rank] [repeats] [modes] [ranks] [BASELINE]
set -euo pipefail
build=${1:-build/dev}
events=${2:-2000000}
repeats=${3:-5}
modes=${4:-serial mpi}
ranks=${5:-4}
baseline=${6:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
data=${WAITSCOPE_BENCH_DIR:-/tmp/waitscope-timeline-cost}/trace_${ranks}x$events
replay="$build/bin/waitscope-replay"
timing=$(mktemp)
trap 'rm -f "$timing"' EXIT
load() { echo "load $(cut -d' ' -f1-3 /proc/loadavg)"; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

if [ ! -f "$data/traces.otf2" ]; then
    mkdir -p "$(dirname "$data")"
    "$build/tests/support/waitscope_analyzer_generate_trace" "$data" "$ranks" "$events" 8 >/dev/null
fi
echo "trace: $ranks ranks x $events events, $(du -sm "$data/traces" | cut -f1) MiB of events; $(nproc) cores; $(load)"

# One analysis; prints "wall cpu".
run() {
    local mode=$1 caches=$2 replay=$3 flags=()
    [ "$caches" = without ] && flags+=(--no-timeline)
    case $mode in
    serial) command=("$replay" --serial) ;;
    mpi) command=(mpirun -np "$ranks" "$replay") ;;
    mn) command=(mpirun -np $((ranks / 2)) "$replay") ;;
    windowed) command=(mpirun -np "$ranks" "$replay" --no-root-cause --window-events 100000) ;;
    *) echo "unknown mode $mode" >&2; exit 2 ;;
    esac
    /usr/bin/time -f "%e %U %S" -o "$timing" "${command[@]}" --quiet "${flags[@]}" "$data" >/dev/null
    read -r wall user system < "$timing"
    echo "$wall $(awk -v u="$user" -v s="$system" 'BEGIN {printf "%.3f", u + s}')"
}

printf '%-9s %-9s %-8s %9s %9s  %s\n' mode build caches cpu_s wall_s "load before / after"
for mode in $modes; do
    run "$mode" with "$replay" >/dev/null # warm the page cache
    declare -A cpu=() wall=()
    before=$(load)
    for ((k = 0; k < repeats; ++k)); do
        for build_name in this ${baseline:+baseline}; do
            binary=$replay
            [ "$build_name" = baseline ] && binary=$baseline
            for caches in without with; do
                read -r w c < <(run "$mode" "$caches" "$binary")
                cpu[$build_name$caches]+="$c "
                wall[$build_name$caches]+="$w "
            done
        done
    done
    after=$(load)
    for build_name in this ${baseline:+baseline}; do
        for caches in without with; do
            c=$(echo "${cpu[$build_name$caches]}" | tr ' ' '\n' | grep . | median)
            w=$(echo "${wall[$build_name$caches]}" | tr ' ' '\n' | grep . | median)
            printf '%-9s %-9s %-8s %9.3f %9.3f  %s / %s\n' "$mode" "$build_name" "$caches" "$c" "$w" "$before" "$after"
            eval "cpu_$caches=$c wall_$caches=$w"
        done
        echo "$mode ($build_name): with/without the caches: CPU $(awk -v a="$cpu_with" -v b="$cpu_without" 'BEGIN {printf "%+.1f %%", (a / b - 1) * 100}'), wall $(awk -v a="$wall_with" -v b="$wall_without" 'BEGIN {printf "%+.1f %%", (a / b - 1) * 100}') (medians of $repeats; all CPU: $(echo "${cpu[${build_name}without]}" | xargs) / $(echo "${cpu[${build_name}with]}" | xargs))"
    done
    unset cpu wall
done
