#!/usr/bin/env bash
# The gather and merge of the results on process 0 against the rank count (run on demand, not
# by ctest):
#   tests/bench/merge_scaling.sh [BUILD_DIR] [WORK_DIR] [RANKS...] [-- REPLAY...]
# For each rank count (default 2 8 32) a generated trace of EVENTS events per rank (default
# 205,000, about 220,000 with its barriers) whose computation runs in PATHS functions (default
# 10,000: 20,000 call paths) is analyzed N:N by every waitscope-replay given after "--"
# (default the build's), e.g. an older binary beside the new one. Printed per run: process 0's
# peak resident memory, the largest of the other processes', their mean, and process 0's
# merge time (the "merging" phase; for a binary without one, the time until merged less its
# phases). Runs under nice; prints the load average before each run (the figures of a loaded
# machine are slower, not larger).
set -euo pipefail
build=${1:-build/dev}
work=${2:-/tmp/waitscope_merge_bench}
shift $(( $# >= 2 ? 2 : $# ))
counts=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do counts+=("$1"); shift; done
[ ${#counts[@]} -gt 0 ] || counts=(2 8 32)
[ "${1:-}" = "--" ] && shift
replays=("$@")
[ ${#replays[@]} -gt 0 ] || replays=("$(realpath "$build/bin/waitscope-replay")")
events=${EVENTS:-205000}
paths=${PATHS:-10000}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mkdir -p "$work"
generate="$build/tests/support/waitscope_analyzer_generate_trace"
[ -x "$generate" ] || cmake --build "$build" --target waitscope_analyzer_generate_trace >/dev/null

printf '%-6s %-28s %10s %12s %12s %9s  %s\n' ranks replay p0_peak_MB others_max_MB \
    others_mean_MB merge_s load
for n in "${counts[@]}"; do
    trace="$work/trace_${n}x${events}_paths${paths}"
    if [ ! -f "$trace/traces.otf2" ]; then
        nice "$generate" "$trace" "$n" "$events" 8 "paths=$paths" >/dev/null
    fi
    for replay in "${replays[@]}"; do
        rss="$work/rss"; rm -rf "$rss"; mkdir -p "$rss"
        load=$(cut -d' ' -f1-3 /proc/loadavg)
        # Each process's peak resident memory (KB) into rss/<rank>.
        log=$(nice mpirun -np "$n" sh -c "/usr/bin/time -f %M -o $rss/\$OMPI_COMM_WORLD_RANK \
            $replay --output-dir $work/out $trace" 2>&1) || { echo "$log" >&2; exit 1; }
        line=$(echo "$log" | grep 'phases on rank 0')
        merge=$(echo "$line" | sed -nE 's/.*merging ([0-9.]+) s.*/\1/p')
        if [ -z "$merge" ]; then
            merge=$(echo "$line" | awk '{
                until = 0; sum = 0
                for (i = 1; i <= NF; ++i) {
                    if ($i == "s" && $(i-1) ~ /^[0-9.]+$/ && $(i-2) != "merged" && $(i-2) != "writing") sum += $(i-1)
                    if ($i == "merged") until = $(i+1)
                }
                printf "%.3f", until - sum }')
        fi
        read -r p0 omax omean < <(awk 'FNR == 1 { if (FILENAME ~ /\/0$/) p0 = $1; else {
            n += 1; s += $1; if ($1 > m) m = $1 } }
            END { printf "%.1f %.1f %.1f\n", p0 / 1024, m / 1024, n ? s / n / 1024 : 0 }' "$rss"/*)
        printf '%-6s %-28s %10s %12s %12s %9s  %s\n' "$n" "$(basename "$(dirname "$(dirname \
            "$replay")")")/$(basename "$replay")" "$p0" "$omax" "$omean" "$merge" "$load"
    done
done
