#!/usr/bin/env python3
"""Checks `waitscope export --hatchet` on a Scalasca reference report.

Loads the export with Hatchet's GraphFrame.from_literal where Hatchet is installed; always
checks it against what from_literal requires (the schema below, mirroring its reader) and
its values against the totals Scalasca printed (tests/data/reference/README.md).

from_literal requires: a JSON list of root nodes; every node an object with a "frame" object
(whose "name" is the node's name; its values hashable) and a "metrics" object (read on every
node, so never absent; "node" and "name" are its own dataframe columns, so no metric may be
called so), "children" a list when present. It takes the metric columns from one root's keys
("... (inc)" inclusive, the others exclusive), so every node must have the same keys.

Usage: hatchet_export_check.py WAITSCOPE REPORT WORK_DIR METRIC=TOTAL...
"""
import json
import math
import os
import subprocess
import sys

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def nodes(roots):
    stack = list(roots)
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.get("children", []))


def check_schema(roots, name):
    check(isinstance(roots, list) and roots, name + ": not a non-empty list of roots")
    keys = None
    for node in nodes(roots):
        check(isinstance(node, dict), name + ": a node is not an object")
        frame = node.get("frame")
        check(isinstance(frame, dict) and isinstance(frame.get("name"), str) and frame["name"],
              name + ": a node without frame.name")
        check(all(isinstance(v, (str, int, float)) for v in frame.values()),
              name + ": a frame value is not hashable")
        metrics = node.get("metrics")
        check(isinstance(metrics, dict), name + ": a node without metrics")
        check(all(v is None or isinstance(v, (int, float)) for v in metrics.values()),
              name + ": a metric value is not a number")
        check("node" not in metrics and "name" not in metrics,
              name + ": a metric named like a dataframe column")
        check(isinstance(node.get("children", []), list), name + ": children is not a list")
        keys = keys or set(metrics)
        check(set(metrics) == keys, name + ": nodes with different metric keys")
    return keys


def inclusive_consistent(node, metric):
    """Inclusive = exclusive + the children's inclusive, at every node."""
    ok = True
    children = node.get("children", [])
    expected = node["metrics"][metric] + sum(c["metrics"][metric + " (inc)"] for c in children)
    got = node["metrics"][metric + " (inc)"]
    if not math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-9):
        failures.append("%s (inc) at %s: %r, expected %r" % (metric, node["frame"]["name"],
                                                           got, expected))
        ok = False
    return all([ok] + [inclusive_consistent(c, metric) for c in children])


def main():
    waitscope, report, work = sys.argv[1:4]
    expected = dict(arg.split("=") for arg in sys.argv[4:])
    os.makedirs(work, exist_ok=True)
    plain = os.path.join(work, "export.json")
    ranked = os.path.join(work, "export_ranks.json")
    subprocess.run([waitscope, "export", "--hatchet", plain, report], check=True)
    subprocess.run([waitscope, "export", "--hatchet", ranked, "--per-rank", report], check=True)
    roots = json.load(open(plain))
    keys = check_schema(roots, plain)
    for metric, total in expected.items():
        check(metric in keys and metric + " (inc)" in keys, "%s: no %s columns" % (plain, metric))
        if metric not in keys:
            continue
        exclusive = sum(n["metrics"][metric] for n in nodes(roots))
        inclusive = sum(r["metrics"][metric + " (inc)"] for r in roots)
        check(abs(exclusive - float(total)) < 1e-4,
              "%s: %s sums to %r, Scalasca printed %s" % (plain, metric, exclusive, total))
        check(math.isclose(exclusive, inclusive, rel_tol=1e-9),
              "%s: %s exclusive sum %r, roots' inclusive %r" % (plain, metric, exclusive,
                                                               inclusive))
        for root in roots:
            inclusive_consistent(root, metric)
    # Per rank: the rank columns of a metric add up to its column, at every call path.
    ranked_roots = json.load(open(ranked))
    ranked_keys = check_schema(ranked_roots, ranked)
    for metric in expected:
        columns = [k for k in ranked_keys if k.startswith(metric + " [rank ")]
        check(len(columns) == 4, "%s: %d rank columns of %s, expected 4" % (ranked, len(columns),
                                                                          metric))
        for node in nodes(ranked_roots):
            got = sum(node["metrics"][c] for c in columns)
            check(math.isclose(got, node["metrics"][metric], rel_tol=1e-9, abs_tol=1e-12),
                  "%s: %s ranks add to %r at %s" % (ranked, metric, got, node["frame"]["name"]))
    try:
        import hatchet  # noqa: F401 (optional: not a Debian package)
    except ImportError:
        print("hatchet is not installed here: checked the schema from_literal requires")
    else:
        frame = hatchet.GraphFrame.from_literal(roots)
        for metric, total in expected.items():
            check(abs(frame.dataframe[metric].sum() - float(total)) < 1e-4,
                  "hatchet: %s sums to %r" % (metric, frame.dataframe[metric].sum()))
            check(metric + " (inc)" in frame.inc_metrics, "hatchet: %s (inc) not inclusive"
                  % metric)
    for failure in failures[:20]:
        print("FAIL:", failure)
    if not failures:
        print("the Hatchet export of %s holds %s" % (report, ", ".join(sys.argv[4:])))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
