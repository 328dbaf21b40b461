#!/usr/bin/env python3
"""Runs the README's shell commands literally, in order, in a fresh directory.

Usage: readme_commands.py README.md BUILD_DIR WORK_DIR

Every ```sh block of the README is run as written by one bash (so `cd` and `export` carry
over), in WORK_DIR, where build/release is a link to BUILD_DIR: the quick start's commands
then find the programs ctest built. Then the commands quoted inline that can run as written
(`waitscope config`, and those whose only placeholder is an experiment DIR, given the quick
start's experiment). Left out, and named on the output, are only the lines
that install packages (apt-get needs root and the network) and the lines that build or test
with cmake (ctest runs in the tree that build made). Fails when a command fails, or when the
quick start does not end with what the README says it ends with.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys


def shell_blocks(text):
    """The ```sh blocks of a Markdown text, each a list of commands (continuations joined)."""
    blocks = []
    for body in re.findall(r"^```sh\n(.*?)^```", text, flags=re.S | re.M):
        commands, pending = [], ""
        for line in body.splitlines():
            if line.endswith("\\"):
                pending += line[:-1]
                continue
            commands.append(pending + line)
            pending = ""
        blocks.append([c for c in commands if c.strip()])
    return blocks


def inline_commands(text):
    """Commands quoted inline in the prose that can run as written: `waitscope config`, and
    the ones whose only placeholder is DIR (an experiment directory: the quick start's is
    used). Synopses with <...>, [...] or "..." are descriptions, not commands."""
    prose = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    commands = []
    for span in re.findall(r"`([^`]+)`", prose):
        span = " ".join(span.split())
        words = span.split()
        if not words or words[0] not in ("waitscope", "waitscope-replay") or len(words) < 2:
            continue
        if re.search(r"[<>\[\]|]|\.\.\.|\b(FILE|FILTER|N)\b", span):
            continue
        if (words[:2] == ["waitscope", "config"] or "DIR" in words) and span not in commands:
            commands.append(span)
    return commands


def left_out(command):
    """Why a README command is not run here, or None when it is."""
    words = command.split()
    if words[:2] == ["sudo", "apt-get"]:
        return "installs packages"
    if re.search(r"(^|&&\s*|\s)cmake\s", command):
        return "builds or tests with cmake"
    return None


def main():
    readme, build, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "build"))
    os.symlink(os.path.abspath(build), os.path.join(work, "build", "release"))
    script = ["set -e"]
    for block in shell_blocks(open(readme).read()):
        for command in block:
            reason = left_out(command)
            if reason:
                print(f"left out ({reason}): {command}")
                continue
            if "waitscope-gui" in command and not os.path.exists(
                    os.path.join(build, "bin", "waitscope-gui")):
                print(f"left out (waitscope-gui is not built): {command}")
                continue
            script.append(f"echo {shlex.quote('+ ' + command)}")
            script.append(command)
    for command in inline_commands(open(readme).read()):
        literal = command.replace("DIR", "waitscope_example_late_sender_4")
        script.append(f"echo {shlex.quote('+ ' + literal)}")
        script.append(literal)
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    run = subprocess.run(["bash", "-c", "\n".join(script)], cwd=work, env=environment,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(run.stdout)
    if run.returncode != 0:
        sys.exit(f"a README command failed (exit code {run.returncode}); see above")
    # What the quick start says it ends with: the Late Sender in MPI_Recv on ranks 1 and 3.
    out = run.stdout
    first = out[out.find(" 1. "):]
    checks = [
        (" 1. Late Sender (mpi_latesender)" in out, "the first finding is the Late Sender"),
        ("call path: example_late_sender/main/receive_block/MPI_Recv" in first,
         "the Late Sender is in MPI_Recv"),
        (re.search(r"ranks:\s+[13] \([0-9.]+ s\), [13] \(", first) is not None,
         "ranks 1 and 3 wait"),
        (os.path.exists(os.path.join(work, "summary.html")), "examine --html wrote the page"),
        ("Time" in out and "mpi_latesender" in out, "waitscope report printed the report"),
        (re.search(r"Late Sender at example_late_sender/main/receive_block/MPI_Recv: -[0-9.]+ s "
                   r"\(-[0-9]+ %\), significant over 3 runs each", out) is not None,
         "waitscope compare named the smaller Late Sender as significant"),
        (os.path.exists(os.path.join(work, "merged.cubex")), "waitscope report merge wrote"),
        (os.path.exists(os.path.join(work, "late_sender.json")), "waitscope export wrote"),
        (re.search(r"^  Wait at Barrier \(mpi_barrier_wait\): [0-9.]+ s -> [0-9.]+ s", out, re.M)
         is not None, "waitscope compare --scaling named the growing Wait at Barrier"),
    ]
    if os.path.exists(os.path.join(build, "bin", "waitscope-gui")):
        checks.append((os.path.exists(os.path.join(work, "waitscope_example_late_sender_4",
                                                   "explorer.png")),
                       "waitscope-gui --screenshot wrote the picture"))
    failed = [what for ok, what in checks if not ok]
    if failed:
        sys.exit("the README's promise does not hold: " + "; ".join(failed))
    print("every README command ran")
    return 0


if __name__ == "__main__":
    sys.exit(main())
