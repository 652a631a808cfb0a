/*
 * parray MPI tests — random distributed copies on 2 or more processes (the suites run 3, 4 and 5): random
 * logical shapes of three dimensions, each side either local (on process 0) or distributed over one of the
 * dimensions (over a random range of processes), with its memory dimensions in a random order, nested or
 * not.  Every copy is checked element by element against the tree-walking offsets (mpi_verify.h).  Rank 0
 * draws the seed (PA_TEST_SEED replays one) and broadcasts it; it is printed on failure.
 */
#include <time.h>

#include "mpi_verify.h"
#include "test_seed.h"
#include <parray/mpi.h>

static uint64_t rng_state;

static int64_t rnd(int64_t lo, int64_t hi)
{
    rng_state += 0x9e3779b97f4a7c15ULL;
    uint64_t z = rng_state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return lo + (int64_t)(z % (uint64_t)(hi - lo + 1));
}

/* A random order of 0..n-1. */
static void shuffle(int *p, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rnd(0, i), t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
}

/*
 * Declares one side named X over logical sizes s[3]: memory type LX, process type MX, and X itself, whose
 * children refer to the logical dimensions in a random order.  \return the declaration text's length.
 */
static void declare_side(pa_scope *sc, const char *x, const int64_t *s, int nprocs, char *log, size_t loglen)
{
    char text[1024], ref[3][32];
    int order[3], mem[3], nmem = 0;
    int dist = rnd(0, 4) != 0;                  /* one side in five is local */
    int j = (int)rnd(0, 2);                     /* the distributed dimension */
    if (s[j] > nprocs)
        dist = 0;
    for (int d = 0; d < 3; d++)
        if (!dist || d != j)
            mem[nmem++] = d;
    int morder[3];
    shuffle(morder, nmem);                      /* the memory array's own dimension order */
    int n = snprintf(text, sizeof text, "L%s = paged int", x);
    for (int i = 0; i < nmem; i++)
        n += snprintf(text + n, sizeof text - (size_t)n, " [%lld]", (long long)s[mem[morder[i]]]);
    for (int i = 0; i < nmem; i++)
        snprintf(ref[mem[morder[i]]], sizeof ref[0], "#L%s_%d", x, i);
    if (dist) {
        int64_t shift = rnd(0, nprocs - s[j]);
        n += snprintf(text + n, sizeof text - (size_t)n, "\nM%s = [%lld # disp(%lld) # P4]", x, (long long)s[j],
                      (long long)shift);
        snprintf(ref[j], sizeof ref[0], "#M%s", x);
    }
    shuffle(order, 3);
    int nest = (int)rnd(0, 2);                  /* 0: flat; 1: the first two nested; 2: the last two */
    n += snprintf(text + n, sizeof text - (size_t)n, "\n%s = %s[%s]%s[%s]%s[%s]%s", x, nest == 1 ? "[" : "",
                  ref[order[0]], nest == 2 ? "[" : "", ref[order[1]], nest == 1 ? "]" : "", ref[order[2]],
                  nest == 2 ? "]" : "");
    snprintf(log, loglen, "%s", text);
    int st = pa_declare_text(sc, text);
    MCK(st == PA_OK, "declaring\n%s\n: %s", text, pa_last_error());
}

static void one_copy(int iter)
{
    pa_scope *sc = NULL;
    char ls[1024], ld[1024];
    int64_t s[3] = {rnd(1, 4), rnd(1, 4), rnd(1, 5)};
    pa_scope_create(NULL, &sc);
    char all[32];
    snprintf(all, sizeof all, "mpi [%d]", pa_mpi_nprocs());
    pa_declare(sc, "P4", all);   /* every process of the communicator, whatever their number */
    declare_side(sc, "S", s, pa_mpi_nprocs(), ls, sizeof ls);
    declare_side(sc, "T", s, pa_mpi_nprocs(), ld, sizeof ld);
    const pa_type *st = pa_type_get(sc, "S"), *dt = pa_type_get(sc, "T");
    char what[2200];
    snprintf(what, sizeof what, "iteration %d, source\n%s\ndestination\n%s\n", iter, ls, ld);
    if (st && dt && mv_check_copy(dt, st, what) != 0 && pa_mpi_rank() == 0)
        fprintf(stderr, "(seed state %llu)\n", (unsigned long long)rng_state);
    pa_scope_destroy(sc);
}

static uint64_t seed;

static void test_random(void)
{
    rng_state = seed;
    for (int i = 0; i < 300; i++)
        one_copy(i);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (pa_mpi_nprocs() < 2) {
        fprintf(stderr, "test_mpi_random: run with mpirun -np 2 or more\n");
        MPI_Finalize();
        return 77;
    }
    unsigned long long s = pa_test_seed_value();
    MPI_Bcast(&s, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    seed = s;
    if (pa_mpi_rank() == 0)
        fprintf(stderr, "test_mpi_random: seed %llu (PA_TEST_SEED replays it)\n", s);
    mck_run("random distributed copies", test_random);
    int all = 0;
    MPI_Allreduce(&mck_failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return all ? 1 : 0;
}
