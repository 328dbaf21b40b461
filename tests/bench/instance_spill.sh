#!/usr/bin/env bash
# Wait-state instances in bounded memory (issues 22 and 23; run on demand, not by ctest):
#   tests/bench/instance_spill.sh [BUILD_DIR] [WORK_DIR] [EVENTS_PER_RANK] [RANKS] [REPEATS] [RUNS]
# Generates RANKS x EVENTS_PER_RANK events (default 4 x 2 million) with the benchmark trace
# generator, then analyzes it REPEATS times (default 3) per run of RUNS (default "serial 4
# serial:windows 4:windows": --serial or mpirun -np N, ":windows" adds --window-events 65536),
# always --no-root-cause, with the instances held in memory (--instance-buffer 0: the analysis
# before the spill) and spilled (the default), the two interleaved, each process under
# /usr/bin/time -v. Then exports the trace to JSON REPEATS times with the instances of
# instances.txt (read whole) and of instances.bin (a block at a time). Prints per run the
# medians of the peak resident memory of the largest process and of the CPU seconds of all
# processes, and for the export its events per CPU second; checks that both analyses wrote the
# same instances.txt and instances.bin.
set -euo pipefail
build=${1:-build/dev}
work=${2:-/tmp/waitscope_instance_spill_bench}
events=${3:-2000000}
ranks=${4:-4}
repeats=${5:-3}
runs=${6:-serial 4 serial:windows 4:windows}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mkdir -p "$work"
generate="$build/tests/support/waitscope_analyzer_generate_trace"
[ -x "$generate" ] || cmake --build "$build" --target waitscope_analyzer_generate_trace >/dev/null
replay=$(realpath "$build/bin/waitscope-replay")
export_tool=$(realpath "$build/bin/waitscope-export")
trace="$work/trace_${ranks}x${events}"
if [ ! -f "$trace/traces.otf2" ]; then
    "$generate" "$trace" "$ranks" "$events" 4 >/dev/null
fi

median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
# The largest peak (MB) and the summed CPU seconds of the time files $1/time.*.
peak_of() { grep -h 'Maximum resident' "$1"/time.* | awk '{if ($6 > m) m = $6} END {printf "%.1f\n", m / 1024}'; }
cpu_of() { grep -h 'User time\|System time' "$1"/time.* | awk '{s += $4} END {printf "%.2f\n", s}'; }

echo "load before: $(uptime)"
for run in $runs; do
    processes=${run%%:*}
    options="--no-root-cause --no-timeline --quiet"
    [ "$run" != "${run%:windows}" ] && options="$options --window-events 65536"
    for mode in memory spilled; do
        : >"$work/$run.$mode.peaks"
        : >"$work/$run.$mode.cpu"
    done
    for ((k = 0; k < repeats; ++k)); do
        for mode in memory spilled; do
            out="$work/out_${run//:/_}_$mode"
            rm -rf "$out" && mkdir -p "$out"
            buffer=""
            [ "$mode" = memory ] && buffer="--instance-buffer 0"
            if [ "$processes" = serial ]; then
                /usr/bin/time -v -o "$out/time.0" "$replay" --serial $options $buffer \
                    --output-dir "$out" "$trace"
            else
                mpirun -np "$processes" sh -c "/usr/bin/time -v -o $out/time.\$OMPI_COMM_WORLD_RANK \
                    $replay $options $buffer --output-dir $out $trace"
            fi
            peak_of "$out" >>"$work/$run.$mode.peaks"
            cpu_of "$out" >>"$work/$run.$mode.cpu"
        done
        for file in instances.txt instances.bin; do
            cmp -s "$work/out_${run//:/_}_memory/$file" "$work/out_${run//:/_}_spilled/$file" ||
                { echo "FAIL: $run: $file differs between memory and spilled"; exit 1; }
        done
    done
    instances=$(grep -vc '^#' "$work/out_${run//:/_}_spilled/instances.txt")
    for mode in memory spilled; do
        echo "$run $mode: peak $(median <"$work/$run.$mode.peaks") MB (largest process), CPU" \
            "$(median <"$work/$run.$mode.cpu") s (all processes); $instances instances"
    done
done
# The export, from instances.txt (read whole) and from instances.bin (a block at a time).
instances_dir="$work/out_$(echo "${runs%% *}" | tr ':' '_')_spilled"
for source in txt bin; do
    : >"$work/export.$source.peaks"
    : >"$work/export.$source.rate"
    for ((k = 0; k < repeats; ++k)); do
        mkdir -p "$work/export" && rm -f "$work/export/time."*
        /usr/bin/time -v -o "$work/export/time.0" "$export_tool" --chrome-trace "$work/export/trace.json" \
            --instances "$instances_dir/instances.$source" --quiet "$trace"
        peak_of "$work/export" >>"$work/export.$source.peaks"
        cpu=$(cpu_of "$work/export")
        echo "$cpu" >>"$work/export.$source.rate"
        rm -f "$work/export/trace.json"
    done
    cpu=$(median <"$work/export.$source.rate")
    echo "export from instances.$source: peak $(median <"$work/export.$source.peaks") MB, CPU $cpu s:" \
        "$(awk -v e="$((events * ranks))" -v c="$cpu" 'BEGIN {printf "%.1f", e / c / 1e6}') M events per CPU second"
done
echo "load after: $(uptime)"
