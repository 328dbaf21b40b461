! Fortran (use mpi) program for the Fortran wrappers: per rank 2 MPI_Send or MPI_Recv in pairs
! (0->1, 2->3), one MPI_Allreduce, one MPI_Barrier, with MPI_STATUS_IGNORE and a real status;
! and two calls the measurement does not record: MPI_Pack and MPI_Type_extent (removed in
! MPI-3, still in Fortran), once each.
program fortran_p2p
  use mpi
  implicit none
  integer :: ierr, rank, nranks, peer, i
  integer :: status(MPI_STATUS_SIZE)
  double precision :: buf(16), s, t
  integer :: extent, position
  character :: packed(16)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  peer = ieor(rank, 1)
  buf = 1.0d0
  do i = 1, 2
    if (mod(rank, 2) == 0) then
      call MPI_Send(buf, 16, MPI_DOUBLE_PRECISION, peer, 11, MPI_COMM_WORLD, ierr)
    else if (i == 1) then
      call MPI_Recv(buf, 16, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, 11, MPI_COMM_WORLD, status, ierr)
    else
      call MPI_Recv(buf, 16, MPI_DOUBLE_PRECISION, peer, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    end if
  end do
  s = rank
  call MPI_Allreduce(s, t, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Type_extent(MPI_DOUBLE_PRECISION, extent, ierr)
  position = 0
  call MPI_Pack(rank, 1, MPI_INTEGER, packed, 16, position, MPI_COMM_WORLD, ierr)
  if (extent /= 8 .or. position /= 4) print '(A)', 'fortran_p2p: wrong extent or pack'
  if (rank == 0) print '(A,F5.1)', 'fortran_p2p: sum=', t
  call MPI_Finalize(ierr)
end program fortran_p2p
