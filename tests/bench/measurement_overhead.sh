#!/usr/bin/env bash
# Measurement overhead benchmark (run on demand, not by ctest):
#   tests/bench/measurement_overhead.sh BUILD_DIR [iterations] [repeats]
# Runs the barrier and bcast loops on 1 and 2 ranks, uninstrumented and with libwaitscope.so
# preloaded, alternating side by side, and prints per configuration the median cost per call,
# the added ns per event, the slowdown ratio, trace bytes per event, the finalize write time
# and the finalize write time per event of a rank (OTF2 encoding, definitions, closing).
set -euo pipefail
build=${1:?usage: measurement_overhead.sh BUILD_DIR [iterations] [repeats]}
iterations=${2:-1000000}
repeats=${3:-5}
loop="$build/tests/bench/measurement_collective_loop"
lib="$build/lib/libwaitscope.so"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
usec() { sed -n 's/.*usec_per_call=\([0-9.]*\).*/\1/p'; }

printf '%-8s %5s %12s %12s %10s %8s %11s %14s %14s\n' op ranks plain_us traced_us ns/event ratio bytes/event write_s/rank write_ns/event
for op in barrier bcast; do
  for ranks in 1 2; do
    plain=(); traced=(); ratios=(); bytes=(); writes=(); perEvent=()
    for ((r = 0; r < repeats; ++r)); do
      p=$(mpirun -np "$ranks" --oversubscribe --bind-to none "$loop" "$op" "$iterations" | usec)
      dir="$work/exp_${op}_${ranks}_$r"
      t=$(mpirun -np "$ranks" --oversubscribe --bind-to none -x LD_PRELOAD="$lib" \
            -x WAITSCOPE_EXPERIMENT_DIRECTORY="$dir" "$loop" "$op" "$iterations" | usec)
      plain+=("$p"); traced+=("$t")
      ratios+=("$(awk -v a="$t" -v b="$p" 'BEGIN{print a/b}')")
      ev=$(awk -F= '/^rank\.0\.events=/{print $2}' "$dir/waitscope.measurement")
      tb=$(awk -F= '/^rank\.0\.trace_bytes=/{print $2}' "$dir/waitscope.measurement")
      bytes+=("$(awk -v b="$tb" -v e="$ev" 'BEGIN{print b/e}')")
      writes+=("$(awk -F= '/finalize_write_seconds=/{s+=$2; n++} END{print s/n}' "$dir/waitscope.measurement")")
      perEvent+=("$(awk -v w="${writes[-1]}" -v e="$ev" 'BEGIN{print w*1e9/e}')")
      rm -rf "$dir"
    done
    mp=$(printf '%s\n' "${plain[@]}" | median); mt=$(printf '%s\n' "${traced[@]}" | median)
    mr=$(printf '%s\n' "${ratios[@]}" | median); mb=$(printf '%s\n' "${bytes[@]}" | median)
    mw=$(printf '%s\n' "${writes[@]}" | median); me=$(printf '%s\n' "${perEvent[@]}" | median)
    # A barrier or bcast call is 4 events: Enter, CollectiveBegin, CollectiveEnd, Leave.
    ns=$(awk -v a="$mt" -v b="$mp" 'BEGIN{printf "%.1f", (a-b)*1000/4}')
    printf '%-8s %5s %12.4f %12.4f %10s %8.3f %11.2f %14.3f %14.2f\n' "$op" "$ranks" "$mp" "$mt" "$ns" "$mr" "$mb" "$mw" "$me"
  done
done
