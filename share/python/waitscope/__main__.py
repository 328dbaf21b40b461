"""python3 -m waitscope SCRIPT [ARGS...]: runs SCRIPT as __main__ with its functions recorded."""

import os
import runpy
import sys

from waitscope.recorder import start, stop

USAGE = "usage: python3 -m waitscope SCRIPT [ARGS...]\n"


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        sys.stdout.write(USAGE) if len(sys.argv) >= 2 else sys.stderr.write(USAGE)
        return 0 if len(sys.argv) >= 2 else 2
    script = sys.argv[1]
    if not os.path.isfile(script):
        sys.stderr.write("error: %s: no such script\n" % script)
        return 2
    sys.argv = sys.argv[1:]
    # The script's own folder comes first on the path, as for `python3 script.py`.
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    start()
    try:
        runpy.run_path(script, run_name="__main__")
    finally:
        stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
