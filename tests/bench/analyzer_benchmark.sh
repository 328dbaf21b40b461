#!/bin/sh
# Analyzer benchmark (run on demand, not a ctest test): generates a trace of RANKS x EVENTS
# events (default 4 x 10 million), then analyzes it end to end with mpirun and prints the
# throughput per rank and the peak memory per rank against the rank's event file size.
#
# usage: tests/bench/analyzer_benchmark.sh [BUILD_DIR] [WORK_DIR] [EVENTS_PER_RANK] [RANKS]
set -eu
build=${1:-build/dev}
work=${2:-/tmp/waitscope_analyzer_bench}
events=${3:-10000000}
ranks=${4:-4}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
if [ ! -x "$work/analyzer_generate_trace" ] || [ "$here/analyzer_generate_trace.cpp" -nt "$work/analyzer_generate_trace" ]; then
    c++ -std=c++20 -O2 "$here/analyzer_generate_trace.cpp" $(pkg-config --cflags --libs otf2) -o "$work/analyzer_generate_trace"
fi
trace="$work/trace_${ranks}x${events}"
if [ ! -f "$trace/traces.otf2" ]; then
    rm -rf "$trace"
    "$work/analyzer_generate_trace" "$trace" "$ranks" "$events" 8
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mpirun -np "$ranks" --oversubscribe "$build/analyzer/replay/waitscope-replay" "$trace"
