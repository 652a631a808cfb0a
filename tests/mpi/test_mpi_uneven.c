/*
 * parray MPI tests — uneven distributions against Open MPI's MPI_Type_create_darray, on any number of
 * processes (the suites run 1 to 6).  A window [n # DIST] of a distributed type is darray's block or
 * cyclic(k) distribution of n elements (docs/types.md): for 1-D sizes 1..13, 2-D shapes on every process grid
 * of the communicator's size and 3-D shapes on every such grid of three axes, block (default and a larger
 * block) and cyclic(1..3):
 *   - scatter: a local array on process 0 copied into the distributed type; each rank's local array must be
 *     exactly what MPI_Pack of the global array through this rank's darray datatype gives: the same elements
 *     at the same places (darray packs each process's array to its own extents), nothing written after them;
 *   - gather: the distributed type back into a local array on process 0, checked against what MPI_Unpack of
 *     every rank's local array through its darray datatype puts together;
 *   - redistribution both ways between two uneven distributions of the same array, checked element by element
 *     against the offsets on each side (mpi_verify.h).
 */
#include "mpi_verify.h"
#include <parray/mpi.h>

#define MAXAX 3

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

/* Appends to text at *n (bounded by len). */
#define ADD(...) (*n += snprintf(text + *n, *n < (int)len ? len - (size_t)*n : 0, __VA_ARGS__))

/* Declares U<tag> (P<tag>, L<tag>...) and G<tag>, the global array, for the axes on a process grid.  \return
 * the padded local length (the largest block's). */
static int declare(pa_scope *sc, const char *tag, const axis *ax, int nax, const int *grid, char *text, size_t len)
{
    char dim[MAXAX][128], loc[MAXAX][64], proc[MAXAX][16], local[MAXAX][16];
    int pad = 1, at = 0, *n = &at;
    for (int d = 0; d < nax; d++) {
        snprintf(proc[d], sizeof proc[d], nax == 1 ? "P%s" : "P%s_%d", tag, d);
        snprintf(local[d], sizeof local[d], "L%s%d", tag, d);
        pad *= axis_text(&ax[d], grid[d], proc[d], local[d], dim[d], sizeof dim[d], loc[d], sizeof loc[d]);
    }
    ADD("P%s = mpi ", tag);
    for (int d = 0; d < nax; d++)
        ADD("[%d]", grid[d]);
    ADD("\nL%s = paged int ", tag);
    for (int d = 0; d < nax; d++)
        ADD(nax == 1 ? "%s" : "[%s]", loc[d]);
    for (int d = 0; d < nax; d++) {
        if (nax == 1)
            ADD("\nL%s0 = [#L%s]", tag, tag);
        else
            ADD("\nL%s%d = [#L%s_%d]", tag, d, tag, d);
    }
    ADD("\nU%s = %s", tag, nax == 1 ? "" : "[");
    for (int d = 0; d < nax; d++)
        ADD("%s", dim[d]);
    ADD("%s\nG%s = paged int ", nax == 1 ? "" : "]", tag);
    for (int d = 0; d < nax; d++)
        ADD("[%d]", ax[d].n);
    MCK(at > 0 && (size_t)at < len, "declaration too long");
    int st = pa_declare_text(sc, text);
    MCK(st == PA_OK, "declaring\n%s\n: %s", text, pa_last_error());
    return pad;
}

/* This rank's darray datatype (C order). */
static MPI_Datatype darray_type(const axis *ax, int nax, const int *grid)
{
    int gs[MAXAX], dist[MAXAX], darg[MAXAX];
    MPI_Datatype dt;
    for (int d = 0; d < nax; d++) {
        gs[d] = ax[d].n;
        dist[d] = ax[d].cyclic ? MPI_DISTRIBUTE_CYCLIC : MPI_DISTRIBUTE_BLOCK;
        darg[d] = ax[d].k ? ax[d].k : MPI_DISTRIBUTE_DFLT_DARG;
    }
    MPI_Type_create_darray(pa_mpi_nprocs(), pa_mpi_rank(), nax, gs, dist, darg, (int *)grid, MPI_ORDER_C, MPI_INT,
                           &dt);
    MPI_Type_commit(&dt);
    return dt;
}

/* This rank's elements by darray: MPI_Pack of the global array through its darray datatype. */
static int darray_ref(MPI_Datatype dt, const int *global, int *ref, int cap)
{
    int bytes = 0, pos = 0, size = 0;
    MPI_Type_size(dt, &size);
    MPI_Pack_size(1, dt, MPI_COMM_WORLD, &bytes);
    MCK(size / (int)sizeof(int) <= cap && bytes <= cap * (int)sizeof(int) + 64, "darray larger than the block");
    MPI_Pack(global, 1, dt, ref, cap * (int)sizeof(int), &pos, MPI_COMM_WORLD);
    return size / (int)sizeof(int);
}

/* The global array darray makes of every rank's local array (MPI_Unpack through each rank's datatype, summed
 * on process 0 over arrays of zeros). */
static void darray_gather(MPI_Datatype dt, const int *local, int nlocal, int *global, int total)
{
    int *mine = calloc((size_t)total, sizeof *mine), pos = 0;
    MPI_Unpack(local, nlocal * (int)sizeof(int), &pos, mine, 1, dt, MPI_COMM_WORLD);
    MPI_Reduce(mine, global, total, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    free(mine);
}

static int total_of(const axis *ax, int nax)
{
    int t = 1;
    for (int d = 0; d < nax; d++)
        t *= ax[d].n;
    return t;
}

static void one_case(const axis *ax, int nax, const int *grid, const char *what)
{
    pa_scope *sc = NULL;
    char text[1024];
    int total = total_of(ax, nax), me = pa_mpi_rank();
    pa_scope_create(NULL, &sc);
    int pad = declare(sc, "", ax, nax, grid, text, sizeof text);
    const pa_type *u = pa_type_get(sc, "U"), *g = pa_type_get(sc, "G");
    int *global = malloc((size_t)total * sizeof *global), *back = malloc((size_t)total * sizeof *back);
    int *want = calloc((size_t)total, sizeof *want);
    int *local = malloc((size_t)pad * sizeof *local), *ref = malloc((size_t)pad * sizeof *ref);
    for (int i = 0; i < total; i++)
        global[i] = 1000 + i, back[i] = POISON;
    for (int i = 0; i < pad; i++)
        local[i] = POISON;
    MPI_Datatype dt = darray_type(ax, nax, grid);
    int nref = darray_ref(dt, global, ref, pad);
    /* scatter from process 0: exactly darray's packed local array, nothing after it */
    int st = pa_copy(u, local, g, me == 0 ? global : NULL);
    MCK(st == PA_OK, "%s: scatter: %s\n%s", what, pa_last_error(), text);
    int bad = 0, first = -1;
    for (int i = 0; i < pad; i++)
        if (i < nref ? local[i] != ref[i] : local[i] != POISON) {
            first = first < 0 ? i : first;
            bad++;
        }
    MCK(!bad, "%s: rank %d: %d of its %d places differ from darray's %d elements (the first at %d: %d, darray "
        "%d)\n%s", what, me, bad, pad, nref, first, first < 0 ? 0 : local[first],
        first < 0 || first >= nref ? POISON : ref[first], text);
    for (int i = 0; i < nref; i++)
        local[i] = 1000000 + 7 * i + me;   /* new values, placed as darray places them */
    /* gather to process 0: what darray's unpacking of every rank's array puts together */
    st = pa_copy(g, me == 0 ? back : NULL, u, local);
    MCK(st == PA_OK, "%s: gather: %s", what, pa_last_error());
    darray_gather(dt, local, nref, want, total);
    for (int i = 0; me == 0 && i < total && bad < 3; i++)
        if (back[i] != want[i]) {
            MCK(0, "%s: gathered element %d is %d, darray's unpacking gives %d\n%s", what, i, back[i], want[i], text);
            bad++;
        }
    MPI_Type_free(&dt);
    free(global);
    free(back);
    free(want);
    free(local);
    free(ref);
    pa_scope_destroy(sc);
}

/* Two distributions of one array (A: the given axes; B: block <-> cyclic(2) swapped), copied both ways. */
static void redistribute(const axis *ax, int nax, const int *grid, const char *what)
{
    pa_scope *sc = NULL;
    char ta[1024], tb[1024], w[2300];
    axis bx[MAXAX];
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

/* The process grids of n processes over nax axes (every ordered factorisation); \return how many. */
static int grids_of(int n, int nax, int out[][MAXAX], int cap)
{
    int count = 0;
    for (int a = 1; a <= n; a++)
        for (int b = 1; b <= (nax > 1 ? n : 1); b++)
            for (int c = 1; c <= (nax > 2 ? n : 1); c++)
                if (a * b * c == n && count < cap) {
                    out[count][0] = a, out[count][1] = b, out[count][2] = c;
                    count++;
                }
    return count;
}

static void test_2d(void)
{
    int grids[16][MAXAX], ng = grids_of(pa_mpi_nprocs(), 2, grids, 16);
    for (int g = 0; g < ng; g++)
        for (int n0 = 1; n0 <= 7; n0 += 3)
            for (int n1 = 2; n1 <= 5; n1 += 3)
                for (int kind = 0; kind < 4; kind++) {
                    /* block x block, cyclic(2) x block, block x cyclic(1), larger block x cyclic(3) */
                    axis a[2] = {{n0, kind == 1 ? 2 : kind == 3 ? cdiv(n0, grids[g][0]) + 1 : 0, kind == 1},
                                 {n1, kind == 2 ? 1 : kind == 3 ? 3 : 0, kind >= 2}};
                    char what[128];
                    snprintf(what, sizeof what, "2-D %dx%d kind %d over %dx%d", n0, n1, kind, grids[g][0],
                             grids[g][1]);
                    one_case(a, 2, grids[g], what);
                    if (g == 0 || kind == 1)
                        redistribute(a, 2, grids[g], what);
                }
}

static void test_3d(void)
{
    static const int shapes[][3] = {{2, 3, 5}, {5, 4, 3}, {3, 1, 7}};
    int grids[32][MAXAX], ng = grids_of(pa_mpi_nprocs(), 3, grids, 32);
    for (int g = 0; g < ng; g++)
        for (size_t h = 0; h < sizeof shapes / sizeof shapes[0]; h++)
            for (int kind = 0; kind < 3; kind++) {
                axis a[3];
                for (int d = 0; d < 3; d++) {
                    int k = (kind + d) % 3, n = shapes[h][d];   /* block, cyclic(2), a larger block */
                    a[d] = (axis){n, k == 1 ? 2 : k == 2 ? cdiv(n, grids[g][d]) + 1 : 0, k == 1};
                }
                char what[128];
                snprintf(what, sizeof what, "3-D %dx%dx%d kind %d over %dx%dx%d", shapes[h][0], shapes[h][1],
                         shapes[h][2], kind, grids[g][0], grids[g][1], grids[g][2]);
                one_case(a, 3, grids[g], what);
                if (h == 0)
                    redistribute(a, 3, grids[g], what);
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
    mck_run("uneven 3-D vs darray", test_3d);
    mck_run("plans of freed types", test_reused_addresses);
    int all = 0;
    MPI_Allreduce(&mck_failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return all ? 1 : 0;
}
