! Instrumented Fortran procedures at known source lines: the instrument tests check that each
! region carries its first and last line (the subroutine and its end).
module lines
  implicit none
contains
  subroutine spread(value, steps)
    double precision, intent(inout) :: value
    integer, intent(in) :: steps
    integer :: i
    do i = 1, steps
      value = 0.5d0 * (value + i)
    end do
  end subroutine spread
end module lines

program source_lines
  use mpi
  use lines
  implicit none
  integer :: ierror
  double precision :: value
  call MPI_Init(ierror)
  value = 1.0d0
  call spread(value, 10)
  call MPI_Barrier(MPI_COMM_WORLD, ierror)
  call MPI_Finalize(ierror)
end program source_lines
