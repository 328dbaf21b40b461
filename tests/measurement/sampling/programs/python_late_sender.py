"""A Late Sender in pure Python (mpi4py): rank 0 computes in compute_before_send before each
send, rank 1 waits in receive_block. Arguments: iterations, seconds per computation."""
import sys
import time

from mpi4py import MPI


def compute_before_send(seconds):
    end = time.perf_counter() + seconds
    total = 0
    while time.perf_counter() < end:
        total += 1
    return total


def send_block(comm, buffer):
    comm.Send([buffer, MPI.BYTE], dest=1, tag=7)


def receive_block(comm, buffer):
    comm.Recv([buffer, MPI.BYTE], source=0, tag=7)


def main():
    iterations = int(sys.argv[1])
    seconds = float(sys.argv[2])
    comm = MPI.COMM_WORLD
    buffer = bytearray(1024)
    comm.Barrier()
    for _ in range(iterations):
        if comm.Get_rank() == 0:
            compute_before_send(seconds)
            send_block(comm, buffer)
        elif comm.Get_rank() == 1:
            receive_block(comm, buffer)
    comm.Barrier()


main()
