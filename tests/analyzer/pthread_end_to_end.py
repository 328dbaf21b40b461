#!/usr/bin/env python3
"""End-to-end check of the POSIX threads recording and analysis on share/examples/pthread_waits.c.

The example is compiled with `waitscope-instrument mpicc` (libwaitscope.so linked), run under
`mpirun -np 2` with 3 threads per rank (oversubscribed; threads sampled so their paths start at
their start routines), and analyzed with `mpirun -np 2 waitscope-replay`; then compiled with plain
`mpicc` and run with libwaitscope.so preloaded (the main thread's paths sampled only). The mutex wait and the condition wait must be found
on their threads and call paths within 10 % of their size (delay D = 100 ms; the size as the trace
shows the main thread's holds lasted, which under load is longer than asked), and the calls'
visit counts must be exact. Exit status 0 on success; every failure is printed.
"""
import os
import sys

from end_to_end import (Checker, arguments, finish, fresh_directory, measure_and_replay, measured,
                        read_dump, run)

DELAY = 0.1
FLAGS = ["-g", "-O1", "-fno-omit-frame-pointer", "-fno-optimize-sibling-calls", "-pthread"]


def check(values, instrumented=True):
    c = Checker(values)
    for rank in (0, 1):
        workers = [loc for loc in c.locations(rank) if loc]
        if len(workers) != 2:
            c.problems.append("rank %d has thread locations %s, expected 2" % (rank, workers))
            continue
        by_routine = {}
        for routine in ("wait_for_mutex", "wait_for_signal"):
            found = [w for w in workers if c.total("visits", rank, w, frame=routine) > 0]
            if len(found) != 1:
                c.problems.append("rank %d: %s on locations %s, expected one" %
                                  (rank, routine, found))
            else:
                by_routine[routine] = found[0]
        if len(by_routine) != 2:
            continue
        mutex_thread = by_routine["wait_for_mutex"]
        signal_thread = by_routine["wait_for_signal"]
        hold = c.total("time", rank, "", frame="hold_mutex")
        prepare = c.total("time", rank, "", frame="prepare_signal")
        # Measured (instrumented) or sampled at 100 Hz (a sample or two below at most).
        least = 1.0 if instrumented else 0.9
        c.at_least("rank %d main: time in hold_mutex" % rank, hold, least * 5 * DELAY)
        c.at_least("rank %d main: time in prepare_signal" % rank, prepare, least * 4 * DELAY)
        # The mutex wait: the main thread held the mutex through hold_mutex.
        c.near("rank %d %s: pthread_lock_contention_mutex_lock" % (rank, mutex_thread),
               c.total("pthread_lock_contention_mutex_lock", rank, mutex_thread,
                       frame="wait_for_mutex", last="pthread_mutex_lock"), hold)
        # The condition wait: through hold_mutex and prepare_signal.
        c.near("rank %d %s: pthread_lock_contention_conditional" % (rank, signal_thread),
               c.total("pthread_lock_contention_conditional", rank, signal_thread,
                       frame="wait_for_signal", last="pthread_cond_wait"), hold + prepare)
        c.below("rank %d main: pthread_lock_contention_mutex_lock" % rank,
                c.total("pthread_lock_contention_mutex_lock", rank, ""), 0.1 * DELAY)
        c.below("rank %d %s: pthread_lock_contention_mutex_lock" % (rank, signal_thread),
                c.total("pthread_lock_contention_mutex_lock", rank, signal_thread), 0.1 * DELAY)
        # The whole wait is below POSIX threads time, not computation.
        c.near("rank %d %s: pthread_time" % (rank, signal_thread),
               c.total("pthread_time", rank, signal_thread), hold + prepare)
        # Every call of the program's own code, exactly; none of the MPI library's.
        for location, name, count in (("", "pthread_mutex_lock", 2),
                                      ("", "pthread_mutex_unlock", 2),
                                      ("", "pthread_cond_signal", 1), ("", "pthread_join", 2),
                                      (mutex_thread, "pthread_mutex_lock", 1),
                                      (mutex_thread, "pthread_mutex_unlock", 1),
                                      (signal_thread, "pthread_mutex_lock", 1),
                                      (signal_thread, "pthread_cond_wait", 1),
                                      (signal_thread, "pthread_mutex_unlock", 1)):
            c.exactly("rank %d %s: visits of %s" % (rank, location or "main", name),
                      c.total("visits", rank, location, last=name), count)
        # On its call path: unwound when preloaded, instrumented when linked.
        c.exactly("rank %d main: visits of pthread_join below main" % rank,
                  c.total("visits", rank, "", frame="main", last="pthread_join"), 2)
        c.exactly("rank %d main: visits of pthread_cond_signal in prepare_signal" % rank,
                  c.total("visits", rank, "", frame="prepare_signal", last="pthread_cond_signal"),
                  1)
    return c.problems


def main():
    args = arguments("instrument", "replay", "library", "mpirun", "examples", "work").parse_args()
    fresh_directory(args.work)
    env = dict(os.environ)
    env["WAITSCOPE_SAMPLING"] = "true"
    source = os.path.join(args.examples, "pthread_waits.c")
    problems = []
    for instrumented in (True, False):
        work = fresh_directory(
            os.path.join(args.work, "instrumented" if instrumented else "preloaded"))
        binary = os.path.join(work, "example_pthread_waits")

        def steps():
            if instrumented:
                run([args.instrument, "mpicc"] + FLAGS + [source, "-o", binary], work, env)
                exported = ("WAITSCOPE_SAMPLING",)
            else:
                run(["mpicc"] + FLAGS + [source, "-o", binary], work, env)
                exported = ("WAITSCOPE_SAMPLING", "LD_PRELOAD=" + args.library)
            return measure_and_replay(args.mpirun, args.replay, [binary],
                                      "waitscope_example_pthread_waits_2", work, env,
                                      exported=exported)

        replayed = measured(steps)
        if replayed is None:
            return 1
        print("-- %s" % ("instrumented (linked)" if instrumented else "preloaded"))
        problems += check(read_dump(replayed[1]), instrumented)
    return finish(problems)


if __name__ == "__main__":
    sys.exit(main())
