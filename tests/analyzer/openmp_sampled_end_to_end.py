#!/usr/bin/env python3
"""End-to-end check of the call paths of OpenMP teams sampled without compiler instrumentation.

A small program (openmp_sampled.c here) built with plain `clang -fopenmp` (LLVM's libomp: OMPT)
runs under `mpirun -np 2` with 3 threads per rank, sampled (`WAITSCOPE_SAMPLING=true`, the
library preloaded), and is analyzed with `mpirun -np 2 waitscope-replay`. On every rank the
master and its workers must share each construct's call path, below the function that forked
the team: exactly `openmp_sampled/main/team_work/!$omp parallel @team_work` (the program, then
its path), the region's implicit barrier below it, and all the time in `spin` below the region's
`.omp_outlined.` (the runtime's frames left out). The workers' time on the master's MPI calls is
their idle time (omp_idle_threads), as Scalasca counts it. Exit status 0 on success.
"""
import os
import sys

from end_to_end import (Checker, arguments, build_with_mpi, finish, fresh_directory,
                        measure_and_replay, measured, read_dump)

THREADS = 3
SOURCE = r"""
#include <mpi.h>
#include <omp.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

__attribute__((noinline)) static void spin(double seconds) {
    const double end = now() + seconds;
    volatile double x = 0;
    while (now() < end)
        x += 1.0;
}

/* Thread i computes (i + 1) x 20 ms, then waits in the region's implicit barrier. */
__attribute__((noinline)) static void team_work(void) {
#pragma omp parallel
    spin(0.02 * (1 + omp_get_thread_num()));
}

int main(int argc, char** argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    for (int i = 0; i < 10; ++i) {
        team_work();
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
"""
PARALLEL = "openmp_sampled/main/team_work/!$omp parallel @team_work"


def check(values):
    c = Checker(values)
    for rank in (0, 1):
        locations = c.locations(rank)
        if len(locations) != THREADS:
            c.problems.append("rank %d has locations %s, expected %d" % (rank, locations, THREADS))
            continue
        for loc in locations:
            name = "rank %d %s" % (rank, loc or "main")
            paths = {p for (m, p, r, l) in c.values if m == "visits" and r == rank and l == loc}
            # Every OpenMP construct below the one path of the region, on every thread.
            regions = sorted(p for p in paths if p.split("/")[-1].startswith("!$omp parallel"))
            barriers = sorted(p for p in paths
                              if p.split("/")[-1].startswith("!$omp implicit barrier"))
            ok = regions == [PARALLEL] and \
                barriers == [PARALLEL + "/!$omp implicit barrier @team_work"]
            print("%-60s %s" % (name + ": region and barrier paths", "ok" if ok else "FAIL"))
            if not ok:
                c.problems.append("%s: region paths %s, barrier paths %s" %
                                  (name, regions, barriers))
            visits = c.total("visits", rank, loc, last="!$omp parallel @team_work")
            c.exactly(name + ": visits of the parallel region", visits, 10)
            # The work: spin below the outlined function, the runtime's frames left out.
            spin = c.total("time", rank, loc, last="spin")
            below = sum(v for (m, p, r, l), v in c.values.items()
                        if m == "time" and r == rank and l == loc and
                        p.startswith(PARALLEL + "/.omp_outlined./spin"))
            c.near(name + ": time in spin below the region's outlined function", below, spin)
            c.at_least(name + ": time in spin", spin,
                       0.5 * 10 * 0.02 * (1 + (int(loc.split()[-1]) if loc else 0)))
            runtime = [p for p in paths if p.startswith(PARALLEL) and
                       any(f.startswith("__kmp") or f.startswith("libomp") for f in p.split("/"))]
            if runtime:
                c.problems.append("%s: runtime frames inside the region: %s" % (name, runtime))
        # Workers: none of their time on the master's MPI calls but idle time.
        for loc in locations:
            if not loc:
                continue
            on_mpi = c.total("time", rank, loc, last="MPI_Barrier")
            idle = c.total("omp_idle_threads", rank, loc, last="MPI_Barrier")
            c.near("rank %d %s: time on MPI_Barrier is idle time" % (rank, loc), on_mpi, idle)
    return c.problems


def main():
    args = arguments("library", "replay", "mpirun", "work").parse_args()
    work = fresh_directory(args.work)
    env = dict(os.environ)
    env.update({"OMP_NUM_THREADS": str(THREADS), "OMP_WAIT_POLICY": "passive",
                "WAITSCOPE_SAMPLING": "true", "WAITSCOPE_SAMPLING_FREQUENCY": "1000"})
    source = os.path.join(work, "openmp_sampled.c")
    with open(source, "w") as f:
        f.write(SOURCE)
    binary = os.path.join(work, "openmp_sampled")

    def steps():
        build_with_mpi(["clang"], ["-fopenmp", "-g", "-O1", "-fno-omit-frame-pointer"], [source],
                       binary, work, env)
        return measure_and_replay(args.mpirun, args.replay, [binary], "waitscope_openmp_sampled_2",
                                  work, env,
                                  exported=("OMP_NUM_THREADS", "OMP_WAIT_POLICY",
                                            "WAITSCOPE_SAMPLING", "WAITSCOPE_SAMPLING_FREQUENCY",
                                            "LD_PRELOAD=" + args.library))

    replayed = measured(steps)
    if replayed is None:
        return 1
    return finish(check(read_dump(replayed[1])))


if __name__ == "__main__":
    sys.exit(main())
