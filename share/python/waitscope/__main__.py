"""python3 -m waitscope [--library PATH] [--pure-python] SCRIPT [ARGS...]: runs SCRIPT as
__main__ with its own functions recorded as regions."""

import os
import runpy
import sys

from waitscope.recorder import start, stop

USAGE = """usage: python3 -m waitscope [--library PATH] [--pure-python] SCRIPT [ARGS...]
  --library PATH  libwaitscope.so to load when it is not preloaded (default: the one
                  installed with this package)
  --pure-python   record with a trace function in Python instead of the library's profile
                  function in C (slower; for interpreters whose C API is not found)
"""


def main():
    arguments = sys.argv[1:]
    library = None
    pure_python = False
    while arguments and arguments[0].startswith("-"):
        option = arguments.pop(0)
        if option in ("-h", "--help"):
            sys.stdout.write(USAGE)
            return 0
        if option == "--library" and arguments:
            library = arguments.pop(0)
        elif option == "--pure-python":
            pure_python = True
        else:
            sys.stderr.write("error: unknown option '%s'\n%s" % (option, USAGE))
            return 2
    if not arguments:
        sys.stderr.write(USAGE)
        return 2
    script = arguments[0]
    if not os.path.isfile(script):
        sys.stderr.write("error: %s: no such script\n" % script)
        return 2
    sys.argv = arguments
    # The script's own folder comes first on the path, as for `python3 script.py`.
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    start(library=library, pure_python=pure_python)
    try:
        runpy.run_path(script, run_name="__main__")
    finally:
        stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
