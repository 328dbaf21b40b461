! f08_file_io -- an mpi_f08 program's file I/O through the calls that take a string: every rank
! opens one file collectively (MPI_File_open), sets a view of integers (MPI_File_set_view), writes
! 4 integers at its own place (MPI_File_write_at_all, 16 bytes) and closes it; rank 0 then deletes
! it (MPI_File_delete). Prints "f08_file_io ok" on rank 0 when every call returned MPI_SUCCESS.
program f08_file_io
  use mpi_f08
  implicit none
  integer :: rank, ierror, bad
  integer :: values(4)
  integer(kind=MPI_OFFSET_KIND) :: disp, offset
  type(MPI_File) :: fh

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  bad = 0
  values = rank
  call MPI_File_open(MPI_COMM_WORLD, 'f08_file_io.dat', ior(MPI_MODE_CREATE, MPI_MODE_WRONLY), &
                     MPI_INFO_NULL, fh, ierror)
  if (ierror /= MPI_SUCCESS) bad = bad + 1
  disp = 0
  call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL, ierror)
  if (ierror /= MPI_SUCCESS) bad = bad + 1
  offset = 4 * rank
  call MPI_File_write_at_all(fh, offset, values, 4, MPI_INTEGER, MPI_STATUS_IGNORE, ierror)
  if (ierror /= MPI_SUCCESS) bad = bad + 1
  call MPI_File_close(fh, ierror)
  if (ierror /= MPI_SUCCESS) bad = bad + 1
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) then
    call MPI_File_delete('f08_file_io.dat', MPI_INFO_NULL, ierror)
    if (ierror /= MPI_SUCCESS) bad = bad + 1
    if (bad == 0) print '(a)', 'f08_file_io ok'
  end if
  call MPI_Finalize()
end program f08_file_io
