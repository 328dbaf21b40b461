#!/usr/bin/env python3
"""Loads `waitscope export --hatchet` with Hatchet itself and checks every value against
`waitscope report --csv` (on demand: not in ctest, since Hatchet is no Debian package and CI
cannot fetch it).

For each report given: exports it (plain and --per-rank), loads both with
hatchet.GraphFrame.from_literal, and checks
- every metric of `waitscope report --csv` has an exclusive and an "(inc)" column, Hatchet takes
  the "(inc)" ones as its inclusive metrics, and the exclusive column sums to the total;
- per call path, every metric's exclusive and inclusive value equals `waitscope report --csv top`
  (--exclusive and --inclusive) for that path;
- Hatchet's own inclusive sums (GraphFrame.update_inclusive_columns over the exclusive columns)
  equal the exported "(inc)" columns (except for metrics that aggregate by minimum or maximum,
  as Score-P's min_time and max_time: Hatchet only sums, so they are checked per call path);
- per rank, the "METRIC [rank R]" columns of the wait states and of time equal
  `waitscope report --csv ranks` at every call path;
- Hatchet's tree rendering and a filter-and-squash on Late Sender work on the frame.
It prints one line per report with the number of values compared, and every mismatch.

Setting up Hatchet from its sources with Debian packages only (Debian 12):
    apt-get install python3-pandas python3-numpy python3-multiprocess python3-pydot \\
        python3-matplotlib cython3 python3-dev
    # Hatchet (github.com/LLNL/hatchet) and its query parser textX with Arpeggio
    # (github.com/textX/textX, github.com/textX/Arpeggio), e.g. in /work/thirdparty
The script builds Hatchet's Cython extensions in place (setup.py build_ext --inplace) when they
are missing, and gives textX and Arpeggio the package metadata they look up at import (a source
checkout has none). Use Debian's /usr/bin/python3 (where the packages are):

Usage: /usr/bin/python3 hatchet_loads_export.py --hatchet DIR --textx DIR --arpeggio DIR
           WAITSCOPE REPORT_OR_EXPERIMENT...
"""
import argparse
import csv
import io
import json
import math
import os
import re
import subprocess
import sys
import tempfile


def prepare_imports(args):
    """Puts the checkouts on sys.path, with what importing them from source needs."""
    for name, path in (("Arpeggio", args.arpeggio), ("textX", args.textx)):
        pyproject = open(os.path.join(path, "pyproject.toml")).read()
        version = re.search(r'^version\s*=\s*"([^"]+)"', pyproject, re.M).group(1)
        info = os.path.join(path, "%s-%s.dist-info" % (name, version))
        if not os.path.isdir(info):
            os.makedirs(info)
            with open(os.path.join(info, "METADATA"), "w") as out:
                out.write("Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, version))
        sys.path.insert(0, path)
    libs = os.path.join(args.hatchet, "hatchet", "cython_modules", "libs")
    if not any(f.endswith(".so") for f in os.listdir(libs)):
        subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=args.hatchet,
                       check=True, stdout=subprocess.DEVNULL)
    sys.path.insert(0, args.hatchet)


def read_csv(waitscope, *arguments):
    out = subprocess.run([waitscope, "report", "--csv", *arguments], check=True,
                         capture_output=True, text=True).stdout
    return list(csv.DictReader(io.StringIO(out)))


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


class Checker:
    def __init__(self, waitscope, report):
        self.waitscope = waitscope
        self.report = report
        self.failures = []
        self.compared = 0

    def expect(self, got, want, what):
        self.compared += 1
        if not close(got, want):
            self.failures.append("%s: hatchet %r, waitscope report %r" % (what, got, want))


def call_path(node):
    return "/".join(n.frame["name"] for n in node.path())


def check_report(hatchet, waitscope, report, work):
    checker = Checker(waitscope, report)
    plain = os.path.join(work, "plain.json")
    ranked = os.path.join(work, "ranked.json")
    subprocess.run([waitscope, "export", "--hatchet", plain, report], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run([waitscope, "export", "--hatchet", ranked, "--per-rank", report], check=True,
                   stdout=subprocess.DEVNULL)
    frame = hatchet.GraphFrame.from_literal(json.load(open(plain)))
    data = frame.dataframe
    paths = {call_path(node): node for node in data.index}
    checker.expect(len(paths), len(data.index), "distinct call paths")

    totals = {row["metric"]: float(row["total"]) for row in read_csv(waitscope, report)}
    exported = [m for m in totals if m in data.columns]
    missing = [m for m in totals if m not in data.columns]
    # Derived metrics are left out of the export (their values are not sums over call paths).
    if missing:
        print("  not exported (derived): %d metrics, e.g. %s" % (len(missing),
                                                                 ", ".join(missing[:4])))
    # Metrics that aggregate by minimum or maximum (Score-P's min_time, max_time): their
    # total is the smallest or largest value, not the sum. Hatchet knows only sums: its own
    # inclusive columns (update_inclusive_columns, squash) are sums for them too, so they are
    # compared per call path only.
    extremes = [m for m in exported if not close(float(data[m].sum()), totals[m]) and
                (close(float(data[m].min()), totals[m]) or close(float(data[m].max()), totals[m]))]
    if extremes:
        print("  aggregated by min/max (Hatchet's sums do not apply): " + ", ".join(extremes))
    for metric in exported:
        if metric + " (inc)" not in frame.inc_metrics:
            checker.failures.append("%s (inc) is not among Hatchet's inclusive metrics" % metric)
        if metric not in frame.exc_metrics:
            checker.failures.append("%s is not among Hatchet's exclusive metrics" % metric)
        if metric not in extremes:
            checker.expect(float(data[metric].sum()), totals[metric], "total of " + metric)
        for mode, column in (("--exclusive", metric), ("--inclusive", metric + " (inc)")):
            for row in read_csv(waitscope, mode, "top", report, metric, "-n", "100000"):
                node = paths.get(row["call_path"])
                if node is None:
                    checker.failures.append("no call path %s in Hatchet" % row["call_path"])
                    continue
                checker.expect(float(data.loc[node, column]), float(row["value"]),
                               "%s at %s" % (column, row["call_path"]))

    # Hatchet's own inclusive sums over the tree equal ours.
    recomputed = frame.deepcopy()
    recomputed.update_inclusive_columns()
    for metric in (m for m in exported if m not in extremes):
        for node in data.index:
            checker.expect(float(recomputed.dataframe.loc[node, metric + " (inc)"]),
                           float(data.loc[node, metric + " (inc)"]),
                           "Hatchet's inclusive %s at %s" % (metric, call_path(node)))

    # Per rank: time and the wait states with a value.
    ranked_frame = hatchet.GraphFrame.from_literal(json.load(open(ranked)))
    ranked_data = ranked_frame.dataframe
    ranked_paths = {call_path(node): node for node in ranked_data.index}
    waits = [m for m in exported if m == "time" or (m.startswith("mpi_") and totals[m] > 0)]
    for metric in waits:
        for path, node in ranked_paths.items():
            for row in read_csv(waitscope, "ranks", report, metric, path):
                column = "%s [rank %s]" % (metric, row["rank"])
                if column not in ranked_data.columns:
                    checker.failures.append("no column " + column)
                    continue
                checker.expect(float(ranked_data.loc[node, column]), float(row["value"]),
                               "%s at %s" % (column, path))

    # What a Hatchet user does next: render the tree, keep the call paths that wait.
    rendered = frame.tree(metric_column="time (inc)")
    if "time" not in rendered and not rendered.strip():
        checker.failures.append("Hatchet rendered an empty tree")
    if "mpi_latesender" in exported and totals["mpi_latesender"] > 0:
        waiting = frame.filter(lambda row: row["mpi_latesender"] > 0).squash()
        checker.expect(float(waiting.dataframe["mpi_latesender"].sum()),
                       totals["mpi_latesender"], "Late Sender after filter and squash")
    return checker


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hatchet", required=True, help="Hatchet's source checkout")
    parser.add_argument("--textx", required=True, help="textX's source checkout")
    parser.add_argument("--arpeggio", required=True, help="Arpeggio's source checkout")
    parser.add_argument("waitscope", help="the waitscope driver")
    parser.add_argument("reports", nargs="+", help="reports or experiment directories")
    args = parser.parse_args()
    prepare_imports(args)
    import hatchet
    print("hatchet %s from %s, pandas %s" % (hatchet.__version__, args.hatchet,
                                              __import__("pandas").__version__))
    failed = 0
    for report in args.reports:
        with tempfile.TemporaryDirectory() as work:
            checker = check_report(hatchet, args.waitscope, report, work)
        print("%s: %d values compared, %d differ" % (report, checker.compared,
                                                      len(checker.failures)))
        for failure in checker.failures[:20]:
            print("  FAIL:", failure)
        failed += 1 if checker.failures else 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
