#!/usr/bin/env python3
"""End-to-end check of MPI from many threads (MPI_THREAD_MULTIPLE): recording every thread's MPI
calls on its own location, and the replay matching them across the threads of each rank.

1. share/examples/mpi_threads.c, compiled with plain `mpicc`, runs under `mpirun -np 2` with
   libwaitscope.so preloaded and threads sampled (so each thread is the location numbered by
   its creation: tag t on "thread t+1"), and is analyzed with `mpirun -np 2 waitscope-replay`.
   Each of the four threads of each rank must carry exactly its messages (2 sent, 2 received),
   the Late Sender of thread 2's late partner (2 x 1 s) must be found on rank 1's thread 2
   within 10 %, and no other location may wait more than a fifth of that (message latency of
   threads on an oversubscribed machine). Its delay cost must be found on rank 0's thread 2, in
   late_work, within 10 %, and no other location's delay cost may exceed a fifth of it.
2. OSU's osu_latency_mt (a program nobody here wrote: one sending thread on rank 0, two
   receiving threads on rank 1, all on one tag) runs likewise with 20 + 2 iterations per size;
   its messages must be counted exactly per thread against what it sends, its threads must have
   point-to-point time of their own, and `waitscope-examine` must not call it compute-bound (as
   it did before threads' MPI calls were recorded). How the threads' time splits between MPI and
   computation depends on the machine's load (on a quiet machine the short run's messages take
   about as long as the threads' own work), so it is printed, not compared.
Exit status 0 on success; every failure is printed.
"""
import argparse
import os
import shutil
import subprocess
import sys

from openmp_end_to_end import Checker, read_dump, run

DELAY = 1.0
ITERATIONS = 2
FLAGS = ["-g", "-O1", "-fno-omit-frame-pointer", "-fno-optimize-sibling-calls", "-pthread"]
OSU_SIZES = 24  # 0, then 1 B .. 4 MiB in powers of two (MAX_MSG_SIZE of osu_pt2pt.h)
OSU_ROUNDS = 20 + 2  # -i 20 -x 2


def location_of(tag):
    return "thread %d" % (tag + 1)


def check_example(values):
    c = Checker(values)
    for rank in (0, 1):
        workers = [loc for loc in c.locations(rank) if loc]
        expected = [location_of(t) for t in range(4)]
        if sorted(workers) != expected:
            c.problems.append("rank %d has thread locations %s, expected %s" %
                              (rank, workers, expected))
            continue
        for tag in range(4):
            loc = location_of(tag)
            c.exactly("rank %d %s: messages sent" % (rank, loc),
                      c.total("comms_send", rank, loc), ITERATIONS)
            c.exactly("rank %d %s: messages received" % (rank, loc),
                      c.total("comms_recv", rank, loc), ITERATIONS)
        c.exactly("rank %d main: messages" % rank,
                  c.total("comms_send", rank, "") + c.total("comms_recv", rank, ""), 0)
        # Which thread did what: thread 1 is the nonblocking one, thread 3 the one with its
        # own communicator and barrier.
        c.exactly("rank %d %s: visits of MPI_Isend" % (rank, location_of(1)),
                  c.total("visits", rank, location_of(1), last="MPI_Isend"), ITERATIONS)
        c.exactly("rank %d %s: visits of MPI_Barrier" % (rank, location_of(3)),
                  c.total("visits", rank, location_of(3), last="MPI_Barrier"), 1)
        c.exactly("rank %d main: visits of MPI_Barrier" % rank,
                  c.total("visits", rank, "", last="MPI_Barrier"), 2)
        # Below the thread's start routine.
        c.exactly("rank %d %s: visits of MPI_Recv below exchange" % (rank, location_of(2)),
                  c.total("visits", rank, location_of(2), frame="exchange", last="MPI_Recv"),
                  ITERATIONS)
    late = ITERATIONS * DELAY
    c.near("rank 1 %s: mpi_latesender" % location_of(2),
           c.total("mpi_latesender", 1, location_of(2), last="MPI_Recv"), late)
    for rank in (0, 1):
        for loc in [""] + [location_of(t) for t in range(4)]:
            if rank == 1 and loc == location_of(2):
                continue
            c.below("rank %d %s: mpi_latesender" % (rank, loc or "main"),
                    c.total("mpi_latesender", rank, loc), 0.2 * late)
    # Delay costs, each thread a timeline of its own: the late thread's wait is charged to its
    # partner thread's late_work (the sleep of D before each send), on that thread only.
    c.near("rank 0 %s: delay_latesender on late_work" % location_of(2),
           c.total("delay_latesender", 0, location_of(2), last="late_work"), late)
    for rank in (0, 1):
        for loc in [""] + [location_of(t) for t in range(4)]:
            own = c.total("delay_latesender", rank, loc)
            if rank == 0 and loc == location_of(2):
                own -= c.total("delay_latesender", rank, loc, last="late_work")
            c.below("rank %d %s: delay_latesender elsewhere" % (rank, loc or "main"), own,
                    0.2 * late)
    # Nothing waited before rank 1's thread 2 waited: its waits are direct and terminal.
    c.near("rank 1 %s: mpi_wait_direct_latesender" % location_of(2),
           c.total("mpi_wait_direct_latesender", 1, location_of(2), last="MPI_Recv"), late)
    return c.problems


def check_osu(values):
    c = Checker(values)
    rounds = OSU_SIZES * OSU_ROUNDS

    def sent(rank, loc):  # with data, and the zero-byte ones of size 0
        return c.total("comms_send", rank, loc) + c.total("syncs_send", rank, loc)

    def received(rank, loc):
        return c.total("comms_recv", rank, loc) + c.total("syncs_recv", rank, loc)

    senders = [loc for loc in c.locations(0) if loc and sent(0, loc) > 0]
    receivers = [loc for loc in c.locations(1) if loc and received(1, loc) > 0]
    if len(senders) != 1 or len(receivers) != 2:
        c.problems.append("osu_latency_mt: sending threads %s on rank 0, receiving threads %s "
                          "on rank 1; expected one and two" % (senders, receivers))
        return c.problems
    c.exactly("osu rank 0 %s: messages sent" % senders[0], sent(0, senders[0]), rounds)
    c.exactly("osu rank 0 %s: messages received" % senders[0], received(0, senders[0]), rounds)
    c.exactly("osu rank 0 %s: zero-byte messages sent" % senders[0],
              c.total("syncs_send", 0, senders[0]), OSU_ROUNDS)
    for loc in receivers:
        # Thread `val` receives rounds val, val + 2, ...: half of each size's rounds.
        c.exactly("osu rank 1 %s: messages received" % loc, received(1, loc), rounds // 2)
        c.exactly("osu rank 1 %s: messages sent" % loc, sent(1, loc), rounds // 2)
    for rank in (0, 1):
        c.exactly("osu rank %d main: messages" % rank, sent(rank, "") + received(rank, ""), 0)
        # One barrier per size, on whichever thread of rank 1 gets there last.
        c.exactly("osu rank %d: MPI_Barrier visits over its threads" % rank,
                  c.total("visits", rank, None, last="MPI_Barrier"), OSU_SIZES)
    return c.problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--replay", required=True)
    parser.add_argument("--library", required=True)
    parser.add_argument("--examine", required=True)
    parser.add_argument("--mpirun", required=True)
    parser.add_argument("--examples", required=True)
    parser.add_argument("--osu", help="the OSU micro-benchmarks' source folder (else no OSU run)")
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    env = dict(os.environ)
    env["WAITSCOPE_SAMPLING"] = "true"
    env["WS_DELAY_MS"] = str(int(DELAY * 1000))
    env["WS_ITERATIONS"] = str(ITERATIONS)
    preload = ["-x", "WAITSCOPE_SAMPLING", "-x", "WS_DELAY_MS", "-x", "WS_ITERATIONS", "-x",
               "LD_PRELOAD=" + args.library]
    pt2pt = os.path.join(args.osu or "", "mpi", "pt2pt")
    programs = [
        ("example_mpi_threads", [os.path.join(args.examples, "mpi_threads.c")], [], check_example),
    ]
    if args.osu:
        programs.append(("osu_latency_mt", [os.path.join(pt2pt, "osu_latency_mt.c"),
                                            os.path.join(pt2pt, "osu_pt2pt.c"), "-I" + pt2pt],
                         ["-i", "20", "-x", "2"], check_osu))
    else:
        print("-- osu_latency_mt: no OSU sources given, not run")
    problems = []
    for name, sources, arguments, check in programs:
        work = os.path.join(args.work, name)
        os.makedirs(work)
        binary = os.path.join(work, name)
        dump = os.path.join(work, "values.txt")
        try:
            run(["mpicc"] + FLAGS + sources + ["-o", binary], work, env)
            run([args.mpirun, "-np", "2", "--oversubscribe"] + preload + [binary] + arguments,
                work, env)
            experiment = os.path.join(work, "waitscope_%s_2" % name)
            replayed = run([args.mpirun, "-np", "2", "--oversubscribe", args.replay, "--quiet",
                            "--dump-text", dump, experiment], work, env)
        except (RuntimeError, subprocess.TimeoutExpired) as error:
            print("FAIL: %s" % error)
            return 1
        print("-- %s" % name)
        problems += check(read_dump(dump))
        # Ranks whose threads call MPI leave the critical path out, saying why (docs/fidelity.md:
        # nothing in the trace says where the path moves between the threads of a rank).
        if name == "example_mpi_threads":
            for rank in (0, 1):
                warning = ("rank %d: further threads call MPI; the critical path is not analyzed"
                           % rank)
                if warning not in replayed.stderr:
                    problems.append("example_mpi_threads: the replay does not warn '%s'" % warning)
            if any(metric == "critical_path" for (metric, _, _, _) in read_dump(dump)):
                problems.append("example_mpi_threads: a critical path without its threads' edges")
        if name == "osu_latency_mt":
            summary = run([args.examine, experiment], work, env).stdout
            verdict = [line for line in summary.splitlines() if line.startswith("verdict:")]
            print(verdict[0] if verdict else "no verdict")
            if not verdict or "compute-bound" in verdict[0]:
                problems.append("osu_latency_mt: the summary's verdict is %s, not what its threads "
                                "do (MPI)" % (verdict[0] if verdict else "missing"))
            # The threads' MPI time is theirs (before, it was counted as their computation);
            # MPI_Init and MPI_Finalize, on the main threads, may outweigh both in a short run.
            values = read_dump(dump)
            c = Checker(values)
            threads = {(r, loc) for (_, _, r, loc) in values if loc}
            p2p = sum(c.total("mpi_point2point", r, loc) for (r, loc) in threads)
            comp = sum(c.total("comp", r, loc) for (r, loc) in threads)
            print("osu_latency_mt threads: point-to-point %.3f s, computation %.3f s" % (p2p, comp))
            if p2p <= 0:
                problems.append("osu_latency_mt: its threads have no point-to-point time")
    for p in problems:
        print("FAIL: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
