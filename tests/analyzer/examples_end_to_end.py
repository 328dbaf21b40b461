#!/usr/bin/env python3
"""End-to-end check of the analyzer on the share/examples programs.

Each example is compiled with `waitscope-instrument mpicc`, run with mpirun under the
measurement, and its experiment analyzed with `mpirun -np 4 waitscope-replay`. Every
injected wait listed in expected.txt must be found on its call path and ranks within
10 % of its size, and no rank/call path may show more than a tenth of it where nothing
was injected. Exit status 0 on success; every failure is printed.
"""
import collections
import os
import subprocess
import sys

from end_to_end import CommandFailed, arguments, fresh_directory, measure_and_replay, run

PATTERNS = ["mpi_latesender", "mpi_latereceiver", "mpi_barrier_wait", "mpi_wait_nxn",
            "mpi_latebroadcast", "mpi_earlyreduce", "mpi_earlyscan",
            "mpi_rma_sync_wait_for_progress", "mpi_rma_comm_wait_for_progress"]
FLAGS = ["-g", "-O1", "-fno-inline-functions-called-once", "-fno-inline-small-functions",
         "-fno-optimize-sibling-calls", "-fno-omit-frame-pointer", "-D_POSIX_C_SOURCE=200809L"]


def parse_expected(path):
    records = []
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = line.split()
        keys = dict(f.split("=", 1) for f in fields[3:])
        record = {"program": fields[0], "metric": fields[1], "path": fields[2],
                  "ranks": [int(r) for r in keys["ranks"].split(",")]}
        # An exact count (count_per_rank) or an injected wait (seconds_per_rank, within 10 %).
        if "count_per_rank" in keys:
            record["count"] = float(keys["count_per_rank"])
        else:
            record["seconds"] = float(keys["seconds_per_rank"])
        records.append(record)
    return records


def read_dump(path):
    values = collections.defaultdict(float)  # (metric, path without program root, rank) -> value
    for line in open(path):
        metric, call_path, rank, value = line.rstrip("\n").split("\t")
        if metric == "diagnostic":
            continue
        # Drop the program's root frame, so paths read "main/..." as in expected.txt.
        parts = call_path.split("/")
        if len(parts) > 1 and parts[1] == "main":
            call_path = "/".join(parts[1:])
        values[(metric, call_path, int(rank))] += float(value)
    return values


def subtree_value(values, metric, path, rank):
    """The value on `path`, or with a trailing '/*' the sum over the path and its callees."""
    if not path.endswith("/*"):
        return values.get((metric, path, rank), 0.0)
    root = path[:-2]
    return sum(v for (m, p, r), v in values.items()
               if m == metric and r == rank and (p == root or p.startswith(root + "/")))


def check_program(program, records, args, env):
    """Builds, runs and analyzes one example; returns what disagrees with expected.txt."""
    problems = []
    work = fresh_directory(os.path.join(args.work, program))
    binary = os.path.join(work, "example_" + program)
    try:
        run([args.instrument, "mpicc"] + FLAGS + ["-I", args.examples,
             os.path.join(args.examples, program + ".c"), "-o", binary], work, env)
        _, dump = measure_and_replay(args.mpirun, args.replay, [binary],
                                     "waitscope_example_%s_4" % program, work, env, ranks=4)
    except (CommandFailed, subprocess.TimeoutExpired) as error:
        problems.append("%s: %s" % (program, error))
        return problems
    values = read_dump(dump)
    injected = set()
    for r in records:
        for rank in r["ranks"]:
            got = subtree_value(values, r["metric"], r["path"], rank)
            injected.add((r["metric"], r["path"], rank))
            if "count" in r:
                status = "ok" if got == r["count"] else "FAIL"
                print("%-15s %-18s %-40s rank %d: %g (expected %g) %s" % (
                    program, r["metric"], r["path"], rank, got, r["count"], status))
                if status != "ok":
                    problems.append("%s: %s at %s rank %d is %g, expected exactly %g" % (
                        program, r["metric"], r["path"], rank, got, r["count"]))
                continue
            deviation = abs(got - r["seconds"]) / r["seconds"]
            status = "ok" if deviation <= 0.10 else "FAIL"
            print("%-15s %-18s %-40s rank %d: %.4f s (expected %.4f, %+.1f %%) %s" % (
                program, r["metric"], r["path"], rank, got, r["seconds"],
                100 * (got - r["seconds"]) / r["seconds"], status))
            if status != "ok":
                problems.append("%s: %s at %s rank %d is %.4f s, expected %.4f s" % (
                    program, r["metric"], r["path"], rank, got, r["seconds"]))
    smallest = min((r["seconds"] for r in records if "seconds" in r), default=0.0)
    subtrees = [(m, p[:-1], r) for (m, p, r) in injected if p.endswith("/*")]
    for (metric, call_path, rank), value in sorted(values.items()):
        if any(m == metric and r == rank and call_path.startswith(p) for (m, p, r) in subtrees):
            continue
        if metric in PATTERNS and (metric, call_path, rank) not in injected and value > 0.1 * smallest:
            problems.append("%s: %s at %s rank %d is %.4f s where nothing was injected" % (
                program, metric, call_path, rank, value))
    return problems


def main():
    parser = arguments("instrument", "replay", "mpirun", "examples", "work")
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args()

    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_osc="sm,pt2pt")
    expected = [r for r in parse_expected(os.path.join(args.examples, "expected.txt"))
                if os.path.exists(os.path.join(args.examples, r["program"] + ".c"))
                and (args.only is None or r["program"] in args.only)]
    failures = []
    by_program = collections.OrderedDict()
    for record in expected:
        by_program.setdefault(record["program"], []).append(record)
    for program, records in by_program.items():
        problems = check_program(program, records, args, env)
        if problems:
            # The injected waits are wall-clock busy loops of 4 ranks on few cores: a busy
            # machine can stretch one of them. A second run must then agree.
            print("%s: %d value(s) off, measuring once more: %s" % (program, len(problems),
                                                                     "; ".join(problems)))
            problems = check_program(program, records, args, env)
        failures.extend(problems)
    for failure in failures:
        print("FAILED: " + failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
