"""Waitscope for Python MPI programs: records the program's own Python functions as regions,
so each MPI call (mpi4py) carries its Python call path, such as
``<module> (app.py:1)/exchange (app.py:20)/MPI_Recv``.

Run a program with ``python3 -m waitscope app.py [args]`` under ``mpirun`` (with
libwaitscope.so preloaded, as ``waitscope analyze`` does) or call ``start()`` before mpi4py is
imported.
"""

from waitscope.recorder import start, stop

__all__ = ["start", "stop"]
