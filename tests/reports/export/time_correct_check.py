#!/usr/bin/env python3
"""waitscope export --time-correct: on a generated trace whose even ranks' clocks run ahead (its
receives seem to come before their sends), the Chrome trace has message arrows pointing
backwards; corrected, none does, and every region visit and message is still there.

usage: time_correct_check.py GENERATOR EXPORT WORK"""
import json
import os
import subprocess
import sys


def arrows(path):
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    starts = {e["id"]: e["ts"] for e in events if e["ph"] == "s"}
    ends = {e["id"]: e["ts"] for e in events if e["ph"] == "f"}
    paired = set(starts) & set(ends)
    backwards = sum(1 for i in paired if ends[i] < starts[i])
    visits = sum(1 for e in events if e["ph"] == "X")
    return len(paired), backwards, visits


def main():
    generator, export, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    trace = os.path.join(work, "skewed")
    subprocess.run([generator, trace, "4", "4000", "4", "offset=300"], check=True,
                   capture_output=True)
    plain, corrected = os.path.join(work, "plain.json"), os.path.join(work, "corrected.json")
    subprocess.run([export, "--chrome-trace", plain, "--quiet", trace], check=True)
    subprocess.run([export, "--chrome-trace", corrected, "--time-correct", "--quiet", trace],
                   check=True)
    flows, backwards, visits = arrows(plain)
    flows_corrected, backwards_corrected, visits_corrected = arrows(corrected)
    print(f"plain: {flows} arrows, {backwards} backwards; corrected: {flows_corrected} arrows, "
          f"{backwards_corrected} backwards")
    failures = []
    if backwards == 0:
        failures.append("the skewed trace shows no backward arrow: the check cannot fail")
    if backwards_corrected != 0:
        failures.append(f"{backwards_corrected} arrows still point backwards when corrected")
    if (flows_corrected, visits_corrected) != (flows, visits):
        failures.append(f"corrected: {flows_corrected} arrows and {visits_corrected} visits, "
                        f"plain {flows} and {visits}")
    for failure in failures:
        print("FAIL:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
