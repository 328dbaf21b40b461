#!/bin/sh
# A run whose experiment directory fills up (a 300 KB tmpfs): the program's output and exit
# code are those of an unmeasured run, every rank's status says "no space left on device" with
# the file, a warning says so, and no broken traces.otf2 is left for tools to read.
# With room again, `waitscope recover` makes a trace of the records that were written.
# Usage: disk_full.sh MPIRUN LIBWAITSCOPE BARRIER_LOOP WORKDIR RECOVER. Exit 77 (skip) without
# mount.
set -u
mpirun=$1 library=$2 program=$3 work=$4 recover=$5
rm -rf "$work" && mkdir -p "$work/mnt" || exit 1
if ! mount -t tmpfs -o size=300k tmpfs "$work/mnt" 2>/dev/null; then
    echo "SKIP: cannot mount a tmpfs here (needs root); the full-disk test did not run"
    exit 77
fi
trap 'umount "$work/mnt"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
run="$mpirun -np 3 --oversubscribe"
$run "$program" 3000 >"$work/plain.out" 2>&1
plain=$?
$run -x LD_PRELOAD="$library" -x WAITSCOPE_EXPERIMENT_DIRECTORY="$work/mnt/exp" \
    -x WAITSCOPE_TOTAL_MEMORY=64k "$program" 3000 >"$work/measured.out" 2>"$work/measured.err"
measured=$?
cat "$work/measured.err"
[ "$plain" = "$measured" ] || fail "exit code $measured, unmeasured $plain"
cmp -s "$work/plain.out" "$work/measured.out" || fail "the program's output changed"
for rank in 0 1 2; do
    status=$(head -1 "$work/mnt/exp/ranks/$rank.status")
    echo "rank $rank: $status"
    case "$status" in
    "incomplete: no space left on device writing "*"$work/mnt/exp"*) ;;
    *) fail "rank $rank status: $status" ;;
    esac
done
grep -q "waitscope: warning: rank 0: no space left on device writing '$work/mnt/exp/" \
    "$work/measured.err" || fail "no warning names the full disk"
[ ! -e "$work/mnt/exp/traces.otf2" ] || fail "an incomplete traces.otf2 was left"
# With room again, the records that were written become a trace.
cp -r "$work/mnt/exp" "$work/copy" || exit 1
"$recover" "$work/copy" >"$work/recover.out" 2>&1 || fail "waitscope recover failed"
cat "$work/recover.out"
# The records files hold whole records only: what a full disk cut off was taken back.
! grep -q "cut off" "$work/recover.out" || fail "a records file ends in a cut record"
[ -s "$work/copy/traces.otf2" ] || fail "no trace recovered"
echo "PASS"
