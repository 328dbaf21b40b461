! fortran_io_rma -- MPI file I/O and one-sided calls from Fortran (use mpi), each a known
! number of times per rank: MPI_File_open (a blank-padded name), MPI_File_set_view,
! MPI_File_write_at_all, MPI_File_write_at, MPI_File_close, MPI_File_delete (rank 0),
! MPI_Win_create, MPI_Win_fence x 3, MPI_Win_lock, MPI_Put, MPI_Win_unlock, MPI_Win_free.
! Prints "fortran_io_rma ok" on rank 0 when the window holds what was put.
! Usage: measure_fortran_io_rma FILE
program fortran_io_rma
  use mpi
  implicit none
  integer :: ierr, rank, fh, win, i
  integer :: buf(4)
  integer, volatile :: exposed(4) ! written by other ranks through the window
  integer(kind=MPI_OFFSET_KIND) :: offset, disp
  integer(kind=MPI_ADDRESS_KIND) :: wsize, target
  integer :: status(MPI_STATUS_SIZE)
  character(len=256) :: path

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call get_command_argument(1, path)
  buf = rank
  exposed = -1
  call MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE + MPI_MODE_WRONLY, MPI_INFO_NULL, &
                     fh, ierr)
  disp = 0
  call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL, ierr)
  offset = rank * 4
  call MPI_File_write_at_all(fh, offset, buf, 4, MPI_INTEGER, status, ierr)
  call MPI_File_write_at(fh, offset, buf, 4, MPI_INTEGER, status, ierr)
  call MPI_File_close(fh, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) call MPI_File_delete(path, MPI_INFO_NULL, ierr)

  wsize = 16
  call MPI_Win_create(exposed, wsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  do i = 1, 3
    call MPI_Win_fence(0, win, ierr)
  end do
  target = rank
  call MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win, ierr)
  call MPI_Put(rank, 1, MPI_INTEGER, 0, target, 1, MPI_INTEGER, win, ierr)
  call MPI_Win_unlock(0, win, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Win_free(win, ierr)
  if (rank == 0 .and. exposed(1) == 0 .and. exposed(2) == 1) print '(a)', 'fortran_io_rma ok'
  call MPI_Finalize(ierr)
end program fortran_io_rma
