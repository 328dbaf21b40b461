#!/usr/bin/env python3
"""waitscope export reads the wait-state instances from instances.bin a block at a time, and
from instances.txt in an older experiment that has only the text file: on a generated trace with
instances over several blocks of instances.bin, an experiment holding only instances.bin and one
holding only instances.txt export to the same bytes (Chrome trace and Perfetto), with one
wait-state slice per instance.

usage: instances_format_check.py GENERATOR REPLAY EXPORT WORK"""
import json
import os
import shutil
import subprocess
import sys

# Records per block of instances.bin (InstanceFile::kBlockRecords).
BLOCK_RECORDS = 4096


def main():
    generator, replay, export, work = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    analyzed = os.path.join(work, "analyzed")
    subprocess.run([generator, analyzed, "4", "40000", "4"], check=True, capture_output=True)
    subprocess.run([replay, "--serial", "--quiet", "--no-root-cause", "--no-timeline", analyzed],
                   check=True)
    with open(os.path.join(analyzed, "instances.txt")) as f:
        instances = sum(1 for line in f if not line.startswith("#"))
    failures = []
    if instances <= 2 * BLOCK_RECORDS:
        failures.append(f"{instances} instances: fewer than three blocks, the check cannot fail")
    outputs = {}
    for kept in ("instances.bin", "instances.txt"):
        experiment = os.path.join(work, "only_" + kept.replace(".", "_"))
        os.makedirs(experiment)
        for name in ("traces.otf2", "traces.def", kept):
            shutil.copy(os.path.join(analyzed, name), experiment)
        shutil.copytree(os.path.join(analyzed, "traces"), os.path.join(experiment, "traces"))
        chrome, perfetto = experiment + ".json", experiment + ".pftrace"
        subprocess.run([export, "--chrome-trace", chrome, "--quiet", experiment], check=True)
        subprocess.run([export, "--perfetto", perfetto, "--quiet", experiment], check=True)
        with open(chrome) as f:
            waits = sum(1 for e in json.load(f)["traceEvents"]
                        if e["ph"] == "X" and e["cat"] == "wait state")
        if waits != instances:
            failures.append(f"{kept}: {waits} wait-state slices, {instances} instances")
        with open(chrome, "rb") as c, open(perfetto, "rb") as p:
            outputs[kept] = (c.read(), p.read())
    if outputs["instances.bin"][0] != outputs["instances.txt"][0]:
        failures.append("the Chrome traces from instances.bin and instances.txt differ")
    if outputs["instances.bin"][1] != outputs["instances.txt"][1]:
        failures.append("the Perfetto traces from instances.bin and instances.txt differ")
    for failure in failures:
        print("FAIL:", failure)
    print(f"{instances} instances exported alike from instances.bin and instances.txt"
          if not failures else f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
