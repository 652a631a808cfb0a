/*
 * parray MPI tests — gamem arrays of elements of any size, and copies between gamem arrays, in SPMD code on 4
 * processes.  Elements of 1, 2, 3, 12, 16, 24 and 40 bytes (and the named char, int, double) are stored as
 * whole Global Arrays units (C_CHAR, C_INT, C_LONGLONG, or the named type) with a last dimension of their
 * count, and move byte for byte through contiguous, transposed and windowed copies.  gamem to gamem copies
 * (ga_copy) between arrays of the same shape and of different layouts, within one array, of large elements,
 * and in slices through a bounded buffer (made small here), are compared element by element with the
 * reference offsets, destinations poisoned first.
 *     mpirun -np 4 test_mpi_gamem_types
 */
#include "gamem_util.h"

static int me, nprocs;

/* Declares, for element type e: G_e [4][6], a transposed view, host types, a window. */
static void declare_for(const char *e)
{
    char text[1024];
    snprintf(text, sizeof text,
             "G_%1$s = gamem %1$s [4][6]\n"
             "GX_%1$s = gamem %1$s [#G_%1$s_1][#G_%1$s_0]\n"
             "H_%1$s = paged %1$s [4][6]\n"
             "HT_%1$s = paged %1$s [6][4]\n"
             "HX_%1$s = paged %1$s [#HT_%1$s_1][#HT_%1$s_0]\n"
             "GW_%1$s = gamem %1$s [[2 # disp(1) # G_%1$s_0][3 # disp(2) # G_%1$s_1]]\n"
             "HW_%1$s = paged %1$s [2][3]\n", e);
    MCK(pa_declare_text(scope, text) == PA_OK, "declarations for %s: %s", e, pa_last_error());
}

static void test_elements(void)
{
    static const struct { const char *elm, *shape; } cases[] = {
        {"e1", "C_CHAR 4x6"},        {"e2", "C_CHAR 4x6x2"},      {"e3", "C_CHAR 4x6x3"},
        {"e12", "C_INT 4x6x3"},      {"e16", "C_LONGLONG 4x6x2"}, {"e24", "C_LONGLONG 4x6x3"},
        {"e40", "C_LONGLONG 4x6x5"}, {"char", "C_CHAR 4x6"},      {"int", "C_INT 4x6"},
        {"double", "C_DBL 4x6"},
    };
    char g[32], gx[32], h[32], hx[32], ht[32], gw[32], hw[32];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *e = cases[i].elm;
        snprintf(g, sizeof g, "G_%s", e);
        snprintf(gx, sizeof gx, "GX_%s", e);
        snprintf(h, sizeof h, "H_%s", e);
        snprintf(hx, sizeof hx, "HX_%s", e);
        snprintf(ht, sizeof ht, "HT_%s", e);
        snprintf(gw, sizeof gw, "GW_%s", e);
        snprintf(hw, sizeof hw, "HW_%s", e);
        void *p = pa_create(T(g));
        MCK(p && strcmp(ga_shape(p), cases[i].shape) == 0, "%s: %s, expected %s", g, p ? ga_shape(p) :
            pa_last_error(), cases[i].shape);
        MCK_OK(pa_destroy(T(g), p));
        round_trip_on(MPI_COMM_WORLD, g, g, h, (int)i, "calls=1 strided=0 packed=0", "calls=1 strided=0 packed=0");
        round_trip_on(MPI_COMM_WORLD, g, g, hx, (int)i + 1, NULL, NULL);
        round_trip_on(MPI_COMM_WORLD, g, gx, ht, (int)i + 2, NULL, NULL);
        round_trip_on(MPI_COMM_WORLD, g, gw, hw, (int)i + 3, "calls=1 strided=0 packed=0",
                      "calls=1 strided=0 packed=0");
    }
}

static void gamem_to_gamem(const char *dm, const char *dt, const char *sm, const char *st, int same, int writer)
{
    gamem_copy_check(T(dm), T(dt), T(sm), T(st), same, writer);
}

static void test_gamem_to_gamem(void)
{
    gamem_to_gamem("G_int", "G_int", "G_int", "G_int", 0, 0);          /* same shape, contiguous */
    gamem_to_gamem("G64", "G64", "G_int", "GX_int", 0, 1);             /* [6][4] <- the transposed view */
    gamem_to_gamem("G_int", "GX_int", "G64", "G64", 0, 2);             /* and back */
    gamem_to_gamem("G_e12", "GX_e12", "G64_e12", "G64_e12", 0, 3);     /* 12-byte elements, transposed */
    gamem_to_gamem("G3", "G3", "G_int", "G_int", 0, 0);                /* 3 x 4 x 2 <- 4 x 6 */
    gamem_to_gamem("GB", "GW2", "GB", "GW1", 1, 1);                    /* two windows of one array */
    gamem_to_gamem("GB", "GB", "GB", "GBX", 1, 2);                     /* one array transposed in place */
    pa_ga__slice_bytes = 3000;                                         /* in slices: 7 rows of 10 e40 */
    gamem_to_gamem("GBIG", "GBIG", "GBIG2", "GBIG2X", 0, 3);
    pa_ga__slice_bytes = (int64_t)16 << 20;
}

static void test_errors(void)
{
    void *a = pa_create(T("G_int")), *b = pa_create(T("G_e12")), *c = pa_create(T("G3"));
    MCK(a && b && c, "pa_create: %s", pa_last_error());
    MCK_ERR(pa_copy(T("G_int"), a, T("G_e12"), b), PA_ERR_ELM);       /* element sizes differ */
    MCK_ERR(pa_copy(T("G_int"), a, T("GW_int"), a), PA_ERR_SIZE);      /* sizes differ */
    MCK_ERR(pa_copy(T("GB"), a, T("GB"), c), PA_ERR_RANGE);            /* both arrays are too small for GB */
    MPI_Barrier(MPI_COMM_WORLD);
    MCK_OK(pa_destroy(T("G_int"), a));
    MCK_OK(pa_destroy(T("G_e12"), b));
    MCK_OK(pa_destroy(T("G3"), c));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    pa_scope_create(NULL, &scope);
    static const struct { const char *name; size_t size; } elms[] = {
        {"e1", 1}, {"e2", 2}, {"e3", 3}, {"e12", 12}, {"e16", 16}, {"e24", 24}, {"e40", 40},
    };
    for (size_t i = 0; i < sizeof elms / sizeof elms[0]; i++)
        MCK(pa_scope_def_elm(scope, elms[i].name, elms[i].size) == PA_OK, "%s", pa_last_error());
    const char *all[] = {"e1", "e2", "e3", "e12", "e16", "e24", "e40", "char", "int", "double"};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        declare_for(all[i]);
    int st = pa_declare_text(scope,
        "G64 = gamem int [6][4]\n"
        "G64_e12 = gamem e12 [6][4]\n"
        "G3 = gamem int [3][[4][2]]\n"
        "GB = gamem int [6][8]\n"
        "GW1 = gamem int [[3 # disp(0) # GB_0][4 # disp(0) # GB_1]]\n"
        "GW2 = gamem int [[3 # disp(3) # GB_0][4 # disp(4) # GB_1]]\n"
        "GBT = gamem int [8][6]\n"
        "GBX = gamem int [#GBT_1][#GBT_0]\n"       /* 6 x 8 read column by column */
        "GBIG = gamem e40 [40][10]\n"
        "GBIG2 = gamem e40 [10][40]\n"
        "GBIG2X = gamem e40 [#GBIG2_1][#GBIG2_0]\n");
    MCK(st == PA_OK, "declarations: %s", pa_last_error());
    mck_run("element sizes", test_elements);
    mck_run("gamem to gamem", test_gamem_to_gamem);
    mck_run("errors", test_errors);
    pa_scope_destroy(scope);
    int failed = 0;
    MPI_Allreduce(&mck_failures, &failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return failed ? 1 : 0;
}
