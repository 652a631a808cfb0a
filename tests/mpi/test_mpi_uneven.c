/*
 * parray MPI tests — uneven distributions against Open MPI's MPI_Type_create_darray, on any number of
 * processes (the suites run 1 to 6).  A window [n # DIST] of a distributed type is darray's block or
 * cyclic(k) distribution of n elements (docs/types.md): for 1-D sizes 1..13 and 2-D shapes on the grid
 * MPI_Dims_create gives, block (default and a larger block) and cyclic(1..3):
 *   - scatter: a local array on process 0 copied into the distributed type; each rank's elements, read in the
 *     order of their local offsets, must be exactly what MPI_Pack of the global array through this rank's
 *     darray datatype gives (the same elements in the same order; processes owning nothing get nothing);
 *   - gather: the distributed type back into a local array on process 0, checked element by element;
 *   - redistribution both ways between two uneven distributions of the same array, checked element by element
 *     against the offsets on each side (mpi_verify.h).
 * A multi-dimensional window keeps each process's block padded to the largest one (darray packs it), so the
 * order, not the places, is compared there.
 */
#include "mpi_verify.h"

typedef struct axis {
    int n, k;          /* size; block (0: default) or cyclic(k) */
    int cyclic;
} axis;

static int cdiv(int a, int b)
{
    return (a + b - 1) / b;
}

/* The padded local length of an axis over p processes and the declaration of its window. */
static int axis_text(const axis *a, int p, const char *proc, const char *local, char *dim, size_t dlen,
                     char *loc, size_t llen)
{
    if (a->cyclic) {
        int c = cdiv(a->n, p * a->k);
        snprintf(dim, dlen, "[%d # [#%s_0][#%s][#%s_1]]", a->n, local, proc, local);
        snprintf(loc, llen, "[%d][%d]", c, a->k);
        return c * a->k;
    }
    int b = a->k ? a->k : cdiv(a->n, p);
    snprintf(dim, dlen, "[%d # [#%s][#%s]]", a->n, proc, local);
    snprintf(loc, llen, "[%d]", b);
    return b;
}

/* Declares U<tag> (P<tag>, L<tag>...) and G, the global array, for the axes on a process grid.  \return the
 * padded local length. */
static int declare(pa_scope *sc, const char *tag, const axis *ax, int nax, const int *grid, char *text, size_t len)
{
    char dim[2][128], loc[2][64], proc[2][16], local[2][16];
    int pad = 1, n = 0;
    for (int d = 0; d < nax; d++) {
        snprintf(proc[d], sizeof proc[d], nax == 1 ? "P%s" : "P%s_%d", tag, d);
        snprintf(local[d], sizeof local[d], "L%s%d", tag, d);
        pad *= axis_text(&ax[d], grid[d], proc[d], local[d], dim[d], sizeof dim[d], loc[d], sizeof loc[d]);
    }
    if (nax == 1)
        n = snprintf(text, len, "P%s = mpi [%d]\nL%s = paged int %s\nL%s0 = [#L%s]\nU%s = %s\nG%s = paged int [%d]",
                     tag, grid[0], tag, loc[0], tag, tag, tag, dim[0], tag, ax[0].n);
    else
        n = snprintf(text, len, "P%s = mpi [%d][%d]\nL%s = paged int [%s][%s]\nL%s0 = [#L%s_0]\nL%s1 = [#L%s_1]\n"
                     "U%s = [%s%s]\nG%s = paged int [%d][%d]", tag, grid[0], grid[1], tag, loc[0], loc[1], tag,
                     tag, tag, tag, tag, dim[0], dim[1], tag, ax[0].n, ax[1].n);
    MCK(n > 0 && (size_t)n < len, "declaration too long");
    int st = pa_declare_text(sc, text);
    MCK(st == PA_OK, "declaring\n%s\n: %s", text, pa_last_error());
    return pad;
}

/* This rank's elements by darray: MPI_Pack of the global array through its darray datatype. */
static int darray_ref(const axis *ax, int nax, const int *grid, const int *global, int *ref, int cap)
{
    int gs[2], dist[2], darg[2], me = pa_mpi_rank(), bytes = 0, pos = 0, size = 0;
    MPI_Datatype dt;
    for (int d = 0; d < nax; d++) {
        gs[d] = ax[d].n;
        dist[d] = ax[d].cyclic ? MPI_DISTRIBUTE_CYCLIC : MPI_DISTRIBUTE_BLOCK;
        darg[d] = ax[d].k ? ax[d].k : MPI_DISTRIBUTE_DFLT_DARG;
    }
    MPI_Type_create_darray(pa_mpi_nprocs(), me, nax, gs, dist, darg, grid, MPI_ORDER_C, MPI_INT, &dt);
    MPI_Type_commit(&dt);
    MPI_Type_size(dt, &size);
    MPI_Pack_size(1, dt, MPI_COMM_WORLD, &bytes);
    MCK(size / (int)sizeof(int) <= cap && bytes <= cap * (int)sizeof(int) + 64, "darray larger than the block");
    MPI_Pack(global, 1, dt, ref, cap * (int)sizeof(int), &pos, MPI_COMM_WORLD);
    MPI_Type_free(&dt);
    return size / (int)sizeof(int);
}

static void one_case(const axis *ax, int nax, const int *grid, const char *what)
{
    pa_scope *sc = NULL;
    char text[1024];
    int total = nax == 1 ? ax[0].n : ax[0].n * ax[1].n, me = pa_mpi_rank();
    pa_scope_create(NULL, &sc);
    int pad = declare(sc, "", ax, nax, grid, text, sizeof text);
    const pa_type *u = pa_type_get(sc, "U"), *g = pa_type_get(sc, "G");
    int *global = malloc((size_t)total * sizeof *global), *back = malloc((size_t)total * sizeof *back);
    int *local = malloc((size_t)pad * sizeof *local), *ref = malloc((size_t)pad * sizeof *ref);
    for (int i = 0; i < total; i++)
        global[i] = 1000 + i, back[i] = POISON;
    for (int i = 0; i < pad; i++)
        local[i] = POISON;
    int nref = darray_ref(ax, nax, grid, global, ref, pad);
    /* scatter from process 0 */
    int st = pa_copy(u, local, g, me == 0 ? global : NULL);
    MCK(st == PA_OK, "%s: scatter: %s\n%s", what, pa_last_error(), text);
    int got = 0, bad = 0;
    for (int i = 0; i < pad; i++)
        if (local[i] != POISON) {
            bad += got >= nref || local[i] != ref[got];
            local[i] += 1000000;   /* marked, for the gather */
            got++;
        }
    MCK(got == nref && !bad, "%s: rank %d holds %d elements (darray: %d), %d differ\n%s", what, me, got, nref,
        bad, text);
    /* gather to process 0 */
    st = pa_copy(g, me == 0 ? back : NULL, u, local);
    MCK(st == PA_OK, "%s: gather: %s", what, pa_last_error());
    for (int i = 0; me == 0 && i < total && bad < 3; i++)
        if (back[i] != global[i] + 1000000) {
            MCK(0, "%s: gathered element %d is %d, expected %d\n%s", what, i, back[i], global[i] + 1000000, text);
            bad++;
        }
    free(global);
    free(back);
    free(local);
    free(ref);
    pa_scope_destroy(sc);
}

/* Two distributions of one array (A: the given axes; B: block <-> cyclic(2) swapped), copied both ways. */
static void redistribute(const axis *ax, int nax, const int *grid, const char *what)
{
    pa_scope *sc = NULL;
    char ta[1024], tb[1024], w[2300];
    axis bx[2];
    for (int d = 0; d < nax; d++)
        bx[d] = ax[d].cyclic ? (axis){ax[d].n, 0, 0} : (axis){ax[d].n, 2, 1};
    pa_scope_create(NULL, &sc);
    declare(sc, "A", ax, nax, grid, ta, sizeof ta);
    declare(sc, "B", bx, nax, grid, tb, sizeof tb);
    snprintf(w, sizeof w, "%s (redistribution)\n%s\n%s", what, ta, tb);
    const pa_type *a = pa_type_get(sc, "UA"), *b = pa_type_get(sc, "UB");
    if (a && b) {
        mv_check_copy(b, a, w);
        mv_check_copy(a, b, w);
    }
    pa_scope_destroy(sc);
}

static void test_1d(void)
{
    static const int sizes[] = {1, 2, 3, 5, 7, 11, 13};
    int p = pa_mpi_nprocs();
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int kind = 0; kind < 5; kind++) {
            int n = sizes[s];
            axis a = {n, kind == 0 ? 0 : kind == 1 ? cdiv(n, p) + 1 : kind - 1, kind >= 2};
            char what[128];
            snprintf(what, sizeof what, "1-D n=%d %s(%d) over %d", n, a.cyclic ? "cyclic" : "block", a.k, p);
            one_case(&a, 1, &p, what);
            redistribute(&a, 1, &p, what);
        }
}

static void test_2d(void)
{
    int grid[2] = {0, 0};
    MPI_Dims_create(pa_mpi_nprocs(), 2, grid);
    for (int n0 = 1; n0 <= 7; n0 += 3)
        for (int n1 = 2; n1 <= 5; n1 += 3)
            for (int kind = 0; kind < 3; kind++) {
                axis a[2] = {{n0, kind == 1 ? 2 : 0, kind == 1}, {n1, kind == 2 ? 1 : 0, kind == 2}};
                char what[128];
                snprintf(what, sizeof what, "2-D %dx%d kind %d over %dx%d", n0, n1, kind, grid[0], grid[1]);
                one_case(a, 2, grid, what);
                redistribute(a, 2, grid, what);
            }
}

/*
 * Plans of uneven windows are cached (by the types' serial numbers, since their splits' tables may land where a
 * freed type's were): types made one after another, each freed before the next, the block read forwards, then
 * backwards, each copied into its places.  (Whether a new table lands at an old address is up to malloc: this
 * guards the cache without forcing the collision.)
 */
static void test_reused_addresses(void)
{
    int p = pa_mpi_nprocs(), n = 2 * p + 1, b = cdiv(n, p), me = pa_mpi_rank();
    for (int round = 0; round < 4; round++) {
        pa_scope *sc = NULL;
        char text[256];
        int global[64], local[64], backwards = round % 2;
        pa_scope_create(NULL, &sc);
        snprintf(text, sizeof text, "P = mpi [%d]\nL = paged int [%d]\nU = [%d # %s[#P][#L]]\nG = paged int [%d]", p, b,
                 n, backwards ? "step(-1) # disp(2) # " : "", n);
        /* disp(2) with step(-1): index i reads the block distribution's (2 - i) mod size, a bijection */
        MCK(pa_declare_text(sc, text) == PA_OK, "%s: %s", text, pa_last_error());
        const pa_type *u = pa_type_get(sc, "U"), *g = pa_type_get(sc, "G");
        for (int i = 0; i < n; i++)
            global[i] = 500 + i;
        for (int i = 0; i < b; i++)
            local[i] = POISON;
        MCK_OK(pa_copy(u, local, g, me == 0 ? global : NULL));
        for (int i = 0; i < n; i++)
            if (pa_offset_on(u, PA_ON_THREAD, i) == me)
                MCK(local[pa_offset_on(u, PA_ON_LOCAL, i)] == 500 + i, "round %d: element %d is %d\n%s", round, i,
                    local[pa_offset_on(u, PA_ON_LOCAL, i)], text);
        pa_scope_destroy(sc);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    mck_run("uneven 1-D vs darray", test_1d);
    mck_run("uneven 2-D vs darray", test_2d);
    mck_run("plans of freed types", test_reused_addresses);
    int all = 0;
    MPI_Allreduce(&mck_failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return all ? 1 : 0;
}
