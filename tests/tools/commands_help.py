#!/usr/bin/env python3
"""Every command in the bin folder answers --help (through the driver too) with a usage that
names it and lists exactly its options, and refuses an unknown option by name with status 2.

usage: commands_help.py BIN_DIR
"""
import os
import re
import shutil
import subprocess
import sys

# The options each command takes (besides -h, --help): the help must list exactly these, so an
# option lost in a port, or one added without a line in the help, fails here.
OPTIONS = {
    "": ["--version"],
    "analyze": ["-e", "-f", "-t", "-p", "--profile", "-a", "-n", "--time-correct", "--serial",
                "-q", "--llvm-openmp", "--memory-limit"],
    "replay": ["--serial", "--output-dir", "--dump-text", "--time-correct", "--min-latency",
               "--no-root-cause", "--no-probe-links", "--memory-limit", "--no-timeline",
               "--window-events",
               "--instance-buffer",
               "--quiet"],
    "examine": ["--text", "--html", "--gui", "--screenshot"],
    "compare": ["--before", "--after", "--scaling", "--html", "--level", "-n"],
    "export": ["--hatchet", "--per-rank", "--chrome-trace", "--perfetto", "--instances",
               "--time-correct",
               "--quiet"],
    "report": ["--csv", "--inclusive", "--exclusive", "-n"],
    "report diff": ["-o", "--output"],
    "report mean": ["-o", "--output"],
    "report merge": ["-o", "--output"],
    "recover": [],
    "score": ["-g", "--format", "-r"],
    "config": ["--values"],
    "instrument": ["--mpi", "--nompi", "--compiler", "--nocompiler", "--user", "--filter",
                   "--dry-run", "-v", "--verbose"],
    "gui": ["--baseline", "--screenshot", "--metric", "--callpath", "--rank", "--mode", "--search", "--tab",
            "--expand-hottest", "--flat", "--sort", "--size", "--timing", "--print-visible",
            "--metric-docs", "--timeline", "--with-timeline", "--by-node", "--call-depth",
            "--instance", "-platform", "-style", "-stylesheet",
            "-platformtheme", "-platformpluginpath", "-plugin", "-display", "-qwindowgeometry",
            "-qwindowtitle", "-qwindowicon", "-reverse"],
}


def run(command):
    # No display: the explorer's --help and its usage errors must not need one.
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)


def listed_options(help_text):
    """The spellings on the option lines of the help's "options:" section."""
    section = help_text.split("\noptions:\n", 1)
    if len(section) != 2:
        return None
    names = []
    for line in section[1].split("\n"):
        if not line.startswith("  -"):
            if line and not line.startswith(" "):
                break  # a note after the options
            continue
        entry = re.split(r"\s{2,}", line.strip())[0]
        for spelling in entry.split(", "):
            names.append(spelling.split(" ")[0])
    return names


def main():
    bin_dir = sys.argv[1]
    driver = os.path.join(bin_dir, "waitscope")
    failures = []
    installed = sorted(name[len("waitscope-"):] for name in os.listdir(bin_dir)
                       if name.startswith("waitscope-"))
    commands = [""] + installed + ["report diff", "report mean", "report merge"]
    for command in commands:
        if command.split(" ")[0] not in OPTIONS and command not in OPTIONS:
            failures.append(f"waitscope-{command}: no entry in this test's table of options")
            continue
        words = command.split()
        program = [driver] if not words else [os.path.join(bin_dir, "waitscope-" + words[0])]
        ways = [program + words[1:] + ["--help"]]
        if words:
            ways.append([driver] + words + ["--help"])
            if len(words) == 1:
                ways.append([driver, "help"] + words)
        name = " ".join(["waitscope"] + words)
        for way in ways:
            shown = " ".join([os.path.basename(way[0])] + way[1:])
            result = run(way)
            if result.returncode != 0:
                failures.append(f"{shown}: exit status {result.returncode}\n{result.stderr}")
                continue
            if not result.stdout.startswith(f"usage: {name} "):
                failures.append(f"{shown}: the usage does not begin with 'usage: {name} '")
            listed = listed_options(result.stdout)
            expected = OPTIONS[command] + ["-h", "--help"]
            if listed is None or sorted(listed) != sorted(expected):
                failures.append(f"{shown}: lists the options {listed}, expected {expected}")
        # An unknown option: refused by name, with the status of a usage error.
        result = run(program + words[1:] + ["--no-such-option"])
        message = f"{name}: error: unknown option '--no-such-option'"
        if result.returncode != 2 or message not in result.stderr:
            failures.append(f"{name} --no-such-option: exit status {result.returncode}, "
                            f"expected 2 and '{message}' on stderr, got:\n{result.stderr}")
        print(f"{name}: --help and an unknown option checked")
    # analyze reads no option after the launcher: the program's own -q and --help reach it.
    if shutil.which("mpirun") and os.path.exists("/bin/true"):
        result = run([driver, "analyze", "-n", "-e", os.devnull + ".none", "mpirun", "-np", "2",
                      "/bin/true", "-q", "--help", "-e", "x"])
        if result.returncode != 0 or " -np 2 /bin/true -q --help -e x\n" not in result.stdout:
            failures.append("analyze -n mpirun ... /bin/true -q --help -e x: the program's "
                            f"options did not reach it:\n{result.stdout}{result.stderr}")
    for failure in failures:
        print("FAIL: " + failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
