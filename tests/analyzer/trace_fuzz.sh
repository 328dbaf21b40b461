#!/bin/sh
# On-demand mutation fuzzing of trace loading and the serial replay under AddressSanitizer and
# UBSan (see trace_mutation_fuzz.cpp for what it damages and what counts as a finding).
# usage: tests/analyzer/trace_fuzz.sh [SECONDS] [RNG]    (from the source directory)
# Builds the asan preset's fuzzer and trace generator only, makes seeds (the reference traces,
# two generated traces, and a measured one when an example can be run), and fuzzes for SECONDS
# (default 600). Findings land in build/asan/trace_fuzz/findings; the exit status is the
# fuzzer's (0: nothing found).
set -e
seconds=${1:-600}
rng=${2:-$(date +%s)}
cmake --preset asan >/dev/null
cmake --build build/asan -j2 --target waitscope_trace_mutation_fuzz waitscope_analyzer_generate_trace
work=build/asan/trace_fuzz
rm -rf "$work/seeds"
mkdir -p "$work/seeds"
build/asan/tests/support/waitscope_analyzer_generate_trace "$work/seeds/derived" 4 400 4 derived >/dev/null
build/asan/tests/support/waitscope_analyzer_generate_trace "$work/seeds/skewed" 3 300 3 offset=300 >/dev/null
seeds="$work/seeds/derived $work/seeds/skewed"
# A trace of our own measurement (local definitions with mapping tables), if the dev build and
# mpirun are there.
if [ -x build/dev/bin/waitscope ] && command -v mpirun >/dev/null; then
  (cd "$work/seeds" && ../../../dev/bin/waitscope analyze -q mpirun -np 4 --oversubscribe \
     ../../../dev/share/examples/example_mixed >/dev/null 2>&1) || true
  [ -f "$work/seeds/waitscope_example_mixed_4/traces.otf2" ] && seeds="$seeds $work/seeds/waitscope_example_mixed_4"
fi
for reference in tests/data/reference/*/trace; do
  seeds="$seeds $reference"
done
# libotf2 mallocs what a damaged size says and handles a failure; ASan would abort instead.
export ASAN_OPTIONS="${ASAN_OPTIONS:-allocator_may_return_null=1}"
exec build/asan/tests/analyzer/waitscope_trace_mutation_fuzz --seconds "$seconds" --timeout 60 \
  --rng "$rng" --work "$work/work" --findings "$work/findings" $seeds
