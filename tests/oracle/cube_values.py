#!/usr/bin/env python3
"""scalasca.json from a Cube report, read with Cube's own cube_dump (tests/oracle/build_cube.sh).

Prints {metric: {total, per_path: {call path: value}, per_path_rank: {call path: {rank: value}}}}
for every metric of the report: values inclusive along the metric tree and exclusive along the
call tree (as Cube shows a metric's own value on a call path), call paths as region names from
the root joined by '/', ranks as their location group's rank. This is the layout of the
scalasca.json files of tests/data/reference, read here by a reader that is not Waitscope's.
Zeros are left out (a call path or rank that is absent holds 0): --all keeps them.

  cube_values.py [--all] trace.cubex > scalasca.json   (cube_dump from PATH, or $CUBE_DUMP)
"""

import csv
import io
import json
import os
import re
import subprocess
import sys

CNODE = re.compile(r"^(?P<prefix>(?:\|?  )*)(?:\|-)?(?P<name>.*?)  \[ \( id=(?P<id>\d+),")
GROUP = re.compile(r"\|-.* \(id=(?P<id>\d+), type=(?P<type>[a-z ]+), rank=(?P<rank>\d+) \)$")
LOCATION = re.compile(r"\|-.* \(id=(?P<id>\d+), type=(?P<type>[a-z ]+), rank=(?P<rank>\d+)\)$")


def dump(arguments):
    command = [os.environ.get("CUBE_DUMP", "cube_dump")] + arguments
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        sys.exit("cube_values.py: '%s' failed: %s" % (" ".join(command), result.stderr.strip()))
    return result.stdout


def structure(cube):
    """{cnode id: call path} and {location id: rank} from cube_dump -w."""
    paths, ranks = {}, {}
    section = None
    stack = []  # the call path's names, one per level
    group_rank = None
    for line in dump(["-w", cube]).splitlines():
        if "CALL TREE" in line:
            section = "calltree"
            continue
        if "SYSTEM DIMENSION" in line or "SYSTEM TREE" in line:
            section = "system"
            continue
        if line.startswith(" ----") or line.startswith(" ===="):
            section = None if section == "calltree" else section
            continue
        if section == "calltree":
            match = CNODE.match(line)
            if not match:
                continue
            prefix = match.group("prefix")
            level = len(re.findall(r"\|?  ", prefix)) if line[len(prefix):].startswith("|-") else 0
            del stack[level:]
            stack.append(match.group("name"))
            paths[int(match.group("id"))] = "/".join(stack)
        elif section == "system":
            group = GROUP.search(line)
            if group and group.group("type") == "process":
                group_rank = int(group.group("rank"))
                continue
            location = LOCATION.search(line)
            if location and group_rank is not None:
                ranks[int(location.group("id"))] = group_rank
    if not paths:
        sys.exit("cube_values.py: %s: no call tree in cube_dump -w" % cube)
    if not ranks:
        sys.exit("cube_values.py: %s: no locations in cube_dump -w" % cube)
    return paths, ranks


def main():
    arguments = [a for a in sys.argv[1:] if a != "--all"]
    if len(arguments) != 1:
        sys.exit("usage: cube_values.py [--all] REPORT.cubex")
    cube = arguments[0]
    keep_zeros = "--all" in sys.argv[1:]
    paths, ranks = structure(cube)
    table = dump(["-m", "all", "-x", "incl", "-z", "excl", "-c", "all", "-s", "csv2", cube])
    rows = csv.reader(io.StringIO(table))
    header = [column.strip() for column in next(rows)]
    if header[:2] != ["Cnode ID", "Thread ID"]:
        sys.exit("cube_values.py: %s: unexpected cube_dump columns %s" % (cube, header[:2]))
    metrics = header[2:]
    values = {m: {"total": 0.0, "per_path": {}, "per_path_rank": {}} for m in metrics}
    for row in rows:
        if not row:
            continue
        path = paths[int(row[0])]
        rank = str(ranks[int(row[1])])
        for metric, text in zip(metrics, row[2:]):
            value = float(text)
            if value == 0.0 and not keep_zeros:
                continue
            entry = values[metric]
            entry["total"] += value
            entry["per_path"][path] = entry["per_path"].get(path, 0.0) + value
            per_rank = entry["per_path_rank"].setdefault(path, {})
            per_rank[rank] = per_rank.get(rank, 0.0) + value
    json.dump(values, sys.stdout, indent=None, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
