/* Exercises the wrapper kinds whose records tests check exactly. Run with 4 ranks.
 * Per rank r (peer = r ^ 1, the partner in pairs 0-1, 2-3):
 *   Sendrecv with the partner, tag 1 (1 send + 1 recv)
 *   even ranks: Send 3 messages of a vector type (3 blocks of 2 ints = 24 bytes), tag 2;
 *   odd ranks: Recv them with MPI_ANY_SOURCE / MPI_ANY_TAG and MPI_STATUS_IGNORE
 *   Isend/Irecv pair with the partner (tag 3), completed by Waitall
 *   persistent Send_init/Recv_init with the partner (tag 4), started twice with Startall
 *   a pending Irecv (tag 99, never sent) cancelled: MPI_Cancel, MPI_Wait, MPI_Test_cancelled
 *   odd ranks poll MPI_Iprobe until a message (tag 5) from the partner arrives, then Recv it
 *   Comm_split into {0,1} and {2,3}, Allreduce and Barrier on it, Comm_free
 *   Barrier on MPI_COMM_WORLD
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = rank ^ 1;
    int a = rank, b = -1;
    MPI_Sendrecv(&a, 1, MPI_INT, peer, 1, &b, 1, MPI_INT, peer, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);

    MPI_Datatype vec;
    MPI_Type_vector(3, 2, 4, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int data[12] = {0};
    for (int i = 0; i < 3; ++i) {
        if (rank % 2 == 0)
            MPI_Send(data, 1, vec, peer, 2, MPI_COMM_WORLD);
        else
            MPI_Recv(data, 1, vec, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Type_free(&vec);

    MPI_Request reqs[2];
    double x = 1.0, y = 0.0;
    MPI_Irecv(&y, 1, MPI_DOUBLE, peer, 3, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(&x, 1, MPI_DOUBLE, peer, 3, MPI_COMM_WORLD, &reqs[1]);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);

    MPI_Request persistent[2];
    MPI_Recv_init(&y, 1, MPI_DOUBLE, peer, 4, MPI_COMM_WORLD, &persistent[0]);
    MPI_Send_init(&x, 1, MPI_DOUBLE, peer, 4, MPI_COMM_WORLD, &persistent[1]);
    for (int i = 0; i < 2; ++i) {
        MPI_Startall(2, persistent);
        MPI_Waitall(2, persistent, MPI_STATUSES_IGNORE);
    }
    MPI_Request_free(&persistent[0]);
    MPI_Request_free(&persistent[1]);

    MPI_Request pending;
    MPI_Status status;
    int cancelled = 0;
    MPI_Irecv(&y, 1, MPI_DOUBLE, peer, 99, MPI_COMM_WORLD, &pending);
    MPI_Cancel(&pending);
    MPI_Wait(&pending, &status);
    MPI_Test_cancelled(&status, &cancelled);

    if (rank % 2 == 0) {
        usleep(20000);
        MPI_Send(&a, 1, MPI_INT, peer, 5, MPI_COMM_WORLD);
    } else {
        int flag = 0;
        while (!flag)
            MPI_Iprobe(peer, 5, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        MPI_Recv(&b, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }

    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &half);
    double s = rank, t = 0;
    MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, half);
    MPI_Barrier(half);
    MPI_Comm_free(&half);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("p2p_patterns: cancelled=%d\n", cancelled);
    MPI_Finalize();
    return cancelled ? 0 : 3;
}
