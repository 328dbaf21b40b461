#!/bin/sh
# A smoke run of the differential oracle's generator without Scalasca (CI has none): random MPI
# programs (random_mpi.c) measured by libwaitscope.so and replayed; every MPI function that a
# program says it called (RANDOM_MPI_FEATURES) must be a region of its report with visits, so
# the measurement records each call the generator makes (nonblocking collectives, Mprobe, ...)
# and the replay reads the traces. differential.sh runs thousands of them through both analyzers.
# Usage: generator_smoke.sh MPIRUN PROGRAM LIBRARY REPLAY EXPORT WORK SEED...
set -eu
mpirun=$1 program=$2 library=$3 replay=$4 export_tool=$5 work=$6
shift 6
rm -rf "$work"
mkdir -p "$work"
for seed in "$@"; do
    np=$((2 + seed % 3))
    experiment="$work/seed_$seed"
    timeout 120 "$mpirun" -np "$np" --oversubscribe -x LD_PRELOAD="$library" \
        -x WAITSCOPE_EXPERIMENT_DIRECTORY="$experiment" \
        -x RANDOM_MPI_FEATURES="$work/features_$seed" "$program" "$seed" 16
    timeout 120 "$replay" --serial --quiet "$experiment"
    "$export_tool" --hatchet "$work/report_$seed.json" "$experiment/report.cubex" >/dev/null
    cat "$work/features_$seed".* | sort -u >"$work/features_$seed"
    python3 - "$work/report_$seed.json" "$work/features_$seed" "$seed" <<'PYTHON'
import json, sys
visited = set()
def walk(node):
    if any(k.startswith("visits") and v for k, v in node["metrics"].items()):
        visited.add(node["frame"]["name"])
    for child in node.get("children", []):
        walk(child)
for root in json.load(open(sys.argv[1])):
    walk(root)
called = [f for f in open(sys.argv[2]).read().split("\n")
          if f.startswith("MPI_") and not f.startswith("MPI_ANY_")]
missing = [f for f in called if f not in visited]
if missing:
    sys.exit("seed %s: called but not in the report: %s" % (sys.argv[3], " ".join(missing)))
print("seed %s: %d MPI functions called, each in the report" % (sys.argv[3], len(called)))
PYTHON
done
