#!/usr/bin/env python3
"""The Chrome trace export holds exactly the trace: one complete event per region visit and per
program (the timeline's outermost visit), and one flow per message (counted against otf2-print of
the same trace; these traces have no samples, whose call paths would be visits too), every flow from a send to its
receive, and every wait-state instance of the analysis as a slice inside its MPI call."""
import collections
import json
import os
import subprocess
import sys

from export_check import analyzed_reference, check, otf2_counts, run_on_references


def check_trace(args, name):
    trace, work, instances_file = analyzed_reference(args, name)
    out = os.path.join(work, "trace.json")
    subprocess.run([args.export, "--chrome-trace", out, "--instances", instances_file, "--quiet",
                    trace], check=True)
    with open(out) as f:
        events = json.load(f)["traceEvents"]
    expected = otf2_counts(args.otf2_print, os.path.join(trace, "traces.otf2"))

    visits = [e for e in events if e["ph"] == "X" and e["cat"] != "wait state"]
    waits = [e for e in events if e["ph"] == "X" and e["cat"] == "wait state"]
    starts = {e["id"]: e for e in events if e["ph"] == "s"}
    ends = {e["id"]: e for e in events if e["ph"] == "f"}
    check(len(visits) == expected["ENTER"] + expected["PROGRAM_BEGIN"]
          and expected["ENTER"] == expected["LEAVE"],
          f"{name}: {len(visits)} visits, otf2-print has {expected['ENTER']} enters and "
          f"{expected['PROGRAM_BEGIN']} program begins")
    sends = expected["MPI_SEND"] + expected["MPI_ISEND"]
    receives = expected["MPI_RECV"] + expected["MPI_IRECV"]
    check(sends > 0 or name.startswith("wait_"), f"{name}: the trace has no messages")
    check(len(starts) == sends == sum(e["ph"] == "s" for e in events),
          f"{name}: {len(starts)} flow starts, otf2-print has {sends} sends")
    check(len(ends) == receives == sum(e["ph"] == "f" for e in events),
          f"{name}: {len(ends)} flow ends, otf2-print has {receives} receives")
    check(starts.keys() == ends.keys(), f"{name}: flows without both ends")
    for flow, start in starts.items():
        end = ends.get(flow)
        if end is None:
            continue
        check(start["pid"] != end["pid"], f"{name}: flow {flow} stays on rank {start['pid']}")
        check(end["ts"] >= start["ts"], f"{name}: flow {flow} points backwards")

    # Region visits nest on every thread (what Perfetto requires of complete events).
    by_thread = collections.defaultdict(list)
    for e in visits:
        by_thread[(e["pid"], e["tid"])].append(e)
    for thread, slices in by_thread.items():
        slices.sort(key=lambda e: (e["ts"], -e["dur"]))
        stack = []
        for e in slices:
            while stack and stack[-1] <= e["ts"]:
                stack.pop()
            end = e["ts"] + e["dur"]
            check(not stack or end <= stack[-1] + 1e-3, f"{name}: {thread}: slices overlap")
            stack.append(end)

    # One slice per instance; its duration is the severity; it lies inside an MPI call (to the
    # nanosecond: instances are written in seconds to nine places, the calls converted from
    # clock ticks).
    lines = [l.split() for l in open(instances_file) if not l.startswith("#")]
    check(len(waits) == len(lines) > 0, f"{name}: {len(waits)} wait-state slices, "
          f"{len(lines)} instances")
    total = sum(float(l[5]) for l in lines) * 1e6
    check(abs(sum(e["dur"] for e in waits) - total) <= 2e-3 * len(lines),
          f"{name}: wait-state slices last {sum(e['dur'] for e in waits)} us, instances {total}")
    for w in waits:
        inside = [v for v in by_thread[(w["pid"], 0)] if v["cat"].startswith("mpi")
                  and v["ts"] - 2.5e-3 <= w["ts"]
                  and w["ts"] + w["dur"] <= v["ts"] + v["dur"] + 2.5e-3]
        check(inside, f"{name}: wait state {w['name']} at {w['ts']} on rank {w['pid']} is in no "
              "MPI call")


if __name__ == "__main__":
    sys.exit(run_on_references(check_trace, ("late_sender", "nb_late_sender", "late_receiver",
                                             "wait_nxn", "wait_at_barrier"),
                               "chrome trace export checked on 5 reference traces"))
