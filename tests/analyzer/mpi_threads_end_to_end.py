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
   late_work, within 10 %, and no other location's delay cost may exceed a fifth of it. Rank
   0's main thread waits in pthread_join for that thread: the join's delay cost must lie on its
   late_work (at least 80 % of the injected delay, at most the main thread's join time); rank
   1's thread 2 mostly waited (not work), so its join's delay cost must stay below a fifth of
   the Late Sender. The critical path must run through rank 0's thread 2's late_work (2 x 1 s,
   within 10 %) and not through the other threads (below a tenth of that), without the
   warning that it is not analyzed.
2. OSU's osu_latency_mt (a program nobody here wrote: one sending thread on rank 0, two
   receiving threads on rank 1, all on one tag) runs likewise with 20 + 2 iterations per size;
   its messages must be counted exactly per thread against what it sends, its threads must have
   point-to-point time of their own, and `waitscope-examine` must not call it compute-bound (as
   it did before threads' MPI calls were recorded). How the threads' time splits between MPI and
   computation depends on the machine's load (on a quiet machine the short run's messages take
   about as long as the threads' own work), so it is printed, not compared.
Exit status 0 on success; every failure is printed.
"""
import os
import sys

from end_to_end import (Checker, arguments, check_path_file, finish, fresh_directory,
                        measure_and_replay, measured, read_dump, run)

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
    # The main threads' joins (thread order records): rank 0's main thread waits in
    # pthread_join for thread 2's late work, the join's delay cost (delay_pthread_join) lies on
    # that work; rank 1's thread 2 spent its time waiting (Late Sender), which is not work, so
    # its join's delay cost stays small.
    # (The main thread's joins of the other threads wait too, while those threads start up on
    # the oversubscribed machine, so the join time is an upper bound.)
    joined = c.total("delay_pthread_join", 0, location_of(2), frame="late_work")
    c.at_least("rank 0 %s: delay_pthread_join on late_work" % location_of(2), joined, 0.8 * late)
    c.below("rank 0 %s: that cost" % location_of(2), joined,
            c.total("time", 0, "", last="pthread_join"))
    c.below("rank 1 %s: delay_pthread_join" % location_of(2),
            c.total("delay_pthread_join", 1, location_of(2)), 0.2 * late)
    # Nothing waited before rank 1's thread 2 waited: its waits are direct and terminal.
    c.near("rank 1 %s: mpi_wait_direct_latesender" % location_of(2),
           c.total("mpi_wait_direct_latesender", 1, location_of(2), last="MPI_Recv"), late)
    # The critical path follows the threads' order and their MPI calls: from the main thread's
    # join of thread 2 to that thread, over its Late Sender waits to rank 0's thread 2, whose
    # late_work it holds (2 x D), and back to the main thread at its creation. The other threads
    # are off the path, and so is the waiting of rank 1's thread 2.
    c.near("rank 0 %s: critical_path on late_work" % location_of(2),
           c.total("critical_path", 0, location_of(2), frame="blocking_exchange",
                   last="late_work"), late)
    for rank in (0, 1):
        for tag in (0, 1, 3):
            c.below("rank %d %s: critical_path" % (rank, location_of(tag)),
                    c.total("critical_path", rank, location_of(tag)), 0.1 * late)
    c.below("rank 1 %s: critical_path on MPI_Recv" % location_of(2),
            c.total("critical_path", 1, location_of(2), last="MPI_Recv"), 0.1 * late)
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
    parser = arguments("replay", "library", "examine", "mpirun", "examples", "work")
    parser.add_argument("--osu", help="the OSU micro-benchmarks' source folder (else no OSU run)")
    args = parser.parse_args()
    fresh_directory(args.work)
    env = dict(os.environ)
    env["WAITSCOPE_SAMPLING"] = "true"
    env["WS_DELAY_MS"] = str(int(DELAY * 1000))
    env["WS_ITERATIONS"] = str(ITERATIONS)
    preload = ("WAITSCOPE_SAMPLING", "WS_DELAY_MS", "WS_ITERATIONS", "LD_PRELOAD=" + args.library)
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
    for name, sources, options, check in programs:
        work = fresh_directory(os.path.join(args.work, name))
        binary = os.path.join(work, name)
        experiment = os.path.join(work, "waitscope_%s_2" % name)

        def steps():
            run(["mpicc"] + FLAGS + sources + ["-o", binary], work, env)
            return measure_and_replay(args.mpirun, args.replay, [binary] + options, experiment,
                                      work, env, exported=preload)

        measured_run = measured(steps)
        if measured_run is None:
            return 1
        replayed, dump = measured_run
        print("-- %s" % name)
        problems += check(read_dump(dump))
        # The thread that carries the path: its pieces in the file add up to its critical_path.
        # (Where the path only touches a thread's call, the lane walk charges the gap before
        # the call more than the path's time there: 1.7 ms against 0.05 ms on rank 1's thread 3,
        # docs/fidelity.md; not checked under 50 ms.)
        problems += check_path_file(os.path.join(work, experiment), read_dump(dump),
                                    at_least=0.05)
        # The critical path is analyzed (its walk back follows the threads' order), with no
        # warning that it is not (docs/fidelity.md).
        if name == "example_mpi_threads" and "the critical path is not analyzed" in replayed.stderr:
            problems.append("example_mpi_threads: the replay leaves the critical path out")
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
    return finish(problems)


if __name__ == "__main__":
    sys.exit(main())
