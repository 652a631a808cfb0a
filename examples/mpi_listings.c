/*
 * mpi_listings — the manual's MPI communication listings as process arrays (listings 33 to 36):
 *     mpirun -np 5 mpi_listings sendrecv|alltoall|scatter|mixtomix
 * Every process enters pa_mpi_main; rank 0 runs main, which starts an mpi process array with pa_for.  Each
 * process of the array declares the listing's types in its own scope, creates its local arrays, fills them,
 * and takes part in the distributed copy; one process prints what it received, as in the manual.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <parray/parray.h>
#include <parray/mpi.h>

/* The declarations every process of the array makes (the manual's $parray lines). */
static const char *const decls =
    "P = mpi [4]\n"
    "D = paged int [3]\n"
    "S33 = [1 # disp(1) # P][#D]\n"         /* listing 33: three ints on process 1 ... */
    "T33 = [1 # disp(3) # P][#D]\n"         /* ... go to process 3 */
    "M = mpi [3]\n"
    "D3 = paged int [3][3]\n"
    "S34 = [#M][#D3_0][#D3_1]\n"            /* listing 34: row j of process i goes to row i of process j */
    "T34 = [#D3_0][#M][#D3_1]\n"
    "T35 = [#M][#D3_1]\n"                   /* listing 35: the rows of D3 on process 0 are scattered */
    "M2 = mpi [2][2]\n"
    "D2 = paged int [2][2]\n"
    "S36 = [#M2][#D2]\n"                    /* listing 36: mixtomix */
    "T36 = [[#M2_1][#D2_0]][[#M2_0][#D2_1]]\n";

typedef struct { char which[16]; } job;

static void print_array(const pa_type *t, const int *a)
{
    for (int64_t i = 0; i < pa_size(t); i++)
        printf("%d%s", a[pa_offset(t, i)], i + 1 < pa_size(t) ? " " : "\n");
}

/* Creates the local arrays (s of type ls, t of type lt), fills them, copies src to dst and prints on one. */
static int exchange(pa_scope *s, int k, const char *src, const char *dst, const char *ls, const char *lt,
                    int fill_all, int printer)
{
    const pa_type *LS = pa_type_get(s, ls), *LT = pa_type_get(s, lt);
    int *a = pa_create(LS), *b = pa_create(LT), st;
    if (!a || !b)
        return PA_ERR_NOMEM;
    for (int64_t i = 0; i < pa_size(LS); i++)
        a[i] = fill_all ? k : (k == 0 ? (int)i : -1);   /* listing 35 fills only process 0's array */
    for (int64_t i = 0; i < pa_size(LT); i++)
        b[i] = -1;
    st = pa_copy(pa_type_get(s, dst), b, pa_type_get(s, src), a);
    if (st == PA_OK && k == printer)
        print_array(LT, b);
    pa_destroy(LS, a);
    pa_destroy(LT, b);
    return st;
}

static int listing(pa_ctx *ctx, void *arg)
{
    const job *j = arg;
    pa_scope *s = NULL;
    int k = (int)pa_tid(ctx), st = pa_scope_create(NULL, &s);
    if (st == PA_OK)
        st = pa_declare_text(s, decls);
    if (st == PA_OK && strcmp(j->which, "sendrecv") == 0) {
        const pa_type *D = pa_type_get(s, "D");
        int d[3] = {k, k, k};
        st = pa_copy(pa_type_get(s, "T33"), d, pa_type_get(s, "S33"), d);
        if (st == PA_OK && k == 3)
            print_array(D, d);
    } else if (st == PA_OK && strcmp(j->which, "alltoall") == 0) {
        st = exchange(s, k, "S34", "T34", "D3", "D3", 1, 1);
    } else if (st == PA_OK && strcmp(j->which, "scatter") == 0) {
        st = exchange(s, k, "D3", "T35", "D3", "D3_1", 0, 1);
    } else if (st == PA_OK) {
        st = exchange(s, k, "S36", "T36", "D2", "D2", 1, 2);
    }
    fflush(stdout);
    pa_scope_destroy(s);
    return st;
}

static int run(int argc, char **argv)
{
    pa_scope *s = NULL;
    job j;
    if (argc < 2)
        return fprintf(stderr, "usage: mpirun -np 5 mpi_listings sendrecv|alltoall|scatter|mixtomix\n"), 2;
    snprintf(j.which, sizeof j.which, "%s", argv[1]);
    pa_scope_create(NULL, &s);
    const char *shape = strcmp(j.which, "sendrecv") == 0 ? "mpi [4]" : strcmp(j.which, "mixtomix") == 0
                        ? "mpi [2][2]" : "mpi [3]";
    int st = pa_for(pa_type_parse(s, shape), listing, &j, sizeof j);
    if (st != PA_OK)
        fprintf(stderr, "mpi_listings: %s\n", pa_last_error());
    pa_scope_destroy(s);
    return st == PA_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
    pa_mpi_register("listing", listing);
    return pa_mpi_main(argc, argv, run);
}
