#!/bin/sh
# Differential testing at volume: COUNT random MPI programs (tests/oracle/random_mpi.c, one seed
# each, 2-4 ranks) measured by libwaitscope.so, each trace analyzed by Scalasca's SCOUT and by
# waitscope-replay (tests/oracle/compare.py); tallies the differences by class (metric@region).
# On demand only. Usage: differential.sh COUNT [FIRST_SEED]
# Environment: BUILD (default build/dev), ORACLE_PREFIX (default /work/oracle/prefix),
# WORK (default /tmp/waitscope_differential: traces with differences are kept there),
# STEPS (steps per program, default 24), MODE ("agreeable": only the features where no
# difference is known, see random_mpi.c), REPLAY (the waitscope-replay to check, default the
# build's), BASE_REPLAY (a second waitscope-replay, say before a
# fix, compared with the same SCOUT reports and tallied apart), DERIVED (non-empty: also compare
# Scalasca's derived metrics, remapped with Cube's cube_remap2; compare.py --derived).
set -u
[ $# -ge 1 ] || { echo "usage: differential.sh COUNT [FIRST_SEED]" >&2; exit 2; }
count=$1
first=${2:-1}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(realpath "${BUILD:-$root/build/dev}")
work=${WORK:-/tmp/waitscope_differential}
steps=${STEPS:-24}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$work"
program="$work/random_mpi"
mpicc -O2 -o "$program" "$here/random_mpi.c" || exit 2
tally="$work/tally.tsv"
base_tally="$work/tally_base.tsv"
summary="$work/runs.tsv"
: >"$tally"
: >"$base_tally"
also=""
[ -n "${REPLAY:-}" ] && also="--replay $REPLAY"
[ -n "${DERIVED:-}" ] && also="$also --derived"
[ -n "${BASE_REPLAY:-}" ] && also="$also --also-replay $BASE_REPLAY --also-tally $base_tally"
: >"$summary"
library="$build/lib/libwaitscope.so"
[ -f "$library" ] || { echo "differential.sh: $library: not built" >&2; exit 2; }

seed=$first
last=$((first + count - 1))
while [ "$seed" -le "$last" ]; do
    np=$((2 + seed % 3))
    experiment="$work/seed_$seed"
    rm -rf "$experiment"
    if ! timeout 120 mpirun -np "$np" --oversubscribe -x LD_PRELOAD="$library" \
        -x WAITSCOPE_EXPERIMENT_DIRECTORY="$experiment" "$program" "$seed" "$steps" ${MODE:-} \
        >"$work/run.log" 2>&1; then
        echo "$seed	$np	run-failed" >>"$summary"
        echo "seed $seed: the program failed (kept $work/run.log)" >&2
        seed=$((seed + 1))
        continue
    fi
    timeout 300 python3 "$here/compare.py" -np "$np" --build "$build" --quiet \
        --tally "$tally" $also "$experiment" >"$work/compare.log" 2>&1
    status=$?
    case $status in
    0) echo "$seed	$np	agree" >>"$summary"; rm -rf "$experiment" ;;
    1) echo "$seed	$np	differ" >>"$summary" ;;
    *) echo "$seed	$np	error" >>"$summary"; cat "$work/compare.log" >&2 ;;
    esac
    seed=$((seed + 1))
done

# The classes of a tally: traces with it, differing values.
classes() {
    cut -f1,2 "$1" | sort -u | cut -f1 | sort | uniq -c | sort -rn >"$work/classes_traces"
    cut -f1 "$1" | sort | uniq -c >"$work/classes_rows"
    awk 'NR==FNR { rows[$2] = $1; next } { printf "  %-48s %5d traces %6d values\n", $2, $1, rows[$2] }' \
        "$work/classes_rows" "$work/classes_traces"
    echo "  traces with a difference: $(cut -f2 "$1" | sort -u | wc -l)"
}
echo "traces: $(wc -l <"$summary")"
cut -f3 "$summary" | sort | uniq -c
echo "differences by class (metric@region):"
classes "$tally"
echo "differences by rule (docs/fidelity.md):"
python3 "$here/compare.py" --summarize "$tally"
if [ -n "${BASE_REPLAY:-}" ]; then
    echo "with $BASE_REPLAY:"
    classes "$base_tally"
    python3 "$here/compare.py" --summarize "$base_tally"
fi
