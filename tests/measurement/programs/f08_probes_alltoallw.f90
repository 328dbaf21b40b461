! f08_probes_alltoallw -- an mpi_f08 program making the calls whose Fortran entry points came last:
! the matched probes, the alltoallw forms, a shared-memory window and calls the measurement does
! not record, each a known number of times per rank (the partner is rank xor 1):
!   MPI_Mprobe 1 + MPI_Mrecv 1 (of the first of 2 messages from the partner, MPI_Send 2),
!   MPI_Improbe of a tag never sent (no match), MPI_Improbe until it matches (1 match) +
!   MPI_Imrecv 1 (completed by MPI_Wait 1),
!   MPI_Alltoallw 1, MPI_Ialltoallw 1 (MPI_Wait 1): one integer to and from every rank,
!   MPI_Comm_split_type 1, MPI_Win_allocate_shared 1, MPI_Win_free 1, MPI_Comm_free 1,
!   not recorded: MPI_Pack 2, MPI_Type_dup 3 (and MPI_Type_free 3: the type group is off).
! Prints "f08_probes_alltoallw ok" on rank 0 when every value arrived where it belongs.
program f08_probes_alltoallw
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr
  implicit none
  integer :: rank, nprocs, partner, i, got(2), bad, total, position
  integer, allocatable :: sendbuf(:), recvbuf(:), counts(:), displs(:)
  type(MPI_Datatype), allocatable :: types(:)
  type(MPI_Datatype) :: copies(3)
  type(MPI_Message) :: message
  type(MPI_Request) :: request
  type(MPI_Status) :: status
  type(MPI_Comm) :: node
  type(MPI_Win) :: win
  type(c_ptr) :: base
  logical :: flag
  character :: packed(64)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  partner = ieor(rank, 1)
  bad = 0

  ! Matched probes: two messages from the partner, the first taken by Mprobe and Mrecv, the
  ! second by Improbe (polled until it matches) and Imrecv.
  do i = 1, 2
    call MPI_Send(100 * rank + i, 1, MPI_INTEGER, partner, i, MPI_COMM_WORLD)
  end do
  ! A probe for a message never sent finds nothing (and is not recorded).
  call MPI_Improbe(partner, 99, MPI_COMM_WORLD, flag, message, status)
  if (flag) bad = bad + 1
  call MPI_Mprobe(partner, 1, MPI_COMM_WORLD, message, status)
  call MPI_Mrecv(got(1), 1, MPI_INTEGER, message, status)
  flag = .false.
  do while (.not. flag)
    call MPI_Improbe(partner, 2, MPI_COMM_WORLD, flag, message, status)
  end do
  call MPI_Imrecv(got(2), 1, MPI_INTEGER, message, request)
  call MPI_Wait(request, MPI_STATUS_IGNORE)
  if (got(1) /= 100 * partner + 1 .or. got(2) /= 100 * partner + 2) bad = bad + 1

  ! The alltoallw forms: rank r sends 1000 * r + j to rank j.
  allocate (sendbuf(nprocs), recvbuf(nprocs), counts(nprocs), displs(nprocs), types(nprocs))
  do i = 1, nprocs
    sendbuf(i) = 1000 * rank + (i - 1)
    counts(i) = 1
    displs(i) = 4 * (i - 1)
    types(i) = MPI_INTEGER
  end do
  recvbuf = -1
  call MPI_Alltoallw(sendbuf, counts, displs, types, recvbuf, counts, displs, types, &
                     MPI_COMM_WORLD)
  do i = 1, nprocs
    if (recvbuf(i) /= 1000 * (i - 1) + rank) bad = bad + 1
  end do
  recvbuf = -1
  call MPI_Ialltoallw(sendbuf, counts, displs, types, recvbuf, counts, displs, types, &
                      MPI_COMM_WORLD, request)
  call MPI_Wait(request, MPI_STATUS_IGNORE)
  do i = 1, nprocs
    if (recvbuf(i) /= 1000 * (i - 1) + rank) bad = bad + 1
  end do

  ! A node's shared-memory window.
  call MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node)
  call MPI_Win_allocate_shared(4_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, node, base, win)
  call MPI_Win_free(win)
  call MPI_Comm_free(node)

  ! Calls the measurement does not record.
  position = 0
  do i = 1, 2
    call MPI_Pack(rank, 1, MPI_INTEGER, packed, 64, position, MPI_COMM_WORLD)
  end do
  if (position /= 8) bad = bad + 1
  do i = 1, 3
    call MPI_Type_dup(MPI_INTEGER, copies(i))
  end do
  do i = 1, 3
    call MPI_Type_free(copies(i))
  end do

  call MPI_Reduce(bad, total, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD)
  if (rank == 0 .and. total == 0) print '(A)', 'f08_probes_alltoallw ok'
  call MPI_Finalize()
end program f08_probes_alltoallw
