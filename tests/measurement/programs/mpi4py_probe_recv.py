"""mpi4py_probe_recv -- the pickled receive of mpi4py (Debian's python3-mpi4py), which waits in
MPI_Mprobe and then takes the matched message with MPI_Mrecv (ranks paired 0->1, 2->3, ...):

  the even rank sleeps 0.2 s before each of 3 comm.send calls (MPI_Send 3);
  the odd rank calls comm.recv 3 times at once (MPI_Mprobe 3, MPI_Mrecv 3) and so waits
  0.6 s in MPI_Mprobe in all.

Prints "mpi4py_probe_recv ok" on rank 0 when every message arrived in order.
"""
import sys
import time

from mpi4py import MPI

SENDS = 3
SLEEP_SECONDS = 0.2

world = MPI.COMM_WORLD
rank, size = world.Get_rank(), world.Get_size()
errors = 0
# All ranks leave MPI_Init's skew behind before the measured exchange.
world.Barrier()
if rank % 2 == 0 and rank + 1 < size:
    for step in range(SENDS):
        time.sleep(SLEEP_SECONDS)
        world.send({"step": step, "values": list(range(100 * (step + 1)))}, dest=rank + 1, tag=7)
elif rank % 2 == 1:
    for step in range(SENDS):
        message = world.recv(source=rank - 1, tag=7)
        errors += message["step"] != step or len(message["values"]) != 100 * (step + 1)
errors = world.allreduce(errors)
if rank == 0:
    print("mpi4py_probe_recv ok" if errors == 0 else "mpi4py_probe_recv: %d errors" % errors)
sys.exit(0 if errors == 0 else 1)
