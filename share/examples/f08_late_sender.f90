! f08_late_sender -- the Late Sender of late_sender.c, written with the mpi_f08 module
! (TYPE(MPI_Comm), TYPE(MPI_Status), optional ierror), so that its trace can be compared with
! its C twin's.
!
! Ranks pair up (0-1, 2-3, ...). In each iteration the even rank computes for `delay` in
! compute_before_send and then sends a block of 256 doubles with MPI_Send; the odd rank is
! already waiting in MPI_Recv (in receive_block) and checks the status it gets. After the
! loop: MPI_Ibarrier and MPI_Wait, an MPI_Allreduce with MPI_IN_PLACE, and MPI_Barrier.
!
! Injected wait : Late Sender (Scalasca metric mpi_latesender)
! Call path     : main/MAIN__/receive_block_/MPI_Recv  (gfortran: the C main calls the
!                 program body MAIN__; external subroutines get a trailing underscore;
!                 mpi_f08's mpi_recv_f08_ is reported as MPI_Recv)
! Ranks         : the odd ones (1 and 3 for 4 ranks)
! Size          : iterations x delay per waiting rank; defaults 5 x 200 ms = 1.0 s
!
! Usage: example_f08_late_sender [iterations [delay_ms]]  (or WS_ITERATIONS / WS_DELAY_MS)

program f08_late_sender
  use mpi_f08
  implicit none
  integer :: rank, nprocs, it, niter, partner, total
  double precision :: delay_ms, block(256)
  logical :: ok
  type(MPI_Request) :: request

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  call read_params(niter, delay_ms, ok)
  if (.not. ok .or. nprocs < 2) then
    if (rank == 0) write (*, '(a)') &
      'usage: example_f08_late_sender [iterations [delay_ms]] (needs >= 2 ranks)'
    call MPI_Finalize()
    stop 2
  end if

  block = 0.0d0
  partner = ieor(rank, 1)
  call MPI_Barrier(MPI_COMM_WORLD)
  if (partner < nprocs) then
    do it = 1, niter
      if (mod(rank, 2) == 0) then
        call compute_before_send(delay_ms, block)
        call MPI_Send(block, 256, MPI_DOUBLE_PRECISION, partner, 11, MPI_COMM_WORLD)
      else
        call receive_block(block, partner, ok)
        if (.not. ok) call MPI_Abort(MPI_COMM_WORLD, 1)
      end if
    end do
  end if

  call MPI_Ibarrier(MPI_COMM_WORLD, request)
  call MPI_Wait(request, MPI_STATUS_IGNORE)
  total = 1
  call MPI_Allreduce(MPI_IN_PLACE, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) then
    write (*, '(a,i0,a,i0,a,f0.1,a)') 'f08_late_sender: ', total, ' ranks, ', niter, &
      ' iterations, delay ', delay_ms, ' ms'
    if (total /= nprocs) call MPI_Abort(MPI_COMM_WORLD, 1)
  end if
  call MPI_Finalize()
end program f08_late_sender

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

! Busy loop until delay_ms of wall-clock time (system_clock) have passed, then touch the block.
subroutine compute_before_send(delay_ms, block)
  implicit none
  double precision, intent(in) :: delay_ms
  double precision, intent(inout) :: block(256)
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
  block = block + 1.0d0
  if (acc < 0.0d0) write (*, *) acc   ! keeps the loop from being optimized away
end subroutine compute_before_send

! The blocking receive, with a real status whose source and count are checked.
subroutine receive_block(block, partner, ok)
  use mpi_f08
  implicit none
  double precision, intent(inout) :: block(256)
  integer, intent(in) :: partner
  logical, intent(out) :: ok
  type(MPI_Status) :: status
  integer :: count

  call MPI_Recv(block, 256, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, 11, MPI_COMM_WORLD, status)
  call MPI_Get_count(status, MPI_DOUBLE_PRECISION, count)
  ok = status%MPI_SOURCE == partner .and. status%MPI_TAG == 11 .and. count == 256
end subroutine receive_block
