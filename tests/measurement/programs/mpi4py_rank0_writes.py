"""Rank 0 writes a checkpoint alone (mpi4py's MPI.File): it computes first, then every rank
calls File.Write_at_all, rank 0 with all the data and the others with none, so the others wait
for rank 0 in the collective write. Arguments: output file, megabytes, seconds of computation,
iterations. Rank 0 prints the file's size at the end."""
import os
import sys
import time

from mpi4py import MPI


def compute(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def write_checkpoint(fh, rank, data, it):
    block = data if rank == 0 else bytearray(0)
    fh.Write_at_all(it * len(data), [block, MPI.BYTE])


def main():
    path, megabytes, seconds, iterations = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    data = bytearray(b"w" * (megabytes * 1000000))
    fh = MPI.File.Open(comm, path, MPI.MODE_CREATE | MPI.MODE_WRONLY)
    for it in range(iterations):
        if rank == 0:
            compute(seconds)
        write_checkpoint(fh, rank, data, it)
    fh.Close()
    if rank == 0:
        print("file size %d" % os.path.getsize(path))


if __name__ == "__main__":
    main()
