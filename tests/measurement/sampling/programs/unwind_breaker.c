/*
 * Computation on a stack libunwind cannot walk, between phases of ordinary computation, so
 * the sampling test can check that such samples are counted and land on "failed unwind".
 * Usage: unwind_breaker [seconds on the broken stack] [seconds of ordinary computation]
 *
 * The broken phase spins in spin_on_broken_stack() (x86-64 assembly below, deliberately
 * without call-frame information) on a private stack whose top borders an unmapped page:
 *   - no FDE covers the function, so libunwind falls back to the frame-pointer chain;
 *   - %rbp points at the last word below the unmapped page, which passes libunwind's
 *     plausibility check (a little above the stack pointer), so it reads the return address
 *     from the word after it, in the unmapped page; that read fails its address validation
 *     and unw_step() reports an error: every sample taken there is a failed unwind.
 * Nothing ever reads or writes the unmapped page for real (the signal handler's frames go
 * below the stack pointer, far from it), so the program itself is correct.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#if !defined(__x86_64__)
#error "unwind_breaker needs x86-64"
#endif

/* void spin_on_broken_stack(long iterations, void* stack_pointer, void* frame_pointer):
 * switches to the given stack and frame pointer, counts down, switches back. No CFI. */
__asm__(".text\n"
        ".globl spin_on_broken_stack\n"
        ".type spin_on_broken_stack, @function\n"
        "spin_on_broken_stack:\n"
        "  pushq %rbp\n"
        "  pushq %rbx\n"
        "  movq %rsp, %rbx\n"
        "  movq %rsi, %rsp\n"
        "  movq %rdx, %rbp\n"
        "1:\n"
        "  decq %rdi\n"
        "  jnz 1b\n"
        "  movq %rbx, %rsp\n"
        "  popq %rbx\n"
        "  popq %rbp\n"
        "  ret\n"
        ".size spin_on_broken_stack, .-spin_on_broken_stack\n");
void spin_on_broken_stack(long iterations, void* stackPointer, void* framePointer);

static volatile double g_sink;

/* Ordinary computation: samples here unwind to main/compute_plainly. */
__attribute__((noinline)) static void compute_plainly(double seconds) {
    double until = MPI_Wtime() + seconds, sum = 0;
    while (MPI_Wtime() < until)
        for (int i = 0; i < 100000; ++i)
            sum += i * 1e-9;
    g_sink = sum;
}

/* Spins on the broken stack for `seconds` in chunks of about a millisecond. */
__attribute__((noinline)) static void compute_on_broken_stack(double seconds) {
    const size_t page = (size_t)sysconf(_SC_PAGESIZE), size = 64 * page;
    /* The private stack and one page above it; that page is unmapped again right away. */
    char* stack =
        mmap(NULL, size + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (stack == MAP_FAILED) {
        fprintf(stderr, "unwind_breaker: mmap failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    munmap(stack + size, page);
    char* top = stack + size;
    /* %rbp: the last word below the unmapped page; %rsp: 64 bytes below the top (16-aligned).
     * The signal handler runs below %rsp on this stack: 63 pages are room enough. */
    void* framePointer = top - 8;
    void* stackPointer = top - 64;
    double until = MPI_Wtime() + seconds;
    while (MPI_Wtime() < until)
        spin_on_broken_stack(1000000, stackPointer, framePointer);
    munmap(stack, size);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    double broken = argc > 1 ? atof(argv[1]) : 1.0;
    double plain = argc > 2 ? atof(argv[2]) : 0.5;
    MPI_Barrier(MPI_COMM_WORLD);
    compute_plainly(plain);
    MPI_Barrier(MPI_COMM_WORLD);
    compute_on_broken_stack(broken);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
