#!/usr/bin/env bash
# Weak scaling by simulation (run on demand, not by ctest): traced ranks from 2 up to MAX
# (doubling) at a fixed number of events per rank, each trace analyzed by M processes
# (M:N replay, default M = 2), so that one machine stands in for a large job:
#   tests/bench/weak_scaling.sh [BUILD_DIR] [WORK_DIR] [EVENTS_PER_RANK] [MAX_RANKS] [M] [MODE]
#       [-- REPLAY...]
# Defaults: build/dev, /tmp/waitscope_weak_scaling, 20000 events per rank, 256 ranks, M = 2,
# MODE "full" (the default analysis; "basic" adds --no-root-cause); every waitscope-replay
# given after "--" (default the build's) analyzes each trace in turn, e.g. an older binary
# beside the new one, so that their ratios come from one run at one load. MIN_RANKS (default
# 2) is the first rank count.
# Printed per rank count and binary: events in all, the processes' CPU time (user + system,
# summed) per event in microseconds, the wall time, the peak resident memory of process 0 and
# the largest and mean of the others, process 0's peak per traced rank it replays, and the
# load average before the run, and the CPU time per event net of MPI's start-up: less the CPU
# time of M processes that only start and end MPI (tests/bench/mpi_startup.c, built here with
# mpicc and run just before the replay), which is MPI's, not the analysis's.
# Runs under nice. With fewer cores than M the processes share
# them: the CPU time per event is the figure to compare, the wall time is not.
set -euo pipefail
build=${1:-build/dev}
work=${2:-/tmp/waitscope_weak_scaling}
events=${3:-20000}
max=${4:-256}
processes=${5:-2}
mode=${6:-full}
shift $(( $# >= 6 ? 6 : $# ))
[ "${1:-}" = "--" ] && shift
replays=("$@")
[ ${#replays[@]} -gt 0 ] || replays=("$(realpath "$build/bin/waitscope-replay")")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mkdir -p "$work"
generate="$build/tests/support/waitscope_analyzer_generate_trace"
[ -x "$generate" ] || cmake --build "$build" --target waitscope_analyzer_generate_trace >/dev/null
flags="--quiet"
# The baseline of MPI's own start-up and end (see above).
startup="$work/mpi_startup"
mpicc -O2 -o "$startup" "$(dirname "$0")/mpi_startup.c"
# Each process's CPU time from perf stat's task-clock (to the microsecond; /usr/bin/time's is
# to 10 ms, a tenth of the CPU time of a small run) and its peak resident memory from
# /usr/bin/time, into stats/<prefix><rank> as "seconds 0 KB" (the awk below adds columns 1 and 2).
measured() { # PREFIX COMMAND...: the command line for mpirun's sh -c
    local prefix=$1; shift
    echo "/usr/bin/time -f %M -o $stats/$prefix.mem.\$OMPI_COMM_WORLD_RANK perf stat -x, -e task-clock \
        -o $stats/$prefix.cpu.\$OMPI_COMM_WORLD_RANK $*"
}
collect() { # PREFIX: stats/<prefix>.{cpu,mem}.<rank> into stats/<prefix><rank>
    local f r
    for f in "$stats/$1".cpu.*; do
        r=${f##*.}
        echo "$(awk -F, '$3 == "task-clock" { print $1 / 1000 }' "$f") 0 $(tail -1 "$stats/$1.mem.$r")" \
            >"$stats/$1$r"
        rm -f "$f" "$stats/$1.mem.$r"
    done
}

printf '%-6s %-3s %-28s %11s %10s %8s %10s %13s %14s %11s %10s  %s\n' ranks M replay events \
    cpu_us/ev wall_s p0_peak_MB others_max_MB others_mean_MB p0_MB/rank net_us/ev load
for ((n = ${MIN_RANKS:-2}; n <= max; n *= 2)); do
    trace="$work/trace_${n}x${events}"
    # The generator prints "rank R: E events" per rank: their sum is the events in all.
    if [ ! -f "$trace/traces.otf2" ] || [ ! -f "$trace.events" ]; then
        nice "$generate" "$trace" "$n" "$events" 8 >"$trace.events"
    fi
    total=$(awk '{ s += $3 } END { print s }' "$trace.events")
    m=$(( processes < n ? processes : n ))
    for replay in "${replays[@]}"; do
    stats="$work/stats"; rm -rf "$stats"; mkdir -p "$stats"
    nice mpirun -np "$m" sh -c "$(measured startup "$startup")" >/dev/null
    collect startup
    base=$(cat "$stats"/startup* | awk '{ s += $1 + $2 } END { print s }')
    rm -f "$stats"/startup*
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    start=$(date +%s.%N)
    # Each process's CPU seconds and peak resident memory (KB) into stats/run<rank>.
    # A run that fails is repeated once (on a shared machine, others' tests may kill a process).
    for attempt in 1 2; do
        if nice mpirun -np "$m" sh -c "$(measured run "$replay $flags --output-dir $work/out $trace")" \
            >/dev/null 2>"$work/stderr"; then
            collect run
            break
        fi
        [ "$attempt" = 2 ] && { cat "$work/stderr" >&2; exit 1; }
        echo "(run failed, repeated)" >&2; rm -rf "$stats"; mkdir -p "$stats"
        start=$(date +%s.%N)
    done
    wall=$(echo "$(date +%s.%N) - $start" | bc)
    # Process 0 replays the first block of floor(N / M) traced ranks.
    awk -v n="$n" -v m="$m" -v wall="$wall" -v load="$load" -v events="$total" \
        -v name="$replay" -v base="$base" '
        FNR == 1 { cpu += $1 + $2; if (FILENAME ~ /\/run0$/) p0 = $3; else {
            k += 1; s += $3; if ($3 > mx) mx = $3 } }
        END { printf "%-6s %-3s %-28s %11d %10.3f %8.2f %10.1f %13.1f %14.1f %11.2f %10.3f  %s\n",
              n, m, substr(name, length(name) - 27), events, cpu / events * 1e6, wall, p0 / 1024,
              mx / 1024, k ? s / k / 1024 : 0, p0 / 1024 / int(n / m),
              (cpu - base) / events * 1e6, load }' \
        "$stats"/*
    done
done
