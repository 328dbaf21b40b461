#!/usr/bin/env python3
"""End-to-end check of the thread order records, and of the critical path and delay costs
through a joined POSIX thread, on share/examples/thread_join_path.c.

The example is compiled with plain `mpicc`, run under `mpirun -np 2` with libwaitscope.so
preloaded and sampling on (so the thread's time lies on its call paths), and analyzed with
`mpirun -np 2 waitscope-replay`. The trace must hold the thread order as OTF2 records it:
on each rank's main location one ThreadCreate and one ThreadWait, on its thread ThreadBegin
first and ThreadEnd last, all four with the same sequence number (otf2-print). Rank 1's thread
works 3 x D (D = 100 ms) while its main thread works D and joins it, then calls MPI_Barrier, so
the critical path must run through the thread's slow_part (its whole time, within 10 %) and not
through rank 1's main_part, and the join's wait must come out as the thread's delay cost on
slow_part (delay_pthread_join) within 10 %: at least 3/4 of the 2 x D of extra work injected
(the main thread may reach the join late under load) and at most the extra work the trace shows.
Rank 0's thread, joined without a wait, carries neither. Exit status 0 on success; every
failure is printed.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

from end_to_end import Checker, check_path_file, read_dump, run

DELAY = 0.1
FLAGS = ["-g", "-O1", "-fno-omit-frame-pointer", "-fno-optimize-sibling-calls", "-pthread"]
ORDER = ("THREAD_CREATE", "THREAD_BEGIN", "THREAD_WAIT", "THREAD_END")


def thread_order(otf2_print, anchor, env):
    """The trace's thread order records, location -> [(record, sequence number)] in order, and
    each location's first and last event, location -> (record, record)."""
    out = subprocess.run([otf2_print, anchor], env=env, capture_output=True, text=True,
                         timeout=120, check=True).stdout
    records = {}
    ends = {}
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 3 or not fields[0].isupper() or not fields[1].isdigit():
            continue
        location = int(fields[1])
        ends[location] = (ends.get(location, (fields[0], None))[0], fields[0])
        if fields[0] in ORDER:
            sequence = re.search(r"Sequence Count: (\d+)", line)
            records.setdefault(location, []).append(
                (fields[0], int(sequence.group(1)) if sequence else -1))
    return records, ends


def check_order(records, first_events):
    problems = []
    for rank in (0, 1):
        main = records.get(rank, [])
        kinds = [kind for kind, _ in main]
        if kinds != ["THREAD_CREATE", "THREAD_WAIT"]:
            problems.append("rank %d main: thread order records %s, expected create and wait" %
                            (rank, kinds))
            continue
        threads = [loc for loc in records if loc != rank and loc & 0xFFFFFFFF == rank]
        if len(threads) != 1:
            problems.append("rank %d: thread order records on locations %s, expected one thread"
                            % (rank, threads))
            continue
        kinds = [kind for kind, _ in records[threads[0]]]
        if kinds != ["THREAD_BEGIN", "THREAD_END"]:
            problems.append("rank %d thread: records %s, expected begin and end" % (rank, kinds))
        sequences = {s for _, s in main + records[threads[0]]}
        if len(sequences) != 1:
            problems.append("rank %d: sequence numbers %s, expected one" % (rank, sequences))
        first, last = first_events.get(threads[0], (None, None))
        if first != "THREAD_BEGIN" or last != "THREAD_END":
            problems.append("rank %d thread: first event %s, last %s" % (rank, first, last))
        print("rank %d: thread order %s on main, %s on its thread, sequence numbers %s" %
              (rank, [k for k, _ in main], kinds, sorted(sequences)))
    return problems


def check(values):
    c = Checker(values)
    for rank in (0, 1):
        workers = [loc for loc in c.locations(rank) if loc]
        if len(workers) != 1:
            c.problems.append("rank %d has thread locations %s, expected 1" % (rank, workers))
            continue
        worker = workers[0]
        slow = c.total("time", rank, worker, frame="slow_part")
        own = c.total("time", rank, "", frame="main_part")
        c.at_least("rank %d thread: time in slow_part" % rank, slow, (3 if rank else 1) * DELAY)
        path = c.total("critical_path", rank, worker, frame="slow_part")
        delay = c.total("delay_pthread_join", rank, worker, frame="slow_part")
        if rank == 1:
            # The path runs through the thread's whole slow_part, not the main thread's work.
            c.near("rank 1 thread: critical_path in slow_part", path, slow)
            c.below("rank 1 main: critical_path in main_part",
                    c.total("critical_path", rank, "", frame="main_part"), 0.1 * DELAY)
            # The join waited for the thread's extra work: its delay cost, on slow_part. (Under
            # load the main thread reaches the join late at times, so the wait the trace shows
            # can be shorter than the 2 x D injected.)
            wait = c.total("time", rank, "", last="pthread_join")
            c.near("rank 1 thread: delay_pthread_join in slow_part (the join's wait)", delay,
                   wait)
            c.at_least("rank 1 thread: that cost (3/4 of the extra work injected)", delay,
                       0.75 * 2 * DELAY)
            c.below("rank 1 thread: that cost (the extra work the trace shows)", delay,
                    1.1 * (slow - own))
        else:
            c.below("rank 0 thread: critical_path", c.total("critical_path", rank, worker),
                    0.1 * DELAY)
            c.below("rank 0 thread: delay_pthread_join",
                    c.total("delay_pthread_join", rank, worker), 0.1 * DELAY)
    return c.problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--replay", required=True)
    parser.add_argument("--library", required=True)
    parser.add_argument("--mpirun", required=True)
    parser.add_argument("--otf2-print", default="otf2-print")
    parser.add_argument("--examples", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    env = dict(os.environ)
    env["WAITSCOPE_SAMPLING"] = "true"
    binary = os.path.join(args.work, "example_thread_join_path")
    dump = os.path.join(args.work, "values.txt")
    try:
        run(["mpicc"] + FLAGS + [os.path.join(args.examples, "thread_join_path.c"), "-o", binary],
            args.work, env)
        run([args.mpirun, "-np", "2", "--oversubscribe", "-x", "WAITSCOPE_SAMPLING", "-x",
             "LD_PRELOAD=" + args.library, binary], args.work, env)
        experiment = os.path.join(args.work, "waitscope_example_thread_join_path_2")
        anchor = os.path.join(experiment, "traces.otf2")
        problems = check_order(*thread_order(args.otf2_print, anchor, env))
        run([args.mpirun, "-np", "2", "--oversubscribe", args.replay, "--quiet", "--dump-text",
             dump, experiment], args.work, env)
    except (RuntimeError, subprocess.SubprocessError) as error:
        print("FAIL: %s" % error)
        return 1
    values = read_dump(dump)
    problems += check(values)
    problems += check_path_file(experiment, values)
    for p in problems:
        print("FAIL: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
