/*
 * parray MPI tests — copies between a gamem array and arrays distributed over mpi processes (manual section
 * 4.12), in SPMD code on any number of processes (the suite runs 4 and 3): a 6x5 Global Array filled by
 * process 0, copied into row blocks, an uneven window (a block of the 30 elements), cyclic(2) columns and a
 * 5x6 view in row blocks, every rank's elements checked against the types' reference offsets; then each rank
 * changes its part and copies it back (NGA_Put by every rank), and process 0 reads the whole array and checks
 * every element.  A rank that owns nothing passes NULL.  Wrong sizes are refused on every rank alike.  Each
 * rank's plan is made once per pair of types and direction, and repeated copies reuse it.
 */
#include "gamem_util.h"
#include "mpi_backend.h"

static int me, nprocs;

static void one(const char *dist, const char *local)
{
    const pa_type *g = T("GA"), *h = T("H"), *d = T(dist), *l = T(local);
    int host[30], *ga = pa_create(g);
    int64_t len = pa_size(l);
    int *mine = malloc((size_t)len * sizeof *mine);
    MCK(ga != NULL, "pa_create(GA): %s", pa_last_error());
    if (!ga || !d || !l)
        return;
    for (int i = 0; i < 30; i++)
        host[i] = 100 + i;
    if (me == 0)
        MCK_OK(pa_copy(g, ga, h, host));
    for (int64_t i = 0; i < len; i++)
        mine[i] = -1;
    int64_t owned = 0;
    for (int64_t k = 0; k < 30; k++)
        owned += pa_offset_on(d, PA_ON_THREAD, k) == me;
    /* get: every rank its part (the copy starts with a barrier, so process 0's put is complete) */
    int st = pa_copy(d, owned ? mine : NULL, g, ga);
    MCK(st == PA_OK, "%s <- GA: %s", dist, pa_last_error());
    for (int64_t k = 0; st == PA_OK && k < 30; k++)
        if (pa_offset_on(d, PA_ON_THREAD, k) == me) {
            int64_t o = pa_offset_on(d, PA_ON_LOCAL, k);
            MCK(mine[o] == 100 + (int)k, "%s: element %lld at %lld is %d", dist, (long long)k, (long long)o, mine[o]);
            mine[o] = -(100 + (int)k);
        }
    /* put: every rank its part; the array is complete when the copy returns */
    st = pa_copy(g, ga, d, owned ? mine : NULL);
    MCK(st == PA_OK, "GA <- %s: %s", dist, pa_last_error());
    if (me == 0) {
        int back[30];
        MCK_OK(pa_copy(h, back, g, ga));
        for (int k = 0; k < 30; k++)
            MCK(back[k] == -(100 + k), "GA <- %s: element %d is %d", dist, k, back[k]);
    }
    char how[512];
    MCK_OK(pa_copy_explain(d, g, how, sizeof how) > 0 ? PA_OK : PA_ERR_INVAL);
    MCK(strstr(how, "one-sidedly") != NULL, "explain: %s", how);
    MPI_Barrier(MPI_COMM_WORLD);
    MCK_OK(pa_destroy(g, ga));
    free(mine);
}

static void test_rows(void)
{
    one("ROWS", "LR");
}

static void test_uneven(void)
{
    one("UNEVEN", "L8");
}

static void test_cyclic(void)
{
    one("CYC", "LC");
}

static void test_transposed(void)
{
    one("TR", "LT");
}

/* Repeated copies reuse the rank's plan: after a first round (which makes at most one plan per direction and
 * type, none where an earlier test made it), three more rounds make none; CYC's local arrays are packed (an
 * uneven inner axis), so its plans are keyed by the types. */
static void test_cached(void)
{
    const char *dists[] = {"ROWS", "CYC"}, *locals[] = {"LR", "LC"};
    int *ga = pa_create(T("GA"));
    MCK(ga != NULL, "pa_create(GA): %s", pa_last_error());
    for (int t = 0; ga && t < 2; t++) {
        const pa_type *d = T(dists[t]), *g = T("GA");
        int *mine = calloc((size_t)pa_size(T(locals[t])), sizeof *mine);
        long before = pa_mpi__gamem_plans_made(), after_first = 0;
        for (int round = 0; round < 4; round++) {
            MCK_OK(pa_copy(d, mine, g, ga));
            MCK_OK(pa_copy(g, ga, d, mine));
            if (round == 0)
                after_first = pa_mpi__gamem_plans_made();
        }
        MCK(after_first - before <= 2, "%s: the first round made %ld plans", dists[t], after_first - before);
        MCK(pa_mpi__gamem_plans_made() == after_first, "%s: later rounds made %ld plans (none expected)",
            dists[t], pa_mpi__gamem_plans_made() - after_first);
        char how[512];
        MCK_OK(pa_copy_explain(d, g, how, sizeof how) > 0 ? PA_OK : PA_ERR_INVAL);
        MCK(strstr(how, "cached") != NULL && pa_mpi__gamem_plans_made() == after_first, "explain: %s", how);
        free(mine);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (ga)
        MCK_OK(pa_destroy(T("GA"), ga));
}

static void test_errors(void)
{
    int *ga = pa_create(T("GA")), x[8];
    MCK_ERR(pa_copy(T("SMALL"), x, T("GA"), ga), PA_ERR_SIZE);
    MCK_OK(pa_destroy(T("GA"), ga));
}

int main(int argc, char **argv)
{
    char text[1024];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    int p = nprocs, b = (30 + p - 1) / p, r = (6 + p - 1) / p, c = (5 + 2 * p - 1) / (2 * p);
    pa_scope_create(NULL, &scope);
    /* ROWS: rows of the 6x5 array in blocks of r rows (uneven); UNEVEN: a block of b of the 30 elements;
     * CYC: columns dealt cyclic(2), rows kept; TR: the 30 elements as 5 rows of 6, in blocks of rows. */
    snprintf(text, sizeof text,
             "P = mpi [%d]\nGA = gamem int [6][5]\nH = paged int [6][5]\nSMALL = [[#P][8 # [1]]]\n"
             "LR = paged int [%d][5]\nROWS = [[6 # [#P][#LR_0]][#LR_1]]\n"
             "L8 = paged int [%d]\nUNEVEN = [30 # [#P][#L8]]\n"
             "LC = paged int [6][%d][2]\nCYC = [[#LC_0][5 # [#LC_1][#P][#LC_2]]]\n"
             "LT = paged int [%d][6]\nTR = [[5 # [#P][#LT_0]][#LT_1]]",
             p, r, b, c, (5 + p - 1) / p);
    int st = pa_declare_text(scope, text);
    MCK(st == PA_OK, "declarations: %s\n%s", pa_last_error(), text);
    mck_run("gamem <-> row blocks", test_rows);
    mck_run("gamem <-> uneven window", test_uneven);
    mck_run("gamem <-> cyclic columns", test_cyclic);
    mck_run("gamem <-> transposed", test_transposed);
    mck_run("gamem <-> distributed plans cached", test_cached);
    mck_run("gamem <-> distributed errors", test_errors);
    pa_scope_destroy(scope);
    int all = 0;
    MPI_Allreduce(&mck_failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return all ? 1 : 0;
}
