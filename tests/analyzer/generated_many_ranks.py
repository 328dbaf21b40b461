#!/usr/bin/env python3
"""A generated trace of 16 ranks, analyzed serially: the generator once wrote barrier entries
after the barrier's end from 10 ranks on (issue 22), which libotf2 refused.

usage: generated_many_ranks.py --generate GENERATOR --replay REPLAY --work DIR

16 ranks, 400 events per rank (66 iterations), a barrier every 4 iterations (17 barriers),
the odd ranks also reduce on a communicator of their own. Rank r arrives at each barrier
6 r ticks (1 ns) after the start, rank 15 last at 90: rank r waits 17 (90 - 6 r) ns in all. The
odd ranks arrive at each reduction r * 40 // 15 ticks after its start, the last at 40.
"""
import argparse
import pathlib
import shutil
import subprocess
import sys

RANKS = 16
BARRIERS = 17


def fail(message):
    print(f"error: {message}", file=sys.stderr)
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--generate", required=True)
    parser.add_argument("--replay", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    work = pathlib.Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    trace = work / "trace"
    generated = subprocess.run([args.generate, str(trace), str(RANKS), "400", "4", "derived"],
                               capture_output=True, text=True)
    if generated.returncode != 0 or generated.stderr:
        fail(f"the generator failed ({generated.returncode}): {generated.stderr}")
    if len(generated.stdout.splitlines()) != RANKS:
        fail(f"the generator wrote {generated.stdout!r}")
    dump = work / "dump.txt"
    replay = subprocess.run([args.replay, "--serial", "--quiet", "--output-dir", str(work),
                             "--dump-text", str(dump), str(trace)],
                            capture_output=True, text=True)
    if replay.returncode != 0:
        fail(f"waitscope-replay --serial failed ({replay.returncode}): {replay.stderr}")
    values = {}
    for line in dump.read_text().splitlines():
        fields = line.split("\t")
        if len(fields) == 4:
            values[(fields[0], fields[1], int(fields[2]))] = float(fields[3])

    def expect(metric, path, rank, expected, tolerance):
        got = values.get((metric, path, rank), 0.0)
        if abs(got - expected) > tolerance:
            fail(f"{metric} on {path} of rank {rank}: {got}, expected {expected}")

    for rank in range(RANKS):
        expect("visits", "main/MPI_Barrier", rank, BARRIERS, 0)
        expect("mpi_barrier_wait", "main/MPI_Barrier", rank,
               BARRIERS * (90 - 6 * rank) * 1e-9, 1e-12)
    for rank in range(1, RANKS, 2):
        expect("mpi_wait_nxn", "main/MPI_Allreduce", rank,
               BARRIERS * (40 - rank * 40 // 15) * 1e-9, 1e-12)
    print(f"{RANKS} ranks: barrier and reduction waits as generated")


if __name__ == "__main__":
    main()
