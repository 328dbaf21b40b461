/*
 * ws_example.h -- helpers shared by the Waitscope example MPI programs.
 *
 * Every example injects one wait state of a known size. To keep that size
 * exact, "computation" is a busy loop that runs until a wall-clock deadline
 * (CLOCK_MONOTONIC) has passed, so it lasts the requested time even when
 * four ranks share two cores. The helpers here are static inline on purpose:
 * they are folded into the named, noinline compute functions of each program,
 * so those names (not the helpers) appear on the call paths.
 *
 * Parameters (identical on all ranks):
 *   iterations  WS_ITERATIONS env var, overridden by argv[1]
 *   delay (ms)  WS_DELAY_MS   env var, overridden by argv[2]
 */
#ifndef WS_EXAMPLE_H
#define WS_EXAMPLE_H

#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WS_NOINLINE __attribute__((noinline))

typedef struct ws_params {
    int iterations;  /* loop count */
    double delay_ms; /* injected delay per iteration, milliseconds */
} ws_params;

/* Wall-clock seconds from a monotonic clock. */
static inline double ws_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Result sink so the compiler cannot drop the arithmetic in ws_spin_ms(). */
static volatile double ws_spin_sink;

/* Burn CPU until `ms` milliseconds of wall-clock time have elapsed. */
static inline void ws_spin_ms(double ms) {
    const double deadline = ws_now() + ms * 1e-3;
    double acc = 0.5;
    do {
        for (int k = 0; k < 256; ++k)
            acc = acc * 0.999999 + 1e-7;
    } while (ws_now() < deadline);
    ws_spin_sink = acc;
}

/* Parse one positive number; returns 0 on success. */
static inline int ws_parse_number(const char* text, double lo, double hi, double* out) {
    if (text == NULL || *text == '\0')
        return -1;
    char* end = NULL;
    errno = 0;
    const double v = strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0' || !(v >= lo && v <= hi))
        return -1;
    *out = v;
    return 0;
}

/*
 * Fill *p from defaults, then the environment, then argv ([iterations [delay_ms]]).
 * Returns 0 on success. On bad input rank 0 prints a usage line and the caller
 * should finalize and exit with status 2.
 */
static inline int ws_get_params(int argc, char** argv, int rank, const char* name,
                                int default_iterations, double default_delay_ms, ws_params* p) {
    const char* iter_text = getenv("WS_ITERATIONS");
    const char* delay_text = getenv("WS_DELAY_MS");
    double iters = default_iterations, delay = default_delay_ms;
    int bad = 0;

    if (argc > 1)
        iter_text = argv[1];
    if (argc > 2)
        delay_text = argv[2];
    if (argc > 3)
        bad = 1;
    if (iter_text != NULL && ws_parse_number(iter_text, 1, 1000000, &iters) != 0)
        bad = 1;
    if (delay_text != NULL && ws_parse_number(delay_text, 0, 600000, &delay) != 0)
        bad = 1;
    if (iters != (double)(int)iters)
        bad = 1;
    if (bad) {
        if (rank == 0)
            fprintf(stderr,
                    "usage: %s [iterations (1..1000000, default %d) [delay_ms (default %g)]]\n"
                    "       (or set WS_ITERATIONS / WS_DELAY_MS)\n",
                    name, default_iterations, default_delay_ms);
        return -1;
    }
    p->iterations = (int)iters;
    p->delay_ms = delay;
    return 0;
}

/* Returns 0 if the communicator size is at least `min_ranks`; rank 0 complains otherwise. */
static inline int ws_check_size(int size, int min_ranks, int rank, const char* name) {
    if (size >= min_ranks)
        return 0;
    if (rank == 0)
        fprintf(stderr, "%s: needs at least %d ranks, got %d\n", name, min_ranks, size);
    return -1;
}

/*
 * The start of every example's main(): MPI_Init, this rank and the size, the
 * parameters (ws_get_params) and the rank count (ws_check_size, at least
 * `min_ranks`). On bad input MPI is finalized and main returns 2. A macro, not
 * a function, so that MPI_Init stays on main's own call path.
 */
#define WS_START(argc, argv, name, min_ranks, default_iterations, default_delay_ms, rank, size,    \
                 par)                                                                              \
    do {                                                                                           \
        MPI_Init(&(argc), &(argv));                                                                \
        MPI_Comm_rank(MPI_COMM_WORLD, &(rank));                                                    \
        MPI_Comm_size(MPI_COMM_WORLD, &(size));                                                    \
        if (ws_get_params(argc, argv, rank, name, default_iterations, default_delay_ms, &(par)) || \
            ws_check_size(size, min_ranks, rank, name)) {                                          \
            MPI_Finalize();                                                                        \
            return 2;                                                                              \
        }                                                                                          \
    } while (0)

/*
 * Every program calls this once after MPI_Init so that all ranks leave it at
 * (nearly) the same moment; skew from MPI_Init is absorbed here, on the
 * call path main/start_together/MPI_Barrier, not in the injected pattern.
 */
static WS_NOINLINE void start_together(void) {
    MPI_Barrier(MPI_COMM_WORLD);
}

#endif /* WS_EXAMPLE_H */
