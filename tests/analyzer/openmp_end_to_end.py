#!/usr/bin/env python3
"""End-to-end check of the OpenMP recording and analysis on share/examples/openmp_waits.c.

The example is compiled with `waitscope-instrument clang -fopenmp` and Open MPI's flags (LLVM's
libomp: OMPT), run under `mpirun -np 2` with 3 threads per rank (oversubscribed), and analyzed with
`mpirun -np 2 waitscope-replay`. Every injected OpenMP wait must be found on its thread and
call path within 10 % of its size (delay D = 100 ms; the size as the trace shows the sleeps
lasted, which under load is longer than asked), and the construct counts must be exact. The
delay costs of the imbalanced loop's barrier waits must sit on the slowest thread's loop work
and add up to the waits within 10 %; those of the contended critical section's barrier waits
are long-term costs on the other threads' critical sections. Each construct has one call path,
the same on every thread of the team (through the outlined function the master alone records).
Exit status 0 on success; every failure is printed.
"""
import os
import sys

from end_to_end import (Checker, arguments, build_with_mpi, check_path_file, finish,
                        fresh_directory, measure_and_replay, measured, read_dump)

THREADS = 3
DELAY = 0.1
FLAGS = ["-fopenmp", "-g", "-O1", "-fno-omit-frame-pointer", "-fno-optimize-sibling-calls"]


def check(values):
    """Each wait against the injected size and against the work the trace shows the threads did
    (a sleep under load lasts longer than asked: the wait follows the real durations)."""
    c = Checker(values)
    for rank in (0, 1):
        locations = c.locations(rank)
        workers = [loc for loc in locations if loc]
        if len(workers) != THREADS - 1:
            c.problems.append("rank %d has thread locations %s, expected %d" %
                              (rank, workers, THREADS - 1))
            continue
        # imbalanced_loop: thread i works i x D, then waits in the implicit barrier for the
        # slowest: (T-1-i) x D. Thread 0 is the rank's main location.
        work = {loc: c.total("time", rank, loc, frame="!$omp for") for loc in locations}
        slowest = max(work.values())
        c.at_least("rank %d: the slowest thread's loop work" % rank, slowest, (THREADS - 1) * DELAY)
        c.near("rank %d main: omp_ibarrier_wait in imbalanced_loop" % rank,
               c.total("omp_ibarrier_wait", rank, "", frame="imbalanced_loop"),
               slowest - work[""])
        waits = sorted((c.total("omp_ibarrier_wait", rank, w, frame="imbalanced_loop"), w)
                       for w in workers)
        c.below("rank %d least-waiting worker: omp_ibarrier_wait there" % rank, waits[0][0],
                0.1 * DELAY)
        c.near("rank %d other worker: omp_ibarrier_wait there" % rank, waits[1][0],
               slowest - work[waits[1][1]])
        c.at_least("rank %d: that wait" % rank, waits[1][0], 0.9 * DELAY)
        # Delay costs (delay_ompbarrier): those waits are charged to the slowest thread, on its
        # loop work; (T-1) x D + (T-2) x D ... + D injected in all, more as the trace shows it.
        slow = max(locations, key=lambda loc: work[loc])
        waited = c.total("omp_ibarrier_wait", rank, frame="imbalanced_loop")
        delay = c.total("delay_ompbarrier", rank, slow, frame="!$omp for")
        c.near("rank %d %s: delay_ompbarrier on its loop work" % (rank, slow or "main"), delay,
               waited)
        c.at_least("rank %d: that delay cost" % rank, delay, THREADS * (THREADS - 1) / 2 * DELAY)
        for loc in locations:
            if loc != slow:
                c.below("rank %d %s: delay_ompbarrier in imbalanced_loop" % (rank, loc or "main"),
                        c.total("delay_ompbarrier", rank, loc, frame="imbalanced_loop"),
                        0.1 * DELAY)
        # contended_critical: the k-th thread in waits for the holds of the k threads before it
        # (the order of entry is the order of their waits).
        hold = {loc: c.total("time", rank, loc, frame="!$omp critical sblock") for loc in locations}
        for loc in locations:
            c.at_least("rank %d %s: hold of the critical section" % (rank, loc or "main"),
                       hold[loc], DELAY)
        order = sorted(locations, key=lambda loc: c.total("omp_lock_contention_critical", rank,
                                                          loc, frame="contended_critical"))
        before = 0.0
        for k, loc in enumerate(order):
            got = c.total("omp_lock_contention_critical", rank, loc, frame="contended_critical")
            if k == 0:
                c.below("rank %d %s: omp_lock_contention_critical, the first thread in" %
                        (rank, loc or "main"), got, 0.1 * DELAY)
            else:
                c.near("rank %d %s: omp_lock_contention_critical, thread %d in" %
                       (rank, loc or "main", k + 1), got, before)
            before += hold[loc]
        # The last thread in is last at the region's implicit barrier because it waited for
        # the section: those barrier waits are long-term delay costs (delay_ompbarrier_longterm)
        # of the holds it waited for, on the other threads' critical sections.
        waits = c.total("omp_ibarrier_wait", rank, frame="contended_critical",
                        last="!$omp implicit barrier")
        c.at_least("rank %d: omp_ibarrier_wait in contended_critical" % rank, waits,
                   THREADS * (THREADS - 1) / 2 * DELAY)
        c.near("rank %d: delay_ompbarrier_longterm on critical sections" % rank,
               c.total("delay_ompbarrier_longterm", rank, frame="contended_critical",
                       last="!$omp critical sblock"), waits)
        c.below("rank %d: delay_ompbarrier_longterm on the last thread in" % rank,
                c.total("delay_ompbarrier_longterm", rank, order[-1]), 0.1 * DELAY)
        c.exactly("rank %d: visits of !$omp critical sblock" % rank,
                  c.total("visits", rank, last="!$omp critical sblock"), THREADS)
        # serial_section: each worker idle while the master works there (3 x D).
        serial = c.total("time", rank, "", frame="serial_section")
        c.at_least("rank %d main: time in serial_section" % rank, serial, 3 * DELAY)
        for w in workers:
            c.near("rank %d %s: omp_idle_threads at serial_section" % (rank, w),
                   c.total("omp_idle_threads", rank, w, last="serial_section"), serial)
        c.below("rank %d main: omp_idle_threads" % rank, c.total("omp_idle_threads", rank, ""), 0)
        # uneven_tasks: tasks run in the barrier are work, not waiting.
        c.exactly("rank %d: visits of !$omp create task" % rank,
                  c.total("visits", rank, last="!$omp create task"), THREADS)
        c.exactly("rank %d: visits of !$omp task" % rank,
                  c.total("visits", rank, last="!$omp task @"), THREADS)
        c.at_least("rank %d: time in tasks" % rank, c.total("time", rank, frame="!$omp task @"),
                   6 * DELAY)
        c.below("rank %d: omp_ibarrier_wait in uneven_tasks, all threads" % rank,
                c.total("omp_ibarrier_wait", rank, frame="uneven_tasks"), 0.5 * DELAY)
        # The team shares each construct's call path: the master's (through the outlined
        # function it alone records) is the workers' too, exactly.
        for construct in ("!$omp for @", "!$omp barrier @", "!$omp critical sblock @"):
            paths = {loc: sorted(p for (m, p, r, l) in c.values
                                 if m == "visits" and r == rank and l == loc and
                                 construct in p.split("/")[-1])
                     for loc in locations}
            master = paths[""]
            ok = len(master) == 1 and ".omp_outlined" in master[0] and \
                all(paths[loc] == master for loc in locations)
            print("%-60s %s" % ("rank %d: one call path of %s on every thread" %
                                (rank, construct.strip(" @")), "ok" if ok else "FAIL"))
            if not ok:
                c.problems.append("rank %d: call paths of %s differ: %s" % (rank, construct, paths))
        # Three parallel regions, each on every thread.
        c.exactly("rank %d: visits of !$omp parallel" % rank,
                  c.total("visits", rank, last="!$omp parallel @"), 3 * THREADS)
    return c.problems


def check_critical_path(values):
    """The critical path through the teams: between the two MPI_Barriers it runs on one rank (the
    last to enter the second), and there, inside the imbalanced loop, on the slowest thread's
    loop work (its (T-1) x D sleep, as long as the trace shows it); the other threads' loop work
    is off the path."""
    c = Checker(values)
    on_path = [rank for rank in (0, 1)
               if c.total("critical_path", rank, frame="imbalanced_loop") > 0.5 * DELAY]
    if len(on_path) != 1:
        c.problems.append("the critical path runs through imbalanced_loop on ranks %s, expected "
                          "one" % on_path)
        return c.problems
    rank = on_path[0]
    locations = c.locations(rank)
    work = {loc: c.total("time", rank, loc, frame="!$omp for") for loc in locations}
    slow = max(locations, key=lambda loc: work[loc])
    c.near("rank %d %s: critical_path on its loop work" % (rank, slow or "main"),
           c.total("critical_path", rank, slow, frame="!$omp for"), work[slow])
    c.at_least("rank %d: that critical path" % rank,
               c.total("critical_path", rank, slow, frame="!$omp for"), (THREADS - 1) * DELAY)
    for loc in locations:
        if loc != slow:
            c.below("rank %d %s: critical_path in the loop's work" % (rank, loc or "main"),
                    c.total("critical_path", rank, loc, frame="!$omp for") -
                    c.total("critical_path", rank, loc, last="barrier"), 0.1 * DELAY)
    # uneven_tasks: the tasks outlast the single's own work (2 x D, after which the last thread
    # arrives at the barrier) by at least D: the path runs through the tasks ending last.
    c.at_least("rank %d: critical_path in the tasks of uneven_tasks" % rank,
               c.total("critical_path", rank, frame="!$omp task @"), DELAY)
    # The path keeps its length: over all locations, the whole run between the barriers.
    inside = sum(c.total("critical_path", rank, loc, frame=f) for loc in locations
                 for f in ("imbalanced_loop", "contended_critical", "uneven_tasks"))
    main_time = sum(c.total("time", rank, "", frame=f)
                    for f in ("imbalanced_loop", "contended_critical", "uneven_tasks"))
    c.near("rank %d: critical_path in the three parallel regions" % rank, inside, main_time)
    return c.problems


def measure_example(args, name, threads, arguments=()):
    """Builds share/examples/`name`.c with `waitscope-instrument clang` (LLVM's OpenMP runtime,
    which has OMPT; MPI's flags from Open MPI's wrapper), runs it with `arguments` on 2 ranks of
    `threads` threads each and replays it. Returns its values (read_dump), or None after printing
    the failure of a command."""
    work = fresh_directory(args.work)
    env = dict(os.environ)
    env["OMP_NUM_THREADS"] = str(threads)
    env["OMP_WAIT_POLICY"] = "passive"  # idle threads sleep: 6 threads share the cores
    binary = os.path.join(work, "example_" + name)

    def steps():
        build_with_mpi([args.instrument, "clang"], FLAGS,
                       [os.path.join(args.examples, name + ".c")], binary, work, env)
        return measure_and_replay(args.mpirun, args.replay, [binary] + list(arguments),
                                  "waitscope_example_%s_2" % name, work, env,
                                  exported=("OMP_NUM_THREADS", "OMP_WAIT_POLICY"))

    replayed = measured(steps)
    return None if replayed is None else read_dump(replayed[1])


def main():
    args = arguments("instrument", "replay", "mpirun", "examples", "work").parse_args()
    values = measure_example(args, "openmp_waits", THREADS)
    if values is None:
        return 1
    experiment = os.path.join(args.work, "waitscope_example_openmp_waits_2")
    return finish(check(values) + check_critical_path(values) +
                  check_path_file(experiment, values))


if __name__ == "__main__":
    sys.exit(main())
