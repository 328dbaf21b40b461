! f08_completion -- an mpi_f08 program completing its requests with the calls that return an
! index (Fortran counts from 1): per rank, with the partner rank xor 1, 4 rounds of 2 MPI_Irecv
! and 2 MPI_Isend completed by MPI_Waitany (round 1), MPI_Waitsome (2), MPI_Testany (3) and
! MPI_Testsome (4) until all four are done; every index is checked against the request's
! message. Prints "f08_completion ok" on rank 0 when all were right.
program f08_completion
  use mpi_f08
  implicit none
  integer :: rank, nprocs, partner, round, i, k, index, outcount, bad
  integer :: inbox(2), outbox(2), indices(4)
  logical :: flag, done(4)
  type(MPI_Request) :: requests(4)
  type(MPI_Status) :: status, statuses(4)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  partner = ieor(rank, 1)
  bad = 0
  do round = 1, 4
    inbox = -1
    do i = 1, 2
      outbox(i) = 10 * round + i
      call MPI_Irecv(inbox(i), 1, MPI_INTEGER, partner, i, MPI_COMM_WORLD, requests(i))
    end do
    do i = 1, 2
      call MPI_Isend(outbox(i), 1, MPI_INTEGER, partner, i, MPI_COMM_WORLD, requests(2 + i))
    end do
    done = .false.
    do while (.not. all(done))
      select case (round)
      case (1)
        call MPI_Waitany(4, requests, index, status)
        call mark(index)
      case (2)
        call MPI_Waitsome(4, requests, outcount, indices, statuses)
        do k = 1, outcount
          call mark(indices(k))
        end do
      case (3)
        call MPI_Testany(4, requests, index, flag, status)
        if (flag) call mark(index)
      case (4)
        call MPI_Testsome(4, requests, outcount, indices, statuses)
        do k = 1, outcount
          call mark(indices(k))
        end do
      end select
    end do
    if (inbox(1) /= 10 * round + 1 .or. inbox(2) /= 10 * round + 2) bad = bad + 1
  end do
  call MPI_Allreduce(MPI_IN_PLACE, bad, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0 .and. bad == 0) write (*, '(a)') 'f08_completion ok'
  call MPI_Finalize()
contains
  ! A completed index must name a request not completed before.
  subroutine mark(which)
    integer, intent(in) :: which
    if (which < 1 .or. which > 4) then
      bad = bad + 1
      done = .true.
    else if (done(which)) then
      bad = bad + 1
    else
      done(which) = .true.
    end if
  end subroutine mark
end program f08_completion
