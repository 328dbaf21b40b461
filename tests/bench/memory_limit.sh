#!/usr/bin/env bash
# Memory budget benchmark (issue 22; run on demand, not by ctest):
#   tests/bench/memory_limit.sh [BUILD_DIR] [WORK_DIR] [EVENTS_PER_RANK] [RANKS] [LIMIT] [SMALL_EVENTS] [OPTIONS]
# Generates RANKS x EVENTS_PER_RANK events (default 4 x 25 million, the issue's 10^8) with the
# benchmark trace generator and analyzes it (full analysis) with --memory-limit LIMIT (default
# 1G) on 1 process (--serial: every rank a thread) and on 2 (M:N), each under /usr/bin/time -v;
# then, side by side, the in-memory analysis (--memory-limit none) of a smaller trace of RANKS x
# SMALL_EVENTS events (default a tenth). Prints per run: whether it completed (or the budget's
# refusal), the trace's events, wall seconds, CPU seconds of all processes, events per CPU
# second (the throughput of one busy process), peak resident memory
# of the largest process against the limit, and the throughput against the in-memory run.
# OPTIONS (one word, such as --no-root-cause) goes to every run. A trace whose ranks do not fit
# the limit whole is read in windows (--no-root-cause: the windowed replay; with the root-cause
# passes: the windowed profile, the passes still holding each rank's operations whole, so that a
# trace whose operations need more than the limit is refused before any event is read, the
# message naming the rank and the sizes).
set -euo pipefail
build=${1:-build/dev}
work=${2:-/tmp/waitscope_memory_limit_bench}
events=${3:-25000000}
ranks=${4:-4}
limit=${5:-1G}
small=${6:-$((events / 10))}
extra=${7:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mkdir -p "$work"
generate="$build/tests/support/waitscope_analyzer_generate_trace"
[ -x "$generate" ] || cmake --build "$build" --target waitscope_analyzer_generate_trace >/dev/null
replay="$build/bin/waitscope-replay"

trace_of() {
    local dir="$work/trace_${ranks}x$1"
    if [ ! -f "$dir/traces.otf2" ]; then
        rm -rf "$dir"
        # "rank r: N events" per rank: the events the trace holds (a little more than asked)
        local total
        total=$("$generate" "$dir" "$ranks" "$1" 8 | awk '{n += $3} END {print n}')
        echo "$total" >"$dir/events.total"
    fi
    echo "$dir"
}

# One analysis under /usr/bin/time -v: prints "status wall_s cpu_s peak_mb" (status ok, or
# refused with the budget's message on stderr).
run() {
    local name=$1; shift
    local log="$work/$name.log"
    if /usr/bin/time -v "$@" >"$log" 2>&1; then status=ok; else status=failed; fi
    if grep -q "memory-limit allows" "$log"; then
        status=refused
        grep -m1 "memory-limit allows" "$log" | sed 's/^/  /' >&2
    fi
    local wall cpu peak
    wall=$(grep "Elapsed (wall clock)" "$log" | awk -F': ' '{n=split($2,t,":"); s=0; for(i=1;i<=n;i++) s=s*60+t[i]; print s}')
    cpu=$(awk -F': ' '/User time/{u=$2} /System time/{s=$2} END{print u+s}' "$log")
    # /usr/bin/time reports the largest process of the job (mpirun's children included).
    peak=$(awk -F': ' '/Maximum resident/{print $2/1024}' "$log")
    echo "$status $wall $cpu $peak"
}

big=$(trace_of "$events")
little=$(trace_of "$small")
out="$work/out"
mkdir -p "$out"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)${extra:+ (options: $extra)}"
printf '%-28s %-8s %11s %9s %9s %12s %10s %10s\n' run status events wall_s cpu_s Mev/cpu_s peak_MB limit_MB
limit_mb=$(awk -v l="$limit" 'BEGIN{u=toupper(substr(l,length(l))); v=l+0; m=(u=="G")?1024:(u=="M")?1:(u=="K")?1/1024:1/1048576; print v*m}')
baseline=""
for spec in "in-memory-small:1:none:$little:$small" "limit-1-process:1:$limit:$big:$events" \
            "in-memory-small-2:2:none:$little:$small" "limit-2-processes:2:$limit:$big:$events"; do
    IFS=: read -r name processes lim trace _ <<<"$spec"
    if [ "$processes" = 1 ]; then
        cmd=("$replay" --serial --quiet --memory-limit "$lim" $extra --output-dir "$out" "$trace")
    else
        cmd=(mpirun -np "$processes" "$replay" --quiet --memory-limit "$lim" $extra --output-dir "$out" "$trace")
    fi
    read -r status wall cpu peak < <(run "$name" "${cmd[@]}")
    total=$(cat "$trace/events.total")
    rate=$(awk -v e="$total" -v c="$cpu" -v p="$processes" 'BEGIN{printf "%.3f", (c>0)? e/c/1e6 : 0}')
    [ "$status" = refused ] && rate=-
    printf '%-28s %-8s %11s %9s %9s %12s %10.1f %10s\n' "$name" "$status" "$total" "$wall" "$cpu" "$rate" "$peak" \
        "$([ "$lim" = none ] && echo - || echo "$limit_mb")"
    case $name in
        in-memory-small*) baseline=$rate ;;
        limit-*) [ "$status" = ok ] && awk -v r="$rate" -v b="$baseline" \
                     'BEGIN{printf "  throughput per process against the in-memory run: %.0f %%\n", 100*r/b}' ;;
    esac
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
