! fortran_ring -- a Fortran program (use mpi, not mpi_f08) that injects a
! Late Sender along a token ring.
!
! In each iteration rank 0 computes for `delay` in delay_before_send and then
! passes a token around the ring 0 -> 1 -> ... -> P-1 -> 0 with blocking
! MPI_Send/MPI_Recv (in pass_token). Every other rank is already waiting in
! MPI_Recv, so ranks 1..P-1 each wait about `delay` per iteration (rank k waits
! for rank k-1, which forwards the token as soon as it has it). After the loop:
! MPI_Allreduce of the token counts and MPI_Barrier (in finish_up).
!
! Injected wait : Late Sender (Scalasca metric mpi_latesender)
! Call path     : main/MAIN__/pass_token_/MPI_Recv  (gfortran: the C main calls the
!                 program body MAIN__; external subroutines get a trailing underscore;
!                 the Fortran binding mpi_recv_ is reported as MPI_Recv)
! Ranks         : 1 .. P-1 (1, 2, 3 for 4 ranks)
! Size          : iterations x delay per waiting rank; defaults 5 x 200 ms
!                 = 1.0 s on each of ranks 1..3 (3.0 s in total for 4 ranks).
!
! Usage: example_fortran_ring [iterations [delay_ms]]  (or WS_ITERATIONS / WS_DELAY_MS)

program fortran_ring
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, it, niter, token, laps
  double precision :: delay_ms
  logical :: ok

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call read_params(niter, delay_ms, ok)
  if (.not. ok .or. nprocs < 2) then
    if (rank == 0) write (*, '(a)') &
      'usage: example_fortran_ring [iterations [delay_ms]] (needs >= 2 ranks)'
    call MPI_Finalize(ierr)
    stop 2
  end if

  call start_together()
  token = 0
  do it = 1, niter
    if (rank == 0) call delay_before_send(delay_ms)
    call pass_token(rank, nprocs, token)
  end do
  call finish_up(token, laps)

  if (rank == 0) then
    write (*, '(a,i0,a,i0,a,f0.1,a,i0)') 'fortran_ring: ', nprocs, ' ranks, ', niter, &
      ' iterations, delay ', delay_ms, ' ms, token laps ', laps
    if (token /= niter * nprocs) then
      write (*, '(a)') 'fortran_ring: wrong token value'
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end if
  call MPI_Finalize(ierr)
end program fortran_ring

! Iterations and delay from the environment, overridden by the command line.
subroutine read_params(niter, delay_ms, ok)
  implicit none
  integer, intent(out) :: niter
  double precision, intent(out) :: delay_ms
  logical, intent(out) :: ok
  character(len=64) :: text
  integer :: length, status, ios

  niter = 5
  delay_ms = 200.0d0
  ok = .true.
  call get_environment_variable('WS_ITERATIONS', text, length, status)
  if (status == 0 .and. length > 0) read (text, *, iostat=ios) niter
  if (status == 0 .and. length > 0 .and. ios /= 0) ok = .false.
  call get_environment_variable('WS_DELAY_MS', text, length, status)
  if (status == 0 .and. length > 0) read (text, *, iostat=ios) delay_ms
  if (status == 0 .and. length > 0 .and. ios /= 0) ok = .false.
  if (command_argument_count() >= 1) then
    call get_command_argument(1, text)
    read (text, *, iostat=ios) niter
    if (ios /= 0) ok = .false.
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, text)
    read (text, *, iostat=ios) delay_ms
    if (ios /= 0) ok = .false.
  end if
  if (command_argument_count() > 2 .or. niter < 1 .or. delay_ms < 0.0d0) ok = .false.
end subroutine read_params

subroutine start_together()
  use mpi
  implicit none
  integer :: ierr
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
end subroutine start_together

! Busy loop until delay_ms of wall-clock time (system_clock) have passed.
subroutine delay_before_send(delay_ms)
  implicit none
  double precision, intent(in) :: delay_ms
  integer(kind=8) :: start, now, rate
  double precision :: acc
  integer :: k

  acc = 0.5d0
  call system_clock(start, rate)
  do
    do k = 1, 256
      acc = acc * 0.999999d0 + 1.0d-7
    end do
    call system_clock(now)
    if (dble(now - start) * 1000.0d0 / dble(rate) >= delay_ms) exit
  end do
  if (acc < 0.0d0) write (*, *) acc   ! keeps the loop from being optimized away
end subroutine delay_before_send

! One lap of the token: rank 0 starts it, everybody else forwards it.
subroutine pass_token(rank, nprocs, token)
  use mpi
  implicit none
  integer, intent(in) :: rank, nprocs
  integer, intent(inout) :: token
  integer :: ierr, left, right
  integer, parameter :: tag = 31

  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  if (rank == 0) then
    token = token + 1
    call MPI_Send(token, 1, MPI_INTEGER, right, tag, MPI_COMM_WORLD, ierr)
    call MPI_Recv(token, 1, MPI_INTEGER, left, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  else
    call MPI_Recv(token, 1, MPI_INTEGER, left, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    token = token + 1
    call MPI_Send(token, 1, MPI_INTEGER, right, tag, MPI_COMM_WORLD, ierr)
  end if
end subroutine pass_token

! Everybody learns the number of completed laps; then a final barrier.
subroutine finish_up(token, laps)
  use mpi
  implicit none
  integer, intent(in) :: token
  integer, intent(out) :: laps
  integer :: ierr, nprocs, total

  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_Allreduce(token, total, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  laps = total / nprocs
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
end subroutine finish_up
