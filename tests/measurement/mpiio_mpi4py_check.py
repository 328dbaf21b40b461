#!/usr/bin/env python3
"""MPI-IO through a library nobody here wrote (mpi4py's MPI.File), end to end: the measurement
records rank 0's collective writes as OTF2 I/O operations whose bytes add up to the file's size,
the analysis finds the other ranks' Wait at Collective I/O, and the summary says that rank 0
writes alone while the others wait.

  mpiio_mpi4py_check.py --python P --library libwaitscope.so --replay R --examine E
                        --otf2-print O --mpirun M --program mpi4py_rank0_writes.py --work DIR
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys

RANKS = 4
MEGABYTES = 2
SECONDS = 0.4
ITERATIONS = 2


def run(command, cwd, env):
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=300)
    if result.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(command), result.returncode,
                                                   (result.stdout + result.stderr)[-3000:]))
    return result.stdout


def main():
    parser = argparse.ArgumentParser()
    for option in ("python", "library", "replay", "examine", "otf2_print", "mpirun", "program",
                   "work"):
        parser.add_argument("--" + option.replace("_", "-"), required=True)
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    experiment = os.path.join(args.work, "exp")
    output = run([args.mpirun, "-np", str(RANKS), "--oversubscribe",
                  "-x", "LD_PRELOAD=" + args.library,
                  "-x", "WAITSCOPE_EXPERIMENT_DIRECTORY=" + experiment,
                  args.python, args.program, os.path.join(args.work, "checkpoint.dat"),
                  str(MEGABYTES), str(SECONDS), str(ITERATIONS)], args.work, env)
    problems = []
    size = int(re.search(r"file size (\d+)", output).group(1))
    expected_size = ITERATIONS * MEGABYTES * 1000000
    if size != expected_size:
        problems.append("the program wrote %d bytes, not %d" % (size, expected_size))

    # The trace: every rank opens and closes the file once and writes ITERATIONS times
    # collectively; the completed bytes add up to the file's size, all of them rank 0's.
    events = run([args.otf2_print, os.path.join(experiment, "traces.otf2")], args.work, env)
    counts = collections.Counter()
    written = collections.Counter()
    for line in events.splitlines():
        fields = line.split()
        if len(fields) < 3 or not fields[0].startswith("IO_"):
            continue
        rank = int(fields[1])
        counts[(fields[0], rank)] += 1
        match = re.search(r"Bytes Result: (\d+)", line)
        if match:
            written[rank] += int(match.group(1))
    for rank in range(RANKS):
        for record, expected in (("IO_CREATE_HANDLE", 1), ("IO_DESTROY_HANDLE", 1),
                                 ("IO_OPERATION_BEGIN", ITERATIONS),
                                 ("IO_OPERATION_COMPLETE", ITERATIONS)):
            if counts[(record, rank)] != expected:
                problems.append("rank %d: %d %s records, expected %d" % (
                    rank, counts[(record, rank)], record, expected))
    if written[0] != size or sum(written.values()) != size:
        problems.append("bytes written in the trace %s, the file holds %d" % (dict(written), size))

    # The analysis: io_bytes_written equals the file's size; ranks 1-3 wait for rank 0.
    dump = os.path.join(args.work, "values.txt")
    run([args.mpirun, "-np", str(RANKS), "--oversubscribe", args.replay, "--quiet",
         "--dump-text", dump, experiment], args.work, env)
    bytes_metric = 0.0
    waits = collections.Counter()
    for line in open(dump):
        metric, path, rank, value = line.rstrip("\n").split("\t")
        if metric == "io_bytes_written":
            bytes_metric += float(value)
        elif metric == "mpi_io_wait_collective" and path.endswith("MPI_File_write_at_all"):
            waits[int(rank)] += float(value)
    if bytes_metric != size:
        problems.append("io_bytes_written is %g, the file holds %d" % (bytes_metric, size))
    injected = ITERATIONS * SECONDS
    for rank in range(1, RANKS):
        if abs(waits[rank] - injected) > 0.25 * injected:
            problems.append("rank %d waits %.3f s at collective I/O, expected about %.3f s" % (
                rank, waits[rank], injected))
    summary = " ".join(run([args.examine, experiment, "--text"], args.work, env).split())
    sentence = "rank 0 writes %.1f MB alone while %d ranks wait at collective I/O" % (
        size / 1e6, RANKS - 1)
    if sentence not in summary:
        problems.append("the summary does not say '%s': %s" % (sentence, summary[-1500:]))
    for problem in problems:
        print("FAILED: " + problem)
    print("checked: file %d bytes, waits %s" % (size, dict(waits)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
