/*
 * parray MPI tests — a small harness for programs that run under mpirun: Check's forked tests do not mix with
 * MPI, so each test is a function run in order by every rank, and a failure prints the rank and the message.
 * The program's exit status is nonzero when any check failed on this rank (mpirun then fails too).
 */
#ifndef PARRAY_MPI_CHECK_H
#define PARRAY_MPI_CHECK_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parray/parray.h"

static int mck_failures;

#define MCK(cond, ...)                                                                                   \
    do {                                                                                                 \
        if (!(cond)) {                                                                                   \
            int mck_rank = 0;                                                                            \
            MPI_Comm_rank(MPI_COMM_WORLD, &mck_rank);                                                    \
            fprintf(stderr, "rank %d: %s:%d: check failed: %s: ", mck_rank, __FILE__, __LINE__, #cond);  \
            fprintf(stderr, __VA_ARGS__);                                                                \
            fprintf(stderr, "\n");                                                                       \
            mck_failures++;                                                                              \
        }                                                                                                \
    } while (0)

#define MCK_OK(expr)                                                                                     \
    do {                                                                                                 \
        int mck_st = (expr);                                                                             \
        MCK(mck_st == PA_OK, "%s: %s", pa_status_name(mck_st), pa_last_error());                         \
    } while (0)

#define MCK_ERR(expr, code)                                                                              \
    do {                                                                                                 \
        pa_error_clear();                                                                                \
        int mck_st = (expr);                                                                             \
        MCK(mck_st == (code), "got %s, expected %s: %s", pa_status_name(mck_st), pa_status_name(code),   \
            pa_last_error());                                                                            \
        MCK(pa_last_error()[0] != '\0', "no message");                                                   \
    } while (0)

/* Runs one test on every rank, then agrees on whether every rank passed it so far. */
static inline void mck_run(const char *name, void (*fn)(void))
{
    int rank, before = mck_failures, all = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fn();
    int mine = mck_failures - before;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%-28s %s\n", name, all ? "FAILED" : "ok");
}

#endif
