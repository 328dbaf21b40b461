#!/usr/bin/env bash
# Chrome trace export benchmark (run on demand, not by ctest):
#   tests/bench/export_benchmark.sh [BUILD_DIR] [WORK_DIR] [EVENTS_PER_RANK] [RANKS] [REPEATS] [BASELINE]
# Generates RANKS x EVENTS_PER_RANK events (default 4 x 2.5 million) with
# waitscope_analyzer_generate_trace (tests/support), analyzes it serially (for instances.txt),
# then exports it REPEATS times (default 3) to WORK_DIR/trace.json. Prints per run the events per second by wall
# clock and by CPU time (user + system: what the export costs when the cores are not shared),
# the JSON size and the size per event. With BASELINE (another build's waitscope-export), the
# two alternate run by run and the medians of both are printed side by side, with the load
# average before and after.
set -euo pipefail
build=${1:-build/dev}
work=${2:-/tmp/waitscope_export_bench}
events=${3:-2500000}
ranks=${4:-4}
repeats=${5:-3}
baseline=${6:-}
mkdir -p "$work"
# The trace generator is a tool of the build (tests/support); build it if it is missing.
generate="$build/tests/support/waitscope_analyzer_generate_trace"
[ -x "$generate" ] || cmake --build "$build" --target waitscope_analyzer_generate_trace >/dev/null
trace="$work/trace_${ranks}x${events}"
if [ ! -f "$trace/traces.otf2" ]; then
    rm -rf "$trace"
    "$generate" "$trace" "$ranks" "$events" 100 > /dev/null
fi
[ -f "$trace/instances.txt" ] || "$build/bin/waitscope-replay" --serial --quiet "$trace"
echo "trace: $(du -sh "$trace" | cut -f1) on disk, instances.txt $(du -h "$trace/instances.txt" | cut -f1)"
load() { cut -d' ' -f1-3 /proc/loadavg; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
declare -A walls=() cpus=()
before=$(load)
for run in $(seq "$repeats"); do
    for which in this ${baseline:+baseline}; do
        export_binary="$build/bin/waitscope-export"
        [ "$which" = baseline ] && export_binary=$baseline
        /usr/bin/time -f "%e %U %S" -o "$work/time.txt" \
            "$export_binary" --chrome-trace "$work/trace.json" "$trace" 2> "$work/export.txt"
        read -r wall user system < "$work/time.txt"
        total=$(sed -n 's/.*: \([0-9]*\) events in.*/\1/p' "$work/export.txt")
        bytes=$(stat -c %s "$work/trace.json")
        awk -v n="$total" -v w="$wall" -v u="$user" -v s="$system" -v b="$bytes" -v r="$run" -v x="$which" 'BEGIN {
            printf "run %d (%s): %d events, %.2f s wall (%.1f million events/s), %.2f s CPU (%.1f million events/s), %.0f MB JSON (%.0f bytes/event)\n",
                r, x, n, w, n / w / 1e6, u + s, n / (u + s) / 1e6, b / 1e6, b / n }'
        walls[$which]+="$(awk -v n="$total" -v w="$wall" 'BEGIN {print n / w / 1e6}') "
        cpus[$which]+="$(awk -v n="$total" -v u="$user" -v s="$system" 'BEGIN {print n / (u + s) / 1e6}') "
        rm -f "$work/trace.json"
    done
done
echo "load before $before, after $(load)"
for which in this ${baseline:+baseline}; do
    echo "$which: median $(echo "${walls[$which]}" | tr ' ' '\n' | grep . | median) million events/s wall, $(echo "${cpus[$which]}" | tr ' ' '\n' | grep . | median) million events/s CPU (of $repeats runs)"
done
