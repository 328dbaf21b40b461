"""The steps the end-to-end scripts of this folder share: build a program, run it measured under
mpirun, replay its experiment with waitscope-replay into a text dump, read the dump's values per
rank and location, compare them with what was injected, and end with the failures.

The scripts (openmp_end_to_end.py, openmp_mpi_end_to_end.py, openmp_sampled_end_to_end.py,
pthread_end_to_end.py, mpi_threads_end_to_end.py, examples_end_to_end.py) import it from beside
them. A failed command raises CommandFailed (or subprocess.TimeoutExpired); `measured` turns that
into one printed failure.
"""
import argparse
import collections
import os
import shutil
import subprocess

# Open MPI's compile and link flags, as its wrapper compiler gives them: for another compiler.
MPICC_COMPILE = ["mpicc", "--showme:compile"]
MPICC_LINK = ["mpicc", "--showme:link"]


class CommandFailed(RuntimeError):
    """A command exited with a failure; the message holds the end of its output."""


def arguments(*required, description=None):
    """A parser of the options `required` (names without "--"), each required; add more to it
    before parsing."""
    parser = argparse.ArgumentParser(description=description)
    for name in required:
        parser.add_argument("--" + name, required=True)
    return parser


def fresh_directory(path):
    """Creates `path` empty (removing what was there); returns it."""
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def run(command, cwd, env, timeout=180):
    """Runs `command` in `cwd`; returns its completed process, or raises CommandFailed with the
    end of its output when it fails."""
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=timeout)
    if result.returncode != 0:
        raise CommandFailed("%s failed (%d): %s%s" % (" ".join(command), result.returncode,
                                                      result.stdout[-2000:], result.stderr[-2000:]))
    return result


def build_with_mpi(compiler, flags, sources, binary, cwd, env):
    """Compiles and links `sources` into `binary` with `compiler` (a command: ["clang"], or
    [instrument, "clang"]) and `flags`, adding Open MPI's compile and link flags."""
    compile_flags = run(MPICC_COMPILE, cwd, env).stdout.split()
    link_flags = run(MPICC_LINK, cwd, env).stdout.split()
    run(compiler + flags + compile_flags + sources + ["-o", binary] + link_flags, cwd, env)


def mpirun_command(mpirun, ranks, command, exported=()):
    """`command` under `mpirun -np ranks --oversubscribe`, passing on the environment variables
    `exported` (names, or NAME=value)."""
    return [mpirun, "-np", str(ranks), "--oversubscribe"] + \
        [a for name in exported for a in ("-x", name)] + command


def measure_and_replay(mpirun, replay, command, experiment, cwd, env, ranks=2, exported=()):
    """Runs the measured `command` (the program and its arguments) under mpirun with `ranks`
    ranks, then `waitscope-replay --dump-text` on the same number of ranks over the experiment
    directory `experiment` (relative to `cwd`). Returns (the replay's completed process, the path
    of the dump)."""
    run(mpirun_command(mpirun, ranks, command, exported), cwd, env)
    dump = os.path.join(cwd, "values.txt")
    replayed = run(mpirun_command(mpirun, ranks, [replay, "--quiet", "--dump-text", dump,
                                                  os.path.join(cwd, experiment)]), cwd, env)
    return replayed, dump


def measured(steps):
    """Calls `steps` (the commands of a run); returns what it returns, or None after printing
    the failure of a command."""
    try:
        return steps()
    except (CommandFailed, subprocess.TimeoutExpired) as error:
        print("FAIL: %s" % error)
        return None


def read_dump(path):
    """(metric, call path, rank, location) -> value; location "" is the rank's main thread."""
    values = collections.defaultdict(float)
    with open(path) as dump:
        for line in dump:
            metric, call_path, where, value = line.rstrip("\n").split("\t")
            if metric == "diagnostic":
                continue
            rank, _, location = where.partition(":")
            values[(metric, call_path, int(rank), location)] += float(value)
    return values


def check_path_file(experiment, values, slack=0.002, at_least=0.0):
    """critical_path.txt of `experiment` against the dump `values`: per rank and further
    thread ("thread K", OTF2 location K << 32 | rank, as our measurement names them), the file's
    stretches on that location add up to the thread's critical_path (within `slack` seconds and
    2 %), so the timeline draws the path where the report puts it. Threads where both are under
    `at_least` seconds are printed, not checked. Returns the problems."""
    on_location = collections.defaultdict(float)
    problems = []
    path = os.path.join(experiment, "critical_path.txt")
    with open(path) as lines:
        header = lines.readline().strip()
        if header != "# waitscope critical path 2":
            problems.append("%s begins %r, not version 2" % (path, header))
        for line in lines:
            fields = line.split()
            if line.startswith("#") or len(fields) < 6 or fields[5] == "-":
                continue
            on_location[int(fields[5])] += float(fields[2]) - float(fields[1])
    c = Checker(values)
    threads = {(r, loc) for (_, _, r, loc) in values if loc.startswith("thread ")}
    ids = {(int(loc.split()[1]) << 32) | r: (r, loc) for (r, loc) in threads}
    for location in sorted(set(ids) | set(on_location)):
        rank, name = ids.get(location, (location & 0xFFFFFFFF, "location %d" % location))
        expected = c.total("critical_path", rank, name) if location in ids else 0.0
        got = on_location.get(location, 0.0)
        if max(got, expected) < at_least:
            print("critical_path.txt rank %d %s: %.4f s on its row, critical_path %.4f s "
                  "(under %.2f s: not checked)" % (rank, name, got, expected, at_least))
            continue
        ok = abs(got - expected) <= slack + 0.02 * expected
        print("critical_path.txt rank %d %s: %.4f s on its row, critical_path %.4f s %s" %
              (rank, name, got, expected, "ok" if ok else "FAIL"))
        if not ok:
            problems.append("critical_path.txt: rank %d %s holds %.4f s of the path, its "
                            "critical_path is %.4f s" % (rank, name, got, expected))
    return problems


def finish(problems):
    """Prints each problem; returns the exit status (0 without problems)."""
    for p in problems:
        print("FAIL: " + p)
    return 1 if problems else 0


class Checker:
    """Compares the values of a dump (read_dump) with expectations, printing each comparison and
    collecting the failures in `problems`."""

    def __init__(self, values):
        self.values = values
        self.problems = []

    def locations(self, rank):
        return sorted({loc for (_, _, r, loc) in self.values if r == rank})

    def total(self, metric, rank, location=None, frame=None, last=None):
        """The sum of `metric` on `rank` (one location, or all), on paths through a frame
        containing `frame`, or whose last frame contains `last`."""
        total = 0.0
        for (m, path, r, loc), v in self.values.items():
            if m != metric or r != rank or (location is not None and loc != location):
                continue
            frames = path.split("/")
            if frame is not None and not any(frame in f for f in frames):
                continue
            if last is not None and last not in frames[-1]:
                continue
            total += v
        return total

    def near(self, what, got, expected):
        ok = abs(got - expected) <= 0.10 * expected
        print("%-60s %.4f s (expected %.4f) %s" % (what, got, expected, "ok" if ok else "FAIL"))
        if not ok:
            self.problems.append("%s is %.4f s, expected %.4f s" % (what, got, expected))

    def at_least(self, what, got, injected):
        """At least the injected size (1 % below for clock granularity)."""
        ok = got >= 0.99 * injected
        print("%-60s %.4f s (injected %.4f) %s" % (what, got, injected, "ok" if ok else "FAIL"))
        if not ok:
            self.problems.append("%s is %.4f s, less than the injected %.4f s" % (what, got, injected))

    def below(self, what, got, limit):
        ok = got <= limit
        print("%-60s %.4f s (at most %.4f) %s" % (what, got, limit, "ok" if ok else "FAIL"))
        if not ok:
            self.problems.append("%s is %.4f s, more than %.4f s" % (what, got, limit))

    def exactly(self, what, got, expected):
        ok = round(got) == expected
        print("%-60s %d (expected %d) %s" % (what, got, expected, "ok" if ok else "FAIL"))
        if not ok:
            self.problems.append("%s is %d, expected %d" % (what, got, expected))
