#!/usr/bin/env bash
# gui_bench.sh: time to first values and to expand the hottest path in waitscope-gui, on a
# small Scalasca report, a Cube-sized synthetic report (9,900 call paths x 4 ranks, ~53 MB)
# and the big synthetic report (100,000 call paths x 256 locations). Run on demand:
#   cmake --build build/dev --target waitscope-gui bench_report
#   tests/bench/gui_bench.sh [build-dir] [runs]
set -euo pipefail
build=${1:-build/dev}
runs=${2:-5}
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
gui="$build/bin/waitscope-gui"
generator="$build/tests/formats/report/bench_report"
data=${WAITSCOPE_BENCH_DIR:-/tmp/waitscope-gui-bench}
mkdir -p "$data"
[ -f "$data/cube_sized.cubex" ] || "$generator" write "$data/cube_sized.cubex" 9900 4 146 1.0 >/dev/null
[ -f "$data/big.cubex" ] || "$generator" write "$data/big.cubex" 100000 256 60 0.1 >/dev/null

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
printf '%-38s %8s %14s %14s %12s %12s %10s\n' report MiB "app->values" "start->values" "cpu s" "hottest ms" "metric ms"
for report in "$source_dir/tests/data/reference/late_sender/trace.cubex" \
              "$data/cube_sized.cubex" "$data/big.cubex"; do
    inproc=() ; fromstart=() ; cpu=() ; hottest=() ; metric=()
    for ((i = 0; i < runs; i++)); do
        start=$(date +%s%3N)
        out=$( { /usr/bin/time -f 'cpu %U %S' env QT_QPA_PLATFORM=offscreen "$gui" --timing "$report" 2>&1 1>&3 | grep '^cpu' ; } 3>&1 )
        inproc+=("$(sed -n 's/^time to first values: \([0-9]*\) ms.*/\1/p' <<<"$out")")
        epoch=$(sed -n 's/^first values at epoch ms //p' <<<"$out")
        fromstart+=("$((epoch - start))")
        cpu+=("$(awk '/^cpu/ {print $2 + $3}' <<<"$out")")
        hottest+=("$(sed -n 's/^expand hottest path: \([0-9]*\) ms/\1/p' <<<"$out")")
        metric+=("$(sed -n 's/.*values shown after \([0-9]*\) ms/\1/p' <<<"$out")")
    done
    size=$(du -m "$report" | cut -f1)
    printf '%-38s %8s %11s ms %11s ms %12s %12s %10s\n' "$(basename "$(dirname "$report")")/$(basename "$report")" \
        "$size" "$(printf '%s\n' "${inproc[@]}" | median)" "$(printf '%s\n' "${fromstart[@]}" | median)" \
        "$(printf '%s\n' "${cpu[@]}" | median)" "$(printf '%s\n' "${hottest[@]}" | median)" \
        "$(printf '%s\n' "${metric[@]}" | median)"
done
echo "medians of $runs runs; app->values: from QApplication to the first values painted;"
echo "start->values: from launching the process; cpu: user+system of the whole run (incl. exit)"
