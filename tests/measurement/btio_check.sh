#!/bin/sh
# On demand (not in ctest: NPB is not built by CI): NPB's BT-IO (full MPI-IO subtype) under the
# measurement, checked against the file it writes: the bytes of the trace's completed writes add
# up to the file's size, and every rank's collective writes and reads are recorded.
#
#   tests/measurement/btio_check.sh BUILD BT_BINARY [RANKS]
#
# BT_BINARY: NPB3.4-MPI's bin/bt.S.x.mpi_io_full, built outside the tree, e.g.
#   cp -r /work/thirdparty/NPB3.4-MPI /tmp/npb && cd /tmp/npb &&
#   make bt CLASS=S SUBTYPE=full FFLAGS="-O3 -fallow-argument-mismatch"
set -eu
build=$(cd "$1" && pwd)
bt=$2
ranks=${3:-4}
work=$(mktemp -d "${TMPDIR:-/tmp}/waitscope_btio.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun -np "$ranks" --oversubscribe -x LD_PRELOAD="$build/lib/libwaitscope.so" \
    -x WAITSCOPE_EXPERIMENT_DIRECTORY="$work/exp" "$bt" > bt.out
size=$(stat -c %s btio.full.out)
otf2-print exp/traces.otf2 > events.txt
mpirun -np "$ranks" --oversubscribe "$build/bin/waitscope-replay" --quiet \
    --dump-text values.txt exp > /dev/null
python3 - "$size" "$ranks" <<'PY'
import collections, re, sys
size, ranks = int(sys.argv[1]), int(sys.argv[2])
mode, done = {}, collections.Counter()
writes = collections.Counter()
for line in open("events.txt"):
    f = line.split()
    if not f or not f[0].startswith("IO_OPERATION"):
        continue
    rank = int(f[1])
    if f[0] == "IO_OPERATION_BEGIN":
        m = re.search(r"Mode: (\w+).*Matching Id: (\d+)", line)
        mode[(rank, m.group(2))] = m.group(1)
        writes[rank] += m.group(1) == "WRITE"
    elif f[0] == "IO_OPERATION_COMPLETE":
        m = re.search(r"Bytes Result: (\d+), Matching Id: (\d+)", line)
        done[mode[(rank, m.group(2))]] += int(m.group(1))
analyzed = collections.Counter()
for line in open("values.txt"):
    metric, path, rank, value = line.rstrip("\n").split("\t")
    if metric in ("io_bytes_written", "io_bytes_read"):
        analyzed[metric] += float(value)
print("file %d bytes; trace: written %d, read %d; report: io_bytes_written %d, io_bytes_read %d;"
      " writes per rank %s" % (size, done["WRITE"], done["READ"], analyzed["io_bytes_written"],
                               analyzed["io_bytes_read"], dict(writes)))
ok = done["WRITE"] == size and analyzed["io_bytes_written"] == size and \
    len(set(writes.values())) == 1 and len(writes) == ranks
print("ok" if ok else "FAILED")
sys.exit(0 if ok else 1)
PY
