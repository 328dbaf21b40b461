#!/usr/bin/env bash
# Measurement overhead benchmark (run on demand, not by ctest):
#   tests/bench/measurement_overhead.sh BUILD_DIR [iterations] [repeats] [ops] [ranks]
# Runs the barrier, nonblocking-ring and bcast loops (ops, default "barrier ring bcast") on 1 and
# 2 ranks (default "1 2") uninstrumented ("plain"), traced ("traced") and traced with hybrid
# call paths at 100 Hz ("sampled"), the three configurations interleaved in every repeat
# (default 7), and prints per loop and configuration the medians of:
#   - in-loop wall and CPU microseconds per MPI call (rank 0; CPU time is the loop thread's own,
#     which waiting for a core on a loaded machine does not inflate), and their ratios to plain;
#   - whole-process wall seconds (mpirun start to end) and the ranks' CPU seconds (user + system
#     of mpirun's children), and their ratios to plain: what the job pays, finalize included;
#   - the finalize write time per rank and per event (OTF2 encoding and writing, wall), the same
#     write's CPU time per event (the rank thread's own: on a loaded machine the wall time waits
#     for a core and for the page cache's writeback, the CPU time is the write's cost), and
#     trace bytes per event;
#   - the spill writer thread's CPU time per event (full buffer chunks written during the run,
#     on a core of their own when one is free; 0 for libraries without it), and the total of the
#     two (thread + finalize write, CPU per event: what writing the trace costs wherever it runs).
# FIT_ITERATIONS=N (fewer than iterations) runs every traced configuration a second time with N
# iterations, right after its run with `iterations`, and splits the thread + finalize CPU per
# rank (means over ranks) into a fixed part and a part per event, fitted through the two runs of
# each repeat: fix_us (microseconds per rank: thread start, file opens and reservations, the
# archive's opening, definitions, waiting in finalize's collectives) and fit_ns/ev (nanoseconds
# per event of rank 0), medians over the repeats; "-" without FIT_ITERATIONS. A line per
# configuration below the table gives the same fit for the thread and for finalize apart.
# Then per loop and configuration the whole process's wall time in parts (medians, seconds, rank
# 0's view): MPI_Init, the five timed loops, the rest between MPI_Init and MPI_Finalize (mostly
# the first barrier, where the ranks connect), MPI_Finalize, and outside (wall minus those:
# starting the processes, loading, exit); each part's excess over plain, and the loops' ratio.
# BASELINE_LIB=/path/to/other/libwaitscope.so adds its traced and sampled runs ("traced0",
# "sampled0") to the interleaved ones: a before/after comparison in one run. CONFIGS="plain
# sampled" runs only those (with BASELINE_LIB, sampled0 too): the long runs of the issue's
# 20,000 iterations at 100 Hz without the configurations not needed. CONFIGS may also name
# "sampledall": sampled with a buffer that holds the whole run (WAITSCOPE_TOTAL_MEMORY, default
# 256M, or $WHOLE_RUN_MEMORY), so that no chunk goes to the spill writer thread during the run
# and all of the trace is written at finalize: the run without the thread's work in the loop.
# The load average before and after each loop is printed: on a shared machine compare ratios of
# side-by-side runs, not absolute times. A call of the ring loop is one of MPI_Irecv, MPI_Isend,
# MPI_Waitall.
set -euo pipefail
build=${1:?usage: measurement_overhead.sh BUILD_DIR [iterations] [repeats] [ops] [ranks]}
iterations=${2:-100000}
repeats=${3:-7}
ops=${4:-barrier ring bcast}
rankCounts=${5:-1 2}
loop="$build/tests/bench/measurement_collective_loop"
lib="$build/lib/libwaitscope.so"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# "events total thread finalize" of an experiment: rank 0's events, and the CPU seconds per rank
# (means over ranks) of the spill writer thread and finalize's write together, then each alone.
writeCost() {
  awk -F= '/^rank\.0\.events=/{e=$2} /finalize_write_cpu_seconds=/{w+=$2; nw++}
           /spill_writer_cpu_seconds=/{t+=$2; nt++}
           END{w = nw ? w/nw : 0; t = nt ? t/nt : 0; printf "%s %.9f %.9f %.9f\n", e, w+t, t, w}' "$1/waitscope.measurement"
}
# "fixed_us ns_per_event" of the line through (x events, a seconds) and (y events, b seconds).
fitLine() { awk -v a="$1" -v b="$2" -v x="$3" -v y="$4" 'BEGIN{s=(a-b)/(x-y); printf "%.1f %.4f\n", (a-s*x)*1e6, s*1e9}'; }
fitIterations=${FIT_ITERATIONS:-}

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
field() { grep -o "\b$1=[0-9.]*" | head -1 | cut -d= -f2; }
read -ra configs <<< "${CONFIGS:-plain traced sampled}"
[[ ${configs[0]} == plain ]] || { echo "CONFIGS must start with plain" >&2; exit 1; }
if [[ -n ${BASELINE_LIB:-} ]]; then
  for config in "${configs[@]:1}"; do configs+=("${config}0"); done
fi

printf '%-8s %5s %-8s %10s %10s %7s %7s %9s %9s %7s %7s %10s %10s %10s %9s %10s %10s %9s %10s\n' op ranks config \
  loop_us cpu_us loop_x cpu_x wall_s cpu_s wall_x cpu_x write_s write_ns/ev wcpu_ns/ev bytes/ev \
  spill_ns/ev total_ns/ev fix_us fit_ns/ev
for op in $ops; do
  for ranks in $rankCounts; do
    load_before=$(cut -d' ' -f1-3 /proc/loadavg)
    declare -A loopUs=() cpuUs=() wall=() cpu=() write=() perEvent=() cpuPerEvent=() bytes=()
    declare -A spillPerEvent=() totalPerEvent=() fixUs=() fitPerEvent=()
    declare -A fixThread=() fitThread=() fixFinal=() fitFinal=()
    declare -A pInit=() pLoops=() pBetween=() pFinalize=() pOutside=()
    for ((r = 0; r < repeats; ++r)); do
      for config in "${configs[@]}"; do
        dir="$work/exp_${op}_${ranks}_${config}_$r"
        env=()
        case $config in
          traced|traced0)
            env=(-x LD_PRELOAD="$([[ $config == traced ]] && echo "$lib" || echo "$BASELINE_LIB")"
                 -x WAITSCOPE_EXPERIMENT_DIRECTORY="$dir" -x WAITSCOPE_SAMPLING=false) ;;
          sampled|sampled0)
            env=(-x LD_PRELOAD="$([[ $config == sampled ]] && echo "$lib" || echo "$BASELINE_LIB")"
                 -x WAITSCOPE_EXPERIMENT_DIRECTORY="$dir" -x WAITSCOPE_SAMPLING=true
                 -x WAITSCOPE_SAMPLING_FREQUENCY=100) ;;
          sampledall|sampledall0)
            env=(-x LD_PRELOAD="$([[ $config == sampledall ]] && echo "$lib" || echo "$BASELINE_LIB")"
                 -x WAITSCOPE_EXPERIMENT_DIRECTORY="$dir" -x WAITSCOPE_SAMPLING=true
                 -x WAITSCOPE_SAMPLING_FREQUENCY=100
                 -x WAITSCOPE_TOTAL_MEMORY="${WHOLE_RUN_MEMORY:-256M}") ;;
        esac
        out=$( { /usr/bin/time -f "time_wall=%e time_user=%U time_sys=%S" \
                 mpirun -np "$ranks" --oversubscribe --bind-to none "${env[@]}" \
                 "$loop" "$op" "$iterations"; } 2>&1 )
        loopUs[$config]+="$(field usec_per_call <<< "$out") "
        cpuUs[$config]+="$(field cpu_usec_per_call <<< "$out") "
        wall[$config]+="$(field time_wall <<< "$out") "
        read -r pi pb pl pf po < <(awk -v w="$(field time_wall <<< "$out")" \
          -v i="$(field init_s <<< "$out")" -v m="$(field main_s <<< "$out")" \
          -v l="$(field loops_s <<< "$out")" -v f="$(field finalize_s <<< "$out")" \
          'BEGIN{print i, m - l, l, f, w - i - m - f}')
        pInit[$config]+="$pi "
        pBetween[$config]+="$pb "
        pLoops[$config]+="$pl "
        pFinalize[$config]+="$pf "
        pOutside[$config]+="$po "
        cpu[$config]+="$(awk -v u="$(field time_user <<< "$out")" -v s="$(field time_sys <<< "$out")" 'BEGIN{print u+s}') "
        if [[ $config != plain ]]; then
          ev=$(awk -F= '/^rank\.0\.events=/{print $2}' "$dir/waitscope.measurement")
          tb=$(awk -F= '/^rank\.0\.trace_bytes=/{print $2}' "$dir/waitscope.measurement")
          w=$(awk -F= '/finalize_write_seconds=/{s+=$2; n++} END{print s/n}' "$dir/waitscope.measurement")
          # The CPU time of the same write (older libraries do not write it: 0).
          wc=$(awk -F= '/finalize_write_cpu_seconds=/{s+=$2; n++} END{print n ? s/n : 0}' "$dir/waitscope.measurement")
          sc=$(awk -F= '/spill_writer_cpu_seconds=/{s+=$2; n++} END{print n ? s/n : 0}' "$dir/waitscope.measurement")
          write[$config]+="$w "
          spillPerEvent[$config]+="$(awk -v w="$sc" -v e="$ev" 'BEGIN{print w*1e9/e}') "
          totalPerEvent[$config]+="$(awk -v w="$wc" -v t="$sc" -v e="$ev" 'BEGIN{print (w+t)*1e9/e}') "
          cpuPerEvent[$config]+="$(awk -v w="$wc" -v e="$ev" 'BEGIN{print w*1e9/e}') "
          perEvent[$config]+="$(awk -v w="$w" -v e="$ev" 'BEGIN{print w*1e9/e}') "
          bytes[$config]+="$(awk -v b="$tb" -v e="$ev" 'BEGIN{print b/e}') "
          if [[ -n $fitIterations ]]; then
            read -r e1 t1 h1 f1 < <(writeCost "$dir")
            mpirun -np "$ranks" --oversubscribe --bind-to none "${env[@]/$dir/${dir}_fit}" \
              "$loop" "$op" "$fitIterations" > /dev/null 2>&1
            read -r e2 t2 h2 f2 < <(writeCost "${dir}_fit")
            read -r fx fs < <(fitLine "$t1" "$t2" "$e1" "$e2")
            fixUs[$config]+="$fx "; fitPerEvent[$config]+="$fs "
            read -r fx fs < <(fitLine "$h1" "$h2" "$e1" "$e2")
            fixThread[$config]+="$fx "; fitThread[$config]+="$fs "
            read -r fx fs < <(fitLine "$f1" "$f2" "$e1" "$e2")
            fixFinal[$config]+="$fx "; fitFinal[$config]+="$fs "
            rm -rf "${dir}_fit"
          fi
          rm -rf "$dir"
        fi
      done
    done
    declare -A m=()
    for config in "${configs[@]}"; do
      for k in loopUs cpuUs wall cpu pInit pBetween pLoops pFinalize pOutside; do
        declare -n values=$k
        m[$k.$config]=$(printf '%s\n' ${values[$config]} | median)
      done
    done
    for config in "${configs[@]}"; do
      w=- pe=- pc=- b=- sp=- tp=- fx=- fs=-
      if [[ $config != plain ]]; then
        w=$(printf '%s\n' ${write[$config]} | median)
        pe=$(printf '%s\n' ${perEvent[$config]} | median)
        pc=$(printf '%s\n' ${cpuPerEvent[$config]} | median)
        b=$(printf '%s\n' ${bytes[$config]} | median)
        sp=$(printf '%s\n' ${spillPerEvent[$config]} | median)
        tp=$(printf '%s\n' ${totalPerEvent[$config]} | median)
        if [[ -n $fitIterations ]]; then
          fx=$(printf '%s\n' ${fixUs[$config]} | median)
          fs=$(printf '%s\n' ${fitPerEvent[$config]} | median)
        fi
      fi
      awk -v op="$op" -v n="$ranks" -v c="$config" -v lu="${m[loopUs.$config]}" \
          -v cu="${m[cpuUs.$config]}" -v lp="${m[loopUs.plain]}" -v cp="${m[cpuUs.plain]}" \
          -v w="${m[wall.$config]}" -v cs="${m[cpu.$config]}" -v wp="${m[wall.plain]}" \
          -v csp="${m[cpu.plain]}" -v ws="$w" -v pe="$pe" -v pc="$pc" -v b="$b" -v sp="$sp" -v tp="$tp" -v fx="$fx" -v fs="$fs" \
        'BEGIN{printf "%-8s %5s %-8s %10.4f %10.4f %7.3f %7.3f %9.2f %9.2f %7.3f %7.3f %10s %10s %10s %9s %10s %10s %9s %10s\n",
               op, n, c, lu, cu, lu/lp, cu/cp, w, cs, w/wp, cs/csp, ws, pe, pc, b, sp, tp, fx, fs}'
    done
    printf '# parts %-8s %9s %9s %9s %9s %9s   %s\n' config init_s loops_s between_s \
      finalize_s outside_s "added to plain: init loops between finalize outside, loops_x"
    for config in "${configs[@]}"; do
      awk -v c="$config" -v i="${m[pInit.$config]}" -v l="${m[pLoops.$config]}" \
          -v b="${m[pBetween.$config]}" -v f="${m[pFinalize.$config]}" -v o="${m[pOutside.$config]}" \
          -v i0="${m[pInit.plain]}" -v l0="${m[pLoops.plain]}" -v b0="${m[pBetween.plain]}" \
          -v f0="${m[pFinalize.plain]}" -v o0="${m[pOutside.plain]}" \
        'BEGIN{printf "# parts %-8s %9.3f %9.3f %9.3f %9.3f %9.3f   %+.3f %+.3f %+.3f %+.3f %+.3f %.3f\n",
               c, i, l, b, f, o, i - i0, l - l0, b - b0, f - f0, o - o0, l / l0}'
    done
    echo "# $op $ranks ranks: load average before $load_before, after $(cut -d' ' -f1-3 /proc/loadavg)"
    for config in "${configs[@]:1}"; do
      [[ -n $fitIterations ]] || break
      echo "#   $config fit (fixed us per rank + ns per event, medians): thread" \
        "$(printf '%s\n' ${fixThread[$config]} | median) + $(printf '%s\n' ${fitThread[$config]} | median)," \
        "finalize $(printf '%s\n' ${fixFinal[$config]} | median) + $(printf '%s\n' ${fitFinal[$config]} | median)"
    done
    for config in "${configs[@]}"; do
      echo "#   $config cpu_us: ${cpuUs[$config]}| wall_s: ${wall[$config]}| loop_us: ${loopUs[$config]}"
    done
    unset loopUs cpuUs wall cpu write perEvent cpuPerEvent bytes spillPerEvent totalPerEvent m fixUs fitPerEvent
    unset fixThread fitThread fixFinal fitFinal
    unset pInit pLoops pBetween pFinalize pOutside
  done
done
