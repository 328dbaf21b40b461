"""mpi4py_calls -- issue 26's calls made through mpi4py (Debian's python3-mpi4py), a binding
nobody here wrote, each a known number of times per rank (4 ranks):

  MPI_Comm_idup 1 (MPI_Wait), then MPI_Send or MPI_Recv 1 on the dup (even to odd rank)
  MPI_Cart_create 1 (a periodic ring): MPI_Neighbor_alltoall 1, MPI_Ineighbor_allgather 1 (MPI_Wait)
  MPI_Ireduce_scatter 1, MPI_Ialltoallw 1 (MPI_Wait each)
  MPI_Comm_split 1 into the even and the odd ranks, MPI_Intercomm_create 1, on the
  intercommunicator MPI_Send (even) or MPI_Recv (odd) 1 to the same local rank, MPI_Barrier 1
"""
import array
import sys

from mpi4py import MPI

world = MPI.COMM_WORLD
rank, size = world.Get_rank(), world.Get_size()
if size != 4:
    if rank == 0:
        print("mpi4py_calls: needs 4 ranks", file=sys.stderr)
    sys.exit(2)
errors = 0

dup, request = world.Idup()
request.Wait()
block = array.array("d", [float(rank)] * 64)
if rank % 2 == 0:
    dup.Send([block, MPI.DOUBLE], dest=rank + 1, tag=5)
else:
    dup.Recv([block, MPI.DOUBLE], source=rank - 1, tag=5)
    errors += block[0] != rank - 1
dup.Free()

ring = world.Create_cart([size], periods=[True])
left, right = (rank - 1) % size, (rank + 1) % size
send = array.array("i", [rank, rank])
got = array.array("i", [-1, -1])
ring.Neighbor_alltoall([send, MPI.INT], [got, MPI.INT])
errors += list(got) != [left, right]
mine = array.array("i", [rank])
got = array.array("i", [-1, -1])
ring.Ineighbor_allgather([mine, MPI.INT], [got, MPI.INT]).Wait()
errors += list(got) != [left, right]
ring.Free()

values = array.array("i", [rank + i for i in range(size)])
reduced = array.array("i", [0])
world.Ireduce_scatter([values, MPI.INT], [reduced, MPI.INT], recvcounts=[1] * size).Wait()
errors += reduced[0] != size * (size - 1) // 2 + size * rank
out = array.array("i", [-1] * size)
displs = [4 * i for i in range(size)]
world.Ialltoallw([values, ([1] * size, displs), [MPI.INT] * size],
                 [out, ([1] * size, displs), [MPI.INT] * size]).Wait()
errors += out[size - 1] != size - 1 + rank

half = world.Split(rank % 2, rank)
inter = half.Create_intercomm(0, world, 1 if rank % 2 == 0 else 0, tag=9)
local = half.Get_rank()
if rank % 2 == 0:
    inter.Send([block, MPI.DOUBLE], dest=local, tag=6)
else:
    inter.Recv([block, MPI.DOUBLE], source=local, tag=6)
inter.Barrier()
inter.Free()
half.Free()

if rank == 0 and not errors:
    print("mpi4py_calls ok")
sys.exit(1 if errors else 0)
