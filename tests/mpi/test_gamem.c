/*
 * parray MPI tests — the gamem memory type (Global Arrays, manual §3.4, listings 17/18) on 4 processes, SPMD:
 * arrays created and destroyed by every rank, copies from host arrays into them and back through several
 * layouts (contiguous, a transposed host type, a transposed gamem view, a window, a reversed dimension), each
 * time by one rank while the others wait, every element compared with the types' reference offsets and every
 * destination poisoned first; explanations; errors.  Run with mpirun -np 4.
 */
#include <ga.h>

#include "mpi_check.h"

static pa_scope *scope;
static int me, nprocs;

static const pa_type *T(const char *name)
{
    const pa_type *t = pa_type_get(scope, name);
    MCK(t != NULL, "pa_type_get(%s): %s", name, pa_last_error());
    return t;
}

/* One more than the largest offset of a type. */
static int64_t extent_of(const pa_type *t)
{
    int64_t lo = 0, hi = -1;
    pa_extent(t, &lo, &hi);
    return hi + 1;
}

/*
 * Round trip through gamem type gname (whose flat view is flat, over an array made from type whole) and host
 * type hname: rank `writer` fills the host array with 1000 + offset and puts it; everyone reads the whole
 * array and checks the elements the copy reached (and that the others kept the poison); then `writer` fills
 * the array with 5000 + offset and everyone gets it back through the two types into a poisoned host array.
 */
static void round_trip(const char *whole, const char *flat, const char *gname, const char *hname, int writer,
                       const char *expect_put, const char *expect_get)
{
    const pa_type *wt = T(whole), *ft = T(flat), *gt = T(gname), *ht = T(hname);
    if (!wt || !ft || !gt || !ht)
        return;
    int64_t n = pa_size(gt), fn = pa_size(ft), hx = extent_of(ht);
    int *g = pa_create(wt);
    MCK(g != NULL, "pa_create(%s): %s", whole, pa_last_error());
    int *host = malloc((size_t)hx * sizeof *host), *all = malloc((size_t)fn * sizeof *all);
    const pa_type *hflat = NULL;
    char decl[64], hname_flat[64], line[512];
    snprintf(decl, sizeof decl, "paged int [%lld]", (long long)fn);
    snprintf(hname_flat, sizeof hname_flat, "HFLAT%lld", (long long)fn);
    if (!pa_type_get(scope, hname_flat))
        MCK(pa_declare(scope, hname_flat, decl) == PA_OK, "%s", pa_last_error());
    hflat = T(hname_flat);
    if (!g || !host || !all || !hflat)
        goto done;
    /* put: poison the whole array, then one rank copies host -> gamem */
    if (me == writer % nprocs) {
        for (int64_t o = 0; o < fn; o++)
            all[o] = -7;
        MCK_OK(pa_copy(ft, g, hflat, all));
        for (int64_t o = 0; o < hx; o++)
            host[o] = 1000 + (int)o;
        MCK_OK(pa_copy(gt, g, ht, host));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int64_t o = 0; o < fn; o++)
        all[o] = -1;
    MCK_OK(pa_copy(hflat, all, ft, g));
    char *seen = calloc((size_t)fn, 1);
    for (int64_t k = 0; seen && k < n; k++) {
        int64_t go = pa_offset(gt, k), ho = pa_offset(ht, k);
        seen[go] = 1;
        if (all[go] != 1000 + (int)ho)
            MCK(0, "put %s <- %s: element %lld at gamem offset %lld is %d, expected %d", gname, hname,
                (long long)k, (long long)go, all[go], 1000 + (int)ho);
    }
    for (int64_t o = 0; seen && o < fn; o++)
        if (!seen[o] && all[o] != -7)
            MCK(0, "put %s <- %s: gamem offset %lld was written (%d)", gname, hname, (long long)o, all[o]);
    MPI_Barrier(MPI_COMM_WORLD);
    /* get: one rank fills the array, everyone copies gamem -> host */
    if (me == writer % nprocs) {
        for (int64_t o = 0; o < fn; o++)
            all[o] = 5000 + (int)o;
        MCK_OK(pa_copy(ft, g, hflat, all));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int64_t o = 0; o < hx; o++)
        host[o] = -1;
    MCK_OK(pa_copy(ht, host, gt, g));
    memset(seen, 0, (size_t)fn < (size_t)hx ? (size_t)hx : (size_t)fn);
    for (int64_t k = 0; k < n; k++) {
        int64_t go = pa_offset(gt, k), ho = pa_offset(ht, k);
        if (host[ho] != 5000 + (int)go)
            MCK(0, "get %s <- %s: element %lld at host offset %lld is %d, expected %d", hname, gname,
                (long long)k, (long long)ho, host[ho], 5000 + (int)go);
    }
    int64_t touched = 0;
    for (int64_t o = 0; o < hx; o++)
        touched += host[o] != -1;
    MCK(touched == n, "get %s <- %s: %lld host elements written, expected %lld", hname, gname,
        (long long)touched, (long long)n);
    free(seen);
    int len = pa_copy_explain(gt, ht, line, sizeof line);
    MCK(len > 0 && strstr(line, expect_put) != NULL, "explain(%s <- %s) = \"%s\", expected %s", gname, hname,
        len > 0 ? line : pa_last_error(), expect_put);
    len = pa_copy_explain(ht, gt, line, sizeof line);
    MCK(len > 0 && strstr(line, expect_get) != NULL, "explain(%s <- %s) = \"%s\", expected %s", hname, gname,
        len > 0 ? line : pa_last_error(), expect_get);
    MPI_Barrier(MPI_COMM_WORLD);
done:
    MCK_OK(pa_destroy(wt, g));
    free(host);
    free(all);
}

static int64_t neg(int64_t i, void *ctx)
{
    (void)ctx;
    return -i;
}

static void test_contiguous(void)
{
    round_trip("G", "G", "G", "H", 0, "1 NGA_Put64 call of 24 elements, host side in place",
               "1 NGA_Get64 call of 24 elements, host side in place");
}

static void test_transposed_host(void)
{
    round_trip("G", "G", "G", "HX", 1, "4 NGA_Put64 calls of 6 elements, host side packed into a buffer",
               "6 NGA_Strided_get64 calls of 4 elements (skip 6), host side in place");
}

static void test_transposed_gamem(void)
{
    round_trip("G", "G", "GX", "HT", 2, "4 NGA_Put64 calls of 6 elements, host side packed into a buffer",
               "6 NGA_Strided_get64 calls of 4 elements (skip 6), host side in place");
}

static void test_window(void)
{
    round_trip("GB", "GB", "GW", "HW", 3, "3 NGA_Put64 calls of 4 elements, host side in place",
               "3 NGA_Get64 calls of 4 elements, host side in place");
}

static void test_reversed(void)
{
    round_trip("G", "G", "GR", "H", 1, "strategy=ga_put", "strategy=ga_get");
}

static void test_doubles(void)
{
    const pa_type *d = T("GD"), *h = T("HD");
    double src[6] = {1.5, 2.5, 3.5, 4.5, 5.5, 6.5}, out[6] = {0};
    double *g = pa_create(d);
    MCK(g != NULL, "pa_create(GD): %s", pa_last_error());
    if (!g)
        return;
    if (me == 0)
        MCK_OK(pa_copy(d, g, h, src));
    MPI_Barrier(MPI_COMM_WORLD);
    MCK_OK(pa_copy(h, out, d, g));
    MCK(memcmp(out, src, sizeof src) == 0, "doubles differ: %g %g", out[0], out[5]);
    MPI_Barrier(MPI_COMM_WORLD);
    MCK_OK(pa_destroy(d, g));
}

static void test_errors(void)
{
    int *g = pa_create(T("G")), *g2 = pa_create(T("G")), host[24];
    MCK(g != NULL && g2 != NULL, "pa_create: %s", pa_last_error());
    MCK(pa_mtt_available("gamem") == 1, "gamem unavailable");
    /* gamem <-> gamem has no strategy; the wrong size or element type is refused before any call */
    MCK_ERR(pa_copy(T("G"), g, T("G"), g2), PA_ERR_MTT);
    MCK_ERR(pa_copy(T("G"), g, T("HW"), host), PA_ERR_SIZE);
    MCK_ERR(pa_copy(T("GD"), g, T("HD"), host), PA_ERR_ELM);
    /* a larger type over a smaller array: the bounds are checked before Global Arrays would abort */
    MCK_ERR(pa_copy(T("GBH"), g, T("HB"), host), PA_ERR_RANGE);
    /* not host memory: a host copy cannot reach it, a foreign pointer is not a gamem array */
    MCK_ERR(pa_copy(T("G"), host, T("H"), host), PA_ERR_INVAL);
    MCK(pa_create(T("G1")) == NULL && strncmp(pa_last_error(), "ERR_ELM", 7) == 0, "1-byte elements: %s",
        pa_last_error());
    MCK_ERR(pa_destroy(T("H"), g), PA_ERR_INVAL);
    MPI_Barrier(MPI_COMM_WORLD);
    MCK_OK(pa_destroy(T("G"), g));
    MCK_OK(pa_destroy(T("G"), g2));
}

int main(int argc, char **argv)
{
    pa_scope_create(NULL, &scope);
    /* Before MPI: gamem is a clear error, not a crash. */
    MCK(pa_declare(scope, "G", "gamem int [4][6]") == PA_OK, "%s", pa_last_error());
    int *early = pa_create(pa_type_get(scope, "G"));
    char early_msg[256];
    snprintf(early_msg, sizeof early_msg, "%s", pa_last_error());
    MPI_Init(&argc, &argv);
    MCK(early == NULL && strncmp(early_msg, "ERR_NODEV", 9) == 0, "gamem before MPI_Init: %p, %s",
        (void *)early, early_msg);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    pa_scope_def_func(scope, "neg", neg, NULL);
    int st = pa_declare_text(scope,
        "H = paged int [4][6]\n"
        "HT = paged int [6][4]\n"
        "HX = paged int [#HT_1][#HT_0]\n"          /* a transposed host type */
        "GX = gamem int [#G_1][#G_0]\n"            /* a transposed view of the gamem array */
        "GR = gamem int [#G_0][6 # disp(-5) # func(neg) # G_1]\n"
        "GB = gamem int [6][8]\n"
        "GW = gamem int [[3 # disp(2) # GB_0][4 # disp(1) # GB_1]]\n"   /* a window */
        "HW = paged int [3][4]\n"
        "GBH = gamem int [6][8]\n"
        "HB = paged int [48]\n"
        "GD = gamem double [2][3]\n"
        "HD = paged double [2][3]\n"
        "G1 = gamem char [8]\n");
    MCK(st == PA_OK, "declarations: %s", pa_last_error());
    mck_run("contiguous", test_contiguous);
    mck_run("transposed host type", test_transposed_host);
    mck_run("transposed gamem view", test_transposed_gamem);
    mck_run("window", test_window);
    mck_run("reversed dimension", test_reversed);
    mck_run("doubles", test_doubles);
    mck_run("errors", test_errors);
    pa_scope_destroy(scope);
    int all = 0;
    MPI_Allreduce(&mck_failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    /* The library started Global Arrays; MPI_Finalize must have terminated it. */
    if (GA_Initialized()) {
        fprintf(stderr, "rank %d: Global Arrays is still initialised after MPI_Finalize\n", me);
        all = 1;
    }
    return all ? 1 : 0;
}
