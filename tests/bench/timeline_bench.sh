#!/usr/bin/env bash
# timeline_bench.sh: the timeline of waitscope-gui on a generated trace of 4 ranks (tests/support
# generator, EVENTS per rank; the issue's target is 25 million): analysis time with and without
# the critical-path file, the time to show the whole run after opening (first open builds the
# overview, the second reads its cache), 100 scripted zoom and pan steps rendered offscreen
# (per-step times), and the GUI's peak memory against the trace's size on disk. Run on demand:
#   cmake --build build/dev --target waitscope-gui waitscope-replay waitscope_analyzer_generate_trace
#   tests/bench/timeline_bench.sh [build-dir] [events-per-rank]
set -euo pipefail
build=${1:-build/dev}
events=${2:-2000000}
data=${WAITSCOPE_BENCH_DIR:-/tmp/waitscope-timeline-bench}/trace_4x$events
gui="$build/bin/waitscope-gui"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
if [ ! -f "$data/traces.otf2" ]; then
    mkdir -p "$(dirname "$data")"
    "$build/tests/support/waitscope_analyzer_generate_trace" "$data" 4 "$events" 8 >/dev/null
fi
if [ ! -f "$data/critical_path.txt" ]; then
    start=$(date +%s%3N)
    "$build/bin/waitscope-replay" --serial --quiet "$data"
    echo "analysis (waitscope-replay --serial, writes instances.txt and critical_path.txt): $(( $(date +%s%3N) - start )) ms"
fi
trace_bytes=$(du -sb "$data/traces" "$data/traces.otf2" "$data/traces.def" | awk '{s += $1} END {print s}')
echo "trace: 4 ranks x $events events, $((trace_bytes / 1048576)) MiB on disk; instances.txt $(wc -l < "$data/instances.txt") lines, critical_path.txt $(wc -l < "$data/critical_path.txt") lines"
rm -f "$data/timeline_summary.bin"
for open in first second; do
    echo "== $open open ($( [ $open = first ] && echo 'overview built and cached' || echo 'overview from the cache'))"
    QT_QPA_PLATFORM=offscreen "$gui" --timeline --timing --size 1400x600 "$data" 2>/dev/null | tee /tmp/timeline_bench_$open.txt
done
peak=$(sed -n 's/^peak memory: \([0-9]*\) MiB/\1/p' /tmp/timeline_bench_second.txt)
echo "GUI peak memory / trace on disk: $(awk -v p="$peak" -v t="$trace_bytes" 'BEGIN {printf "%.2f", p * 1048576 / t}')"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
