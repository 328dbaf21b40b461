#!/usr/bin/env python3
"""End-to-end check of Scalasca's long-term OpenMP barrier delay costs on
share/examples/openmp_late_sender.c.

The example is compiled like openmp_waits (openmp_end_to_end.py), run under `mpirun -np 2` with
3 threads per rank (oversubscribed), and analyzed with `mpirun -np 2 waitscope-replay`. Rank 0's
master waits in MPI_Recv inside a parallel region for rank 1, which computes D first; rank 0's
workers wait at the region's barrier meanwhile. Their barrier waits must come out as
delay_ompbarrier_longterm on rank 1's compute_late, within 10 % of (T-1) x its time as the
trace shows it and at least 90 % of the injected (T-1) x N x D; the master's MPI_Recv may carry
short-term delay_ompbarrier only for its time beyond the wait (its waiting is not work); short-
and long-term costs add up to the waits within 10 %.
Exit status 0 on success; every failure is printed.
"""
import sys

from end_to_end import Checker, arguments, finish
from openmp_end_to_end import measure_example

THREADS = 3
ITERATIONS = 3
DELAY = 0.2


def check(values):
    c = Checker(values)
    workers = [loc for loc in c.locations(0) if loc]
    if len(workers) != THREADS - 1:
        c.problems.append("rank 0 has thread locations %s, expected %d" % (workers, THREADS - 1))
        return c.problems
    injected = ITERATIONS * DELAY
    late_sender = c.total("mpi_latesender", 0, "", frame="receive_in_team")
    c.at_least("rank 0 main: mpi_latesender in receive_in_team", late_sender, 0.9 * injected)
    waits = 0.0
    for w in workers:
        wait = c.total("omp_ibarrier_wait", 0, w, frame="receive_in_team")
        c.at_least("rank 0 %s: omp_ibarrier_wait in receive_in_team" % w, wait, 0.9 * injected)
        waits += wait
    # The workers' barrier waits: long-term costs of the master's Late Sender, on rank 1's
    # computation that made it late: (T-1) x N x D injected, as long as the trace shows the
    # computation lasted (a sleep under load lasts longer than asked).
    late = c.total("time", 1, "", last="compute_late")
    c.at_least("rank 1: time in compute_late", late, injected)
    longterm = c.total("delay_ompbarrier_longterm", 1, "", last="compute_late")
    c.near("rank 1: delay_ompbarrier_longterm on compute_late", longterm, (THREADS - 1) * late)
    c.at_least("rank 1: that long-term cost", longterm, 0.9 * (THREADS - 1) * injected)
    c.near("rank 1: delay_latesender on compute_late",
           c.total("delay_latesender", 1, "", last="compute_late"), late)
    # The master's MPI waiting is not work: its short-term barrier costs are at most the
    # workers' share of its MPI_Recv beyond the wait (the call's completion under load).
    recv = c.total("time", 0, "", last="MPI_Recv")
    shortterm = c.total("delay_ompbarrier", 0, "", frame="receive_in_team")
    c.below("rank 0 main: delay_ompbarrier in receive_in_team", shortterm,
            (THREADS - 1) * (recv - late_sender) * 1.1 + 0.1 * DELAY)
    # All of the waits are charged: short-term on the master, long-term on rank 1.
    c.near("rank 0 delay_ompbarrier + rank 1 delay_ompbarrier_longterm",
           shortterm + c.total("delay_ompbarrier_longterm", 1), waits)
    c.below("rank 0: delay_ompbarrier_longterm", c.total("delay_ompbarrier_longterm", 0),
            0.1 * DELAY)
    return c.problems


def main():
    args = arguments("instrument", "replay", "mpirun", "examples", "work").parse_args()
    values = measure_example(args, "openmp_late_sender", THREADS,
                             [str(ITERATIONS), str(int(DELAY * 1000))])
    if values is None:
        return 1
    return finish(check(values))


if __name__ == "__main__":
    sys.exit(main())
