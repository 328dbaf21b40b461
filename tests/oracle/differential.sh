#!/bin/sh
# Differential testing at volume: COUNT random MPI programs (tests/oracle/random_mpi.c, one seed
# each, 2-4 ranks) measured by libwaitscope.so, each trace analyzed by Scalasca's SCOUT and by
# waitscope-replay (tests/oracle/compare.py); tallies the differences by class (metric@region)
# and prints which MPI features the programs used (feature -> traces that used it).
# On demand only. Usage: differential.sh COUNT [FIRST_SEED]
#                       differential.sh --summary   (the figures of WORK so far, say of a run
#                                                    still under way or stopped)
# Environment: BUILD (default build/dev), ORACLE_PREFIX (default /work/oracle/prefix),
# WORK (default /tmp/waitscope_differential: traces with differences are kept there),
# STEPS (steps per program, default 24), MODE ("agreeable": only the features where no
# difference is known, see random_mpi.c), REPLAY (the waitscope-replay to check, default the
# build's), BASE_REPLAY (a second waitscope-replay, say before a
# fix, compared with the same SCOUT reports and tallied apart), DERIVED (non-empty: also compare
# Scalasca's derived metrics, remapped with Cube's cube_remap2; compare.py --derived),
# NO_SQUARE (non-empty: SCOUT's own metrics only, without Scalasca's square; 2 s less a trace),
# JOBS (traces at once, default 1), MPI_REPLAY_EVERY (the replay runs under mpirun for every
# seed divisible by it and in one process, --serial, for the others; default 10, 1: always
# under mpirun).
set -u
[ $# -ge 1 ] || { echo "usage: differential.sh COUNT [FIRST_SEED] | --summary" >&2; exit 2; }
summary_only=""
[ "$1" = "--summary" ] && summary_only=1 && set -- 0
count=$1
first=${2:-1}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(realpath "${BUILD:-$root/build/dev}")
work=${WORK:-/tmp/waitscope_differential}
steps=${STEPS:-24}
jobs=${JOBS:-1}
mpi_every=${MPI_REPLAY_EVERY:-10}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# (Not OMPI_MCA_mpi_yield_when_idle: under nice and load, SCOUT's report writing, two
# collectives per metric and call path, took 30 times longer with it.)
mkdir -p "$work"
program="$work/random_mpi"
[ -n "$summary_only" ] || mpicc -O2 -o "$program" "$here/random_mpi.c" || exit 2
tally="$work/tally.tsv"
base_tally="$work/tally_base.tsv"
summary="$work/runs.tsv"
coverage="$work/coverage.tsv"
also=""
[ -n "${REPLAY:-}" ] && also="--replay $REPLAY"
[ -n "${DERIVED:-}" ] && also="$also --derived"
[ -n "${NO_SQUARE:-}" ] && also="$also --no-square"
library="$build/lib/libwaitscope.so"
[ -f "$library" ] || { echo "differential.sh: $library: not built" >&2; exit 2; }
last=$((first + count - 1))
started=$(date +%s)

# One worker: seeds first+J, first+J+JOBS, ... with its own files in $work/worker_J.
worker() {
    j=$1
    dir="$work/worker_$j"
    rm -rf "$dir"
    mkdir -p "$dir"
    : >"$dir/tally.tsv"
    : >"$dir/tally_base.tsv"
    : >"$dir/runs.tsv"
    : >"$dir/coverage.tsv"
    base=""
    [ -n "${BASE_REPLAY:-}" ] && base="--also-replay $BASE_REPLAY --also-tally $dir/tally_base.tsv"
    done_count=0
    seed=$((first + j))
    while [ "$seed" -le "$last" ]; do
        np=$((2 + seed % 3))
        experiment="$work/seed_$seed"
        rm -rf "$experiment"
        rm -f "$dir"/features.*
        if ! timeout 120 mpirun -np "$np" --oversubscribe -x LD_PRELOAD="$library" \
            -x WAITSCOPE_EXPERIMENT_DIRECTORY="$experiment" -x RANDOM_MPI_FEATURES="$dir/features" \
            "$program" "$seed" "$steps" ${MODE:-} >"$dir/run.log" 2>&1; then
            echo "$seed	$np	run-failed" >>"$dir/runs.tsv"
            echo "seed $seed: the program failed (kept $dir/run.log)" >&2
            cp "$dir/run.log" "$work/run_failed_$seed.log"
            seed=$((seed + jobs))
            continue
        fi
        serial="--serial-replay"
        [ "$mpi_every" -gt 0 ] && [ $((seed % mpi_every)) -eq 0 ] && serial=""
        timeout 300 python3 "$here/compare.py" -np "$np" --build "$build" --quiet $serial \
            --tally "$dir/tally.tsv" $also $base "$experiment" >"$dir/compare.log" 2>&1
        status=$?
        case $status in
        0) echo "$seed	$np	agree" >>"$dir/runs.tsv"; rm -rf "$experiment" ;;
        1) echo "$seed	$np	differ" >>"$dir/runs.tsv" ;;
        *) echo "$seed	$np	error" >>"$dir/runs.tsv"; cat "$dir/compare.log" >&2 ;;
        esac
        if [ "$status" -le 1 ]; then # the features of a compared trace: its ranks' union
            cat "$dir"/features.* 2>/dev/null | sort -u | sed "s/^/$seed	/" >>"$dir/coverage.tsv"
        fi
        done_count=$((done_count + 1))
        if [ $((done_count % 25)) -eq 0 ]; then
            echo "worker $j: $done_count traces, seed $seed, $(($(date +%s) - started)) s" >&2
        fi
        seed=$((seed + jobs))
    done
}

if [ -z "$summary_only" ]; then
    rm -f "$work/started"
    j=0
    while [ "$j" -lt "$jobs" ]; do
        worker "$j" &
        j=$((j + 1))
    done
    echo "$started $jobs" >"$work/started"
    wait
fi
[ -f "$work/started" ] && read -r started jobs <"$work/started"
sort -n "$work"/worker_*/runs.tsv >"$summary"
cat "$work"/worker_*/tally.tsv >"$tally"
cat "$work"/worker_*/tally_base.tsv >"$base_tally"
cat "$work"/worker_*/coverage.tsv >"$coverage"
elapsed=$(($(date +%s) - started))

# The classes of a tally: traces with it, differing values.
classes() {
    cut -f1,2 "$1" | sort -u | cut -f1 | sort | uniq -c | sort -rn >"$work/classes_traces"
    cut -f1 "$1" | sort | uniq -c >"$work/classes_rows"
    awk 'NR==FNR { rows[$2] = $1; next } { printf "  %-48s %5d traces %6d values\n", $2, $1, rows[$2] }' \
        "$work/classes_rows" "$work/classes_traces"
    echo "  traces with a difference: $(cut -f2 "$1" | sort -u | wc -l)"
}
traces=$(wc -l <"$summary")
echo "traces: $traces in $elapsed s ($(awk -v t="$traces" -v e="$elapsed" 'BEGIN { printf "%.1f", t ? e / t : 0 }') s a trace, $jobs at once)"
cut -f3 "$summary" | sort | uniq -c
echo "features (traces that used each, of $(cut -f1 "$coverage" | sort -u | wc -l) compared):"
"$program" --features >"$work/features_all"
cut -f2 "$coverage" | sort | uniq -c >"$work/features_used"
awk 'NR==FNR { n = $1; sub(/^ *[0-9]+ /, ""); used[$0] = n; next }
     { printf "  %-58s %5d\n", $0, used[$0] + 0 }' "$work/features_used" "$work/features_all"
echo "differences by class (metric@region):"
classes "$tally"
echo "differences by rule (docs/fidelity.md):"
python3 "$here/compare.py" --summarize "$tally"
if [ -n "${BASE_REPLAY:-}" ]; then
    echo "with $BASE_REPLAY:"
    classes "$base_tally"
    python3 "$here/compare.py" --summarize "$base_tally"
fi
