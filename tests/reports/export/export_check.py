"""What the export checks share: the failure list, otf2-print's event counts of a trace, running
the serial analysis on a reference trace before exporting it, and the checks' command line."""
import argparse
import collections
import os
import subprocess

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def otf2_counts(otf2_print, anchor):
    """How many records of each kind (ENTER, LEAVE, MPI_SEND, ...) otf2-print lists."""
    counts = collections.Counter()
    text = subprocess.run([otf2_print, anchor], check=True, capture_output=True, text=True).stdout
    for line in text.splitlines():
        parts = line.split()
        if parts:
            counts[parts[0]] += 1
    return counts


def analyzed_reference(args, name):
    """The reference trace `name`, analyzed serially into its own work folder: (the trace
    folder, the work folder, its instances.txt)."""
    trace = os.path.join(args.references, name, "trace")
    work = os.path.join(args.work, name)
    os.makedirs(work, exist_ok=True)
    subprocess.run([args.replay, "--serial", "--quiet", "--output-dir", work, trace], check=True)
    return trace, work, os.path.join(work, "instances.txt")


def run_on_references(check_trace, names, passed):
    """Parses the checks' options, runs `check_trace(args, name)` for every reference trace in
    `names`, prints the failures (or `passed`) and returns the exit code."""
    parser = argparse.ArgumentParser()
    for option in ("--replay", "--export", "--otf2-print", "--references", "--work"):
        parser.add_argument(option, required=True)
    args = parser.parse_args()
    for name in names:
        check_trace(args, name)
    for failure in failures:
        print("FAIL:", failure)
    print(passed if not failures else f"{len(failures)} failures")
    return 1 if failures else 0
