#!/usr/bin/env bash
# Analyzer benchmark (run on demand, not by ctest):
#   tests/bench/analyzer_benchmark.sh [BUILD_DIR] [WORK_DIR] [EVENTS_PER_RANK] [RANKS] [REPEATS]
# Two traces:
#   generated  RANKS x EVENTS_PER_RANK events (default 4 x 10 million): computation,
#              point-to-point messages with Late Senders, periodic barriers and allreduces;
#   barrier    a 2-rank MPI_Barrier loop of 200,000 iterations recorded by libwaitscope.so
#              (the shape on which the issue quotes Scalasca's SCOUT: 1.15 s for wait states
#              alone, 4.5 s with root causes, 68 MB per rank).
# Each trace is analyzed end to end (read, replay, write) REPEATS times (default 3) with the
# basic analysis (--no-root-cause) and the full one, alternating side by side. Printed per
# trace and mode: median seconds, million events per second per rank, peak memory per rank
# and its ratio to the rank's event file; then full/basic. With more ranks than cores the
# ranks share cores: per-rank throughput then shrinks accordingly.
set -euo pipefail
build=${1:-build/dev}
work=${2:-/tmp/waitscope_analyzer_bench}
events=${3:-10000000}
ranks=${4:-4}
repeats=${5:-3}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mkdir -p "$work"

# The trace generator is a tool of the build (tests/support); build it if it is missing.
generate="$build/tests/support/waitscope_analyzer_generate_trace"
[ -x "$generate" ] || cmake --build "$build" --target waitscope_analyzer_generate_trace >/dev/null
generated="$work/trace_${ranks}x${events}"
if [ ! -f "$generated/traces.otf2" ]; then
    rm -rf "$generated"
    "$generate" "$generated" "$ranks" "$events" 8
fi
barrier="$work/barrier_2x200000"
if [ ! -f "$barrier/traces.otf2" ]; then
    rm -rf "$barrier"
    # The loop program repeats its loop 5 times: 5 x 40,000 = 200,000 barriers per rank.
    mpirun -np 2 --oversubscribe -x LD_PRELOAD="$build/lib/libwaitscope.so" \
        -x WAITSCOPE_EXPERIMENT_DIRECTORY="$barrier" \
        "$build/tests/bench/measurement_collective_loop" barrier 40000 >/dev/null
fi

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# One analysis; prints "seconds events_per_rank peak_mb ratio".
analyze() {
    local trace=$1 n=$2 mode=$3 out
    out=$(mpirun -np "$n" "$build/bin/waitscope-replay" $mode --output-dir "$work/out" "$trace" 2>&1 |
          grep 'events on the busiest rank') || { echo "analysis of $trace failed" >&2; exit 1; }
    # "N ranks, E events on the busiest rank in S s: R M events/s per rank; peak memory P MB
    #  per rank (Xx its largest event file of F MB)"; without the ratio for event files under
    #  1 MB (then "-")
    echo "$out" | sed -E -e 's/.* ranks, ([0-9]+) events .* in ([0-9.]+) s:.*peak memory ([0-9.]+) MB per rank \(([0-9.]+)x.*/\2 \1 \3 \4/' \
        -e 's/.* ranks, ([0-9]+) events .* in ([0-9.]+) s:.*peak memory ([0-9.]+) MB per rank$/\2 \1 \3 -/'
}

echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-24s %-6s %9s %14s %10s %8s\n' trace mode median_s Mev/s/rank peak_MB xfile
for spec in "$generated:$ranks" "$barrier:2"; do
    trace=${spec%:*}; n=${spec##*:}
    declare -A times=() peaks=() xfile=()
    eventsPerRank=0
    for ((r = 0; r < repeats; ++r)); do
        for mode in basic full; do
            flag=""; [ "$mode" = basic ] && flag="--no-root-cause"
            read -r s e p x < <(analyze "$trace" "$n" "$flag")
            times[$mode]+="$s "; peaks[$mode]="$p"; xfile[$mode]="$x"; eventsPerRank=$e
        done
    done
    for mode in basic full; do
        m=$(echo "${times[$mode]}" | tr ' ' '\n' | grep . | median)
        printf '%-24s %-6s %9.3f %14.2f %10.1f %8.2f\n' "$(basename "$trace")" "$mode" "$m" \
            "$(awk -v e="$eventsPerRank" -v s="$m" 'BEGIN{print e/s/1e6}')" "${peaks[$mode]}" "${xfile[$mode]}"
        eval "median_$mode=$m"
    done
    printf '%-24s full/basic %.2fx\n' "$(basename "$trace")" "$(awk -v f="$median_full" -v b="$median_basic" 'BEGIN{print f/b}')"
    unset times peaks xfile
done
