#!/usr/bin/env python3
"""The differential oracle: Scalasca 2.6's SCOUT and waitscope-replay on the same OTF2 trace.

Runs `mpirun -np N scout.mpi` and `mpirun -np N waitscope-replay` on one trace (ours or
Score-P's), reads both reports with `waitscope-export --hatchet --per-rank` and prints every
metric x call path x rank that differs: counts exactly, times by more than 1 % or 1 ms. Call
paths are matched by their region names. Only metrics both reports hold are compared.

  compare.py [options] TRACE            TRACE: traces.otf2 or the directory holding it
  compare.py --scalasca S.cubex --ours O.cubex    compare two finished reports

When Cube's tools are installed (tests/oracle/build_cube.sh, $CUBE_PREFIX, default
/work/oracle/cube-prefix), SCOUT's report is first derived by Scalasca's `square` into
trace.cubex, so that the derived metrics (mpi_wait_terminal, critical_path_imbalance, imbalance,
performance impact, ...) are compared too; --no-square compares SCOUT's metrics only.

Exit status: 0 when both agree, 1 when they differ, 2 on errors. On demand only, never in CI
(Scalasca is built with tests/oracle/build_oracle.sh, outside the project).
"""

import argparse
import json
import os
import subprocess
import sys
import shutil
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent

# Metrics that hold counts (compared exactly); everything else is seconds or bytes.
COUNT_SUFFIXES = ("_count", "visits")
COUNT_PREFIXES = ("comms_", "syncs_")


def is_count(metric):
    return metric.endswith(COUNT_SUFFIXES) or metric.startswith(COUNT_PREFIXES)


def differs(metric, theirs, ours):
    if is_count(metric):
        return round(theirs) != round(ours)
    if metric == "bytes" or metric.startswith("bytes_"):
        return theirs != ours
    return abs(ours - theirs) > max(0.01 * abs(theirs), 1e-3)


def run(command, **kwargs):
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            **kwargs)
    if result.returncode != 0:
        raise RuntimeError("'%s' failed (%d):\n%s" % (" ".join(map(str, command)),
                                                      result.returncode, result.stdout[-3000:]))
    return result.stdout


def read_values(export, cubex, scratch):
    """{(metric, call path, rank): exclusive value} of one report."""
    out = Path(scratch) / (Path(cubex).parent.name + "_" + Path(cubex).stem + ".json")
    run([export, "--hatchet", str(out), "--per-rank", str(cubex)])
    values = {}

    def walk(node, prefix):
        path = prefix + "/" + node["frame"]["name"] if prefix else node["frame"]["name"]
        for column, value in node["metrics"].items():
            if " [rank " not in column or value is None:
                continue
            metric, rank = column[:-1].split(" [rank ")
            if " thread " in rank:
                continue  # the main thread's values are compared
            key = (metric, path, int(rank))
            values[key] = values.get(key, 0.0) + value
        for child in node.get("children", []):
            walk(child, path)

    for root in json.loads(out.read_text()):
        walk(root, "")
    return values


def compare(theirs, ours, ignore):
    """Rows (metric, path, rank, scalasca, ours) of every difference."""
    metrics = {k[0] for k in theirs} & {k[0] for k in ours}
    metrics -= set(ignore)
    rows = []
    for key in sorted(set(theirs) | set(ours)):
        if key[0] not in metrics:
            continue
        a, b = theirs.get(key, 0.0), ours.get(key, 0.0)
        if differs(key[0], a, b):
            rows.append((key[0], key[1], key[2], a, b))
    return rows, metrics


def difference_class(row):
    """metric@leaf region: the unit the differential run tallies."""
    metric, path = row[0], row[1]
    return metric + "@" + path.rsplit("/", 1)[-1]


# The known rules behind differences (docs/fidelity.md, "Differential oracle findings"): a
# difference class (metric@region) and which side is larger name the rule; a "fixed" rule that
# shows again is a regression.
WAITS = ("MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome")
PROBES = ("MPI_Probe", "MPI_Mprobe")
TESTS = ("MPI_Test", "MPI_Testall", "MPI_Testany", "MPI_Testsome")
# (With square: the derived sums delay, delay_mpi, ..., the direct/terminal split and the
# performance impact follow the same root causes.)
ROOT_CAUSE_PREFIXES = ("critical_", "non_critical_", "delay", "mpi_wait_indirect",
                       "mpi_wait_propagating", "mpi_wait_direct", "mpi_wait_terminal",
                       "inter_partition_imbalance", "intra_partition_imbalance",
                       "performance_impact")


PROBE_RULE = "on purpose: Late Sender at blocking probes"


def known_rule(metric, region, theirs, ours, path="", probe_caused=False):
    if probe_caused:
        # Without the probe rule (waitscope-replay --no-probe-links) the value is Scalasca's.
        return PROBE_RULE
    if region in ("MPI_Start", "MPI_Startall") and metric in ("mpi_communication",
                                                              "mpi_point2point"):
        return "open: MPI_Start's time class: region role FUNCTION (--derived)"
    if metric in ("imbalance", "imbalance_above", "imbalance_below") and "/" not in path:
        return "open: imbalance of the program's root call path (--derived)"
    if metric in ("mpi_latereceiver", "mpi_clr_count", "mpi_slr_count"):
        if region in WAITS and theirs > ours:
            return "fixed: Late Receiver at nonblocking send completions"
        if region in ("MPI_Sendrecv", "MPI_Sendrecv_replace", "MPI_Bsend", "MPI_Rsend") \
                and ours > theirs:
            return "fixed: no Late Receiver at Sendrecv, Bsend, Rsend"
        if region in ("MPI_Send", "MPI_Ssend"):
            return "fixed: a receive starts at its request"
    if metric in ("mpi_latesender", "mpi_cls_count", "mpi_sls_count") and region in TESTS:
        return "fixed: no Late Sender at test calls"
    if region in PROBES and (metric.startswith(("mpi_latesender", "mpi_lswo", "mpi_cls",
                                                "mpi_sls", "mpi_clswo", "mpi_slswo"))
                             or metric.startswith(ROOT_CAUSE_PREFIXES)):
        return PROBE_RULE
    if metric in ("comms_cxch", "comms_csrc", "comms_cdst"):
        return "fixed: collective communication counts by bytes"
    if metric in ("mpi_lswo_same", "mpi_lswo_different"):
        return "on purpose: wrong-order split (world ranks; several at once)"
    if metric in ("mpi_clswo_count", "mpi_slswo_count"):
        return "on purpose: wrong-order instances revealed at once"
    if metric.startswith(ROOT_CAUSE_PREFIXES):
        return "fixed: root causes at Scalasca's synchronization points"
    return "unexplained"


def summarize(path):
    """Traces and values per known rule of a tally file."""
    rules = {}
    for line in open(path):
        fields = line.rstrip("\n").split("\t")
        cls, trace, path, _, theirs, ours = fields[:6]
        metric, region = cls.split("@", 1)
        probe_caused = len(fields) > 6 and fields[6] == "probe"
        rule = known_rule(metric, region, float(theirs), float(ours), path, probe_caused)
        traces, values = rules.setdefault(rule, (set(), [0]))
        traces.add(trace)
        values[0] += 1
    for rule, (traces, values) in sorted(rules.items(), key=lambda r: -len(r[1][0])):
        print("  %-58s %5d traces %6d values" % (rule, len(traces), values[0]))


def derive(cube_prefix, prefix, cubex, scratch):
    """SCOUT's report with Scalasca's derived metrics, remapped as scalasca -examine does."""
    out = Path(scratch) / "summary.cubex"
    # -s as square passes it: without it cube_remap2 skips its hard-coded heuristics, so the
    # computational imbalance (imbalance_*) stays 0 everywhere.
    run([str(Path(cube_prefix) / "bin" / "cube_remap2"), "-d", "-s", "-r",
         str(Path(prefix) / "share" / "scalasca" / "scout.spec"), "-o", str(out), str(cubex)])
    return str(out)


def rank_count(anchor):
    """The MPI ranks of a trace: its process location groups."""
    listing = run(["otf2-print", "-G", str(anchor)])
    ranks = sum(1 for line in listing.splitlines()
                if line.startswith("LOCATION_GROUP") and "Type: PROCESS" in line)
    if ranks == 0:
        raise RuntimeError("%s: no MPI ranks in the definitions" % anchor)
    return ranks


def stage(trace, scratch):
    """A directory of links to the trace, so that the reports land in scratch."""
    trace = Path(trace).resolve()
    anchor = trace if trace.suffix == ".otf2" else trace / "traces.otf2"
    if not anchor.exists():
        raise RuntimeError("%s: no traces.otf2" % trace)
    staged = Path(scratch) / "trace"
    staged.mkdir()
    stem = anchor.stem
    for name in (anchor.name, stem + ".def", stem):
        if (anchor.parent / name).exists():
            os.symlink(anchor.parent / name, staged / name)
    return staged / anchor.name


def square(prefix, cube_prefix, scout_report, scratch):
    """trace.cubex derived by Scalasca's square from a SCOUT report, or None without Cube's tools."""
    if not (Path(cube_prefix) / "bin" / "cube_dump").exists():
        return None
    archive = Path(scratch) / "square"
    archive.mkdir(exist_ok=True)
    for stale in archive.glob("*.cubex"):
        stale.unlink()
    shutil.copy(scout_report, archive / "scout.cubex")
    env = dict(os.environ)
    env["PATH"] = "%s:%s:%s" % (Path(cube_prefix) / "bin", Path(prefix) / "bin", env["PATH"])
    # square -s writes trace.cubex, then fails for want of Score-P's scorep-score (its textual
    # score report, which the comparison does not need).
    result = subprocess.run([str(Path(prefix) / "bin" / "square"), "-s", str(archive)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    derived = archive / "trace.cubex"
    if not derived.exists():
        raise RuntimeError("square wrote no %s:\n%s" % (derived, result.stdout[-3000:]))
    return str(derived)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("trace", nargs="?", help="traces.otf2 or its directory")
    parser.add_argument("-np", type=int, help="ranks for both analyzers (default: the trace's "
                        "MPI ranks, as otf2-print -G lists them; SCOUT needs all of them)")
    parser.add_argument("--prefix", default=os.environ.get("ORACLE_PREFIX", "/work/oracle/prefix"),
                        help="the Scalasca installation (default $ORACLE_PREFIX)")
    parser.add_argument("--build", default=str(ROOT / "build" / "dev"),
                        help="the Waitscope build directory (default build/dev)")
    parser.add_argument("--cube-prefix",
                        default=os.environ.get("CUBE_PREFIX", "/work/oracle/cube-prefix"),
                        help="Cube's tools, for square and cube_remap2 (default $CUBE_PREFIX)")
    parser.add_argument("--no-square", action="store_true",
                        help="compare SCOUT's report as it is, without square's derived metrics")
    parser.add_argument("--scalasca", help="a finished SCOUT report instead of running SCOUT "
                        "(a scout.cubex is derived by square; a trace.cubex is taken as it is)")
    parser.add_argument("--ours", help="a finished Waitscope report instead of running the replay")
    parser.add_argument("--keep", help="keep the reports in this directory")
    parser.add_argument("--ignore", action="append", default=[], help="a metric to leave out")
    parser.add_argument("--tally", help="append each difference class to this file")
    parser.add_argument("--quiet", action="store_true", help="print only the summary line")
    parser.add_argument("--replay", help="the waitscope-replay to run (default: the build's)")
    parser.add_argument("--serial-replay", action="store_true",
                        help="run the replays with --serial in one process instead of under "
                        "mpirun (the same analysis and report; saves an MPI start per trace)")
    parser.add_argument("--also-replay", help="a second waitscope-replay (say, before a fix) "
                        "compared with the same SCOUT report; its differences go to --also-tally")
    parser.add_argument("--also-tally", help="the difference classes of --also-replay")
    parser.add_argument("--derived", action="store_true",
                        help="derive Scalasca's remaining metrics (critical_path_imbalance, "
                        "imbalance, mpi_wait_terminal, ...) from the SCOUT report with Cube's "
                        "cube_remap2 and scout.spec, as scalasca -examine does, and compare them too")
    parser.add_argument("--summarize", metavar="TALLY",
                        help="print the differences of a tally file by known rule, and exit")
    args = parser.parse_args()
    if args.summarize:
        summarize(args.summarize)
        return 0
    if not args.trace and not (args.scalasca and args.ours):
        parser.error("give a trace, or --scalasca and --ours")
    bindir = Path(args.build) / "bin"
    export = str(bindir / "waitscope-export")
    mpirun = ["mpirun", "-np", str(args.np or 0), "--oversubscribe"]
    scratch_owner = None
    if args.keep:
        scratch = Path(args.keep)
        scratch.mkdir(parents=True, exist_ok=True)
    else:
        scratch_owner = tempfile.TemporaryDirectory(prefix="oracle_")
        scratch = Path(scratch_owner.name)
    try:
        staged = stage(args.trace, scratch) if args.trace else None
        if staged and not args.np:
            args.np = rank_count(staged)
            mpirun = ["mpirun", "-np", str(args.np), "--oversubscribe"]
        scalasca = args.scalasca
        if not scalasca:
            run(mpirun + [str(Path(args.prefix) / "bin" / "scout.mpi"), str(staged)],
                cwd=scratch)
            scalasca = str(staged.parent / "scout.cubex")
        if not args.no_square and Path(scalasca).name == "scout.cubex":
            scalasca = square(args.prefix, args.cube_prefix, scalasca, scratch) or scalasca
        ours = args.ours
        replay = args.replay or str(bindir / "waitscope-replay")
        replay_launch = [] if args.serial_replay else mpirun
        serial = ["--serial"] if args.serial_replay else []
        if not ours:
            run(replay_launch + [replay] + serial +
                ["--quiet", "--output-dir", str(scratch / "ours"), str(staged)])
            ours = str(scratch / "ours" / "report.cubex")
        if args.derived and Path(scalasca).name == "scout.cubex":
            # (square's trace.cubex holds the derived metrics already.)
            scalasca = derive(args.cube_prefix, args.prefix, scalasca, scratch)
        theirs = read_values(export, scalasca, scratch)
        our_values = read_values(export, ours, scratch)
        rows, metrics = compare(theirs, our_values, args.ignore)
        # A trace with blocking probes: which differences the probe rule makes, by the same
        # replay without it (compared with the same SCOUT report).
        unlinked = None
        if (rows or args.also_replay) and staged and not args.ours \
                and uses_blocking_probes(our_values):
            try:
                run(replay_launch + [replay] + serial +
                    ["--quiet", "--no-probe-links", "--output-dir", str(scratch / "unlinked"),
                     str(staged)])
                unlinked = read_values(export, str(scratch / "unlinked" / "report.cubex"),
                                       scratch)
            except RuntimeError as error:
                if "--no-probe-links" not in str(error):
                    raise
                # A replay from before the option: the probe rule is told by class only.
                print("compare.py: note: %s has no --no-probe-links" % replay, file=sys.stderr)
        if args.also_replay and staged:
            run(replay_launch + [args.also_replay] + serial +
                ["--quiet", "--output-dir", str(scratch / "also"), str(staged)])
            also_rows, _ = compare(theirs,
                                   read_values(export, str(scratch / "also" / "report.cubex"),
                                               scratch), args.ignore)
            write_tally(args.also_tally, args.trace, also_rows, theirs, unlinked)
    except RuntimeError as error:
        print("compare.py: error: %s" % error, file=sys.stderr)
        return 2
    if not args.quiet:
        for metric, path, rank, a, b in rows:
            print("%-32s %-50s rank %2d  scalasca %-14.9g ours %.9g" % (metric, path, rank, a, b))
    name = args.trace or ours
    print("%s: %d differences in %d metrics" % (name, len(rows), len(metrics)))
    write_tally(args.tally, name, rows, theirs if args.trace else None, unlinked)
    return 1 if rows else 0


def uses_blocking_probes(values):
    """Whether a report's program entered MPI_Probe or MPI_Mprobe."""
    return any(metric == "visits" and path.rsplit("/", 1)[-1] in PROBES and value > 0
               for (metric, path, _), value in values.items())


def write_tally(path, name, rows, theirs=None, unlinked=None):
    """One line per difference; a seventh column "probe" where the replay without the probe
    rule (`unlinked`, None: not run) has SCOUT's value."""
    if not path:
        return
    with open(path, "a") as tally:
        for row in rows:
            key = row[:3]
            probe = unlinked is not None and not differs(row[0], theirs.get(key, 0.0),
                                                         unlinked.get(key, 0.0))
            tally.write("%s\t%s\t%s\t%d\t%.9g\t%.9g%s\n" % (difference_class(row), name, row[1],
                                                           row[2], row[3], row[4],
                                                           "\tprobe" if probe else ""))


if __name__ == "__main__":
    sys.exit(main())
