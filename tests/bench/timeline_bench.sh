#!/usr/bin/env bash
# timeline_bench.sh: the timeline of waitscope-gui on a generated trace of 4 ranks (tests/support
# generator, EVENTS per rank; the issue's target is 25 million): analysis time, the time to show
# the whole run after opening (the first open passes over the trace once to build the event cache
# and the overview; the next ones read both), 100 scripted zoom and pan steps rendered offscreen
# (each timed from the step to its final picture: when its events are read by the worker, the
# overview drawn meanwhile, the wait and the picture of the events; back to back at the first
# and second open, 30 ms apart at the third, as between wheel turns), the GUI's peak memory
# against the trace's size on disk, and the export rates into JSON and Perfetto protobuf with
# the size of each file; before those, the analysis with and without the timeline caches it
# writes beside the report (waitscope-replay --no-timeline). PARTS (default all three) picks
# some of "analysis gui export". The load average is printed beside each figure (the machine is
# shared). Run on demand:
#   cmake --build build/dev --target waitscope-gui waitscope-replay waitscope-export \
#       waitscope_analyzer_generate_trace
#   tests/bench/timeline_bench.sh [build-dir] [events-per-rank] [PARTS]
set -euo pipefail
build=${1:-build/dev}
events=${2:-2000000}
parts=${3:-analysis gui export}
part() { [[ " $parts " == *" $1 "* ]]; }
data=${WAITSCOPE_BENCH_DIR:-/tmp/waitscope-timeline-bench}/trace_4x$events
gui="$build/bin/waitscope-gui"
load() { echo "load $(cut -d' ' -f1-3 /proc/loadavg)"; }
echo "$(load), $(nproc) cores"
if [ ! -f "$data/traces.otf2" ]; then
    mkdir -p "$(dirname "$data")"
    start=$(date +%s%3N)
    "$build/tests/support/waitscope_analyzer_generate_trace" "$data" 4 "$events" 8 >/dev/null
    echo "trace generated: $(( $(date +%s%3N) - start )) ms ($(load))"
fi
if [ ! -f "$data/critical_path.txt" ]; then
    start=$(date +%s%3N)
    "$build/bin/waitscope-replay" --serial --quiet "$data"
    echo "analysis (waitscope-replay --serial, writes instances.txt, instances.bin and critical_path.txt): $(( $(date +%s%3N) - start )) ms ($(load))"
fi
# The analyzer writes the timeline's caches beside the report (built from its own read of the
# trace): the analysis with and without them, alternated, wall and CPU (the issue: at most
# +10 %; tests/bench/timeline_cost.sh measures it in more modes, with medians).
for run in $(part analysis && echo 1 2); do
    for caches in without with; do
        before=$(load)
        /usr/bin/time -f "%e %U %S" -o /tmp/timeline_bench_time.txt "$build/bin/waitscope-replay" \
            --serial --quiet $( [ $caches = without ] && echo --no-timeline ) "$data"
        read -r wall user system < /tmp/timeline_bench_time.txt
        echo "analysis $caches the timeline caches: $wall s wall, $(awk -v u="$user" -v s="$system" 'BEGIN {printf "%.2f", u + s}') s CPU ($before before, $(load) after)"
    done
done
trace_bytes=$(du -sb "$data/traces" "$data/traces.otf2" "$data/traces.def" | awk '{s += $1} END {print s}')
echo "trace: 4 ranks x $events events, $((trace_bytes / 1048576)) MiB on disk; instances.txt $(wc -l < "$data/instances.txt") lines, instances.bin $(( $(stat -c %s "$data/instances.bin") / 1048576 )) MiB (read with each window's events by the GUI), critical_path.txt $(wc -l < "$data/critical_path.txt") lines"
part gui && rm -f "$data/timeline_summary.bin" "$data/timeline_events.bin"
for open in $(part gui && echo first second third); do
    pause=$( [ $open = third ] && echo 30 || echo 0)
    echo "== $open open ($( [ $open = first ] && echo 'event cache and overview built' || echo 'from the caches'); steps $pause ms apart) ($(load))"
    WAITSCOPE_TIMELINE_PAUSE_MS=$pause QT_QPA_PLATFORM=offscreen "$gui" --timeline --timing \
        --size 1400x600 "$data" 2>/dev/null | tee /tmp/timeline_bench_$open.txt
done
part gui && echo "event cache: $(( $(stat -c %s "$data/timeline_events.bin") / 1048576 )) MiB, overview cache: $(( $(stat -c %s "$data/timeline_summary.bin") / 1048576 )) MiB"
for open in $(part gui && echo second third); do
    shown=$(sed -n 's/^peak memory when the whole run is shown: \([0-9]*\) MiB/\1/p' /tmp/timeline_bench_$open.txt)
    peak=$(sed -n 's/^peak memory: \([0-9]*\) MiB/\1/p' /tmp/timeline_bench_$open.txt)
    echo "GUI peak memory / trace on disk ($open open): $(awk -v p="$shown" -v t="$trace_bytes" 'BEGIN {printf "%.3f", p * 1048576 / t}') with the whole run shown (overview and skeleton), $(awk -v p="$peak" -v t="$trace_bytes" 'BEGIN {printf "%.3f", p * 1048576 / t}') at the end (with the instances and 100 steps)"
done
out=${WAITSCOPE_BENCH_OUT:-$(dirname "$data")}
for format in $(part export && echo chrome-trace perfetto); do
    file="$out/export.$( [ $format = chrome-trace ] && echo json || echo pftrace)"
    for run in 1 2; do
        before=$(load)
        /usr/bin/time -f "%e %U %S" -o /tmp/timeline_bench_time.txt \
            "$build/bin/waitscope-export" "--$format" "$file" "$data" 2>/tmp/timeline_bench_export.txt
        read -r wall user system < /tmp/timeline_bench_time.txt
        total=$(sed -n 's/.*: \([0-9]*\) events in.*/\1/p' /tmp/timeline_bench_export.txt)
        awk -v f="$format" -v n="$total" -v w="$wall" -v u="$user" -v s="$system" \
            -v b="$(stat -c %s "$file")" -v l1="$before" -v l2="$(load)" 'BEGIN {
            printf "export --%s: %d events, %.2f s wall (%.2f million events/s), %.2f s CPU (%.2f million events/s), %.0f MB (%.1f bytes/event); %s before, %s after\n",
                f, n, w, n / w / 1e6, u + s, n / (u + s) / 1e6, b / 1e6, b / n, l1, l2 }'
    done
    rm -f "$file"
done
echo "$(load) after"
