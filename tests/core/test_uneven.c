/*
 * Uneven distributions without MPI running: windows [n # DIST] of distributed types give MPI darray's block
 * and cyclic(k) distributions of any size over any number of processes, some owning nothing.  For 1 to 6
 * processes and sizes 1 to 13 (1-D), 1 to 7 per axis (2-D on grids of processes) and 3-D shapes on grids of 1
 * to 6, every index's process and local offset (pa_offset_on and the core's compiled split) is checked against
 * darray's rules written out here: block with the default block ceil(n / p) or a larger one, cyclic(k) for
 * k = 1..3, in C order, each process's local array packed to its own extents.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "testutil.h"

/* One axis of a darray: n elements over p processes, block (k = 0: ceil(n / p), else a block of k) or
 * cyclic(k).  The process of element i and its place in that process's (padded) local axis of `pad` places. */
typedef struct axis {
    int64_t n, p, k;
    int cyclic;
} axis;

static int64_t cdiv(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

static int64_t block_of(const axis *a)
{
    return a->k ? a->k : cdiv(a->n, a->p);
}

static int64_t pad_of(const axis *a)
{
    return a->cyclic ? cdiv(a->n, a->p * a->k) * a->k : block_of(a);
}

static void place(const axis *a, int64_t i, int64_t *pid, int64_t *loc)
{
    if (a->cyclic) {
        *pid = i / a->k % a->p;
        *loc = i / (a->k * a->p) * a->k + i % a->k;
    } else {
        *pid = i / block_of(a);
        *loc = i % block_of(a);
    }
}

/* Declarations of one axis d over process dimension PROC (an mpi type's path) and local dimension names. */
static void axis_decl(char *buf, size_t len, const axis *a, const char *proc, const char *local)
{
    if (a->cyclic)   /* local axis [c][k]: index (c, pid, k) */
        snprintf(buf, len, "[%lld # [#%s_0][#%s][#%s_1]]", (long long)a->n, local, proc, local);
    else             /* local axis [b]: index (pid, b) */
        snprintf(buf, len, "[%lld # [#%s][#%s]]", (long long)a->n, proc, local);
}

static void local_decl(char *buf, size_t len, const axis *a)
{
    if (a->cyclic)
        snprintf(buf, len, "[%lld][%lld]", (long long)(pad_of(a) / a->k), (long long)a->k);
    else
        snprintf(buf, len, "[%lld]", (long long)pad_of(a));
}

/* How many of an axis's indices process coordinate q owns: its extent in darray's local array. */
static int64_t extent_of(const axis *a, int64_t q)
{
    int64_t e = 0, pid, loc;
    for (int64_t i = 0; i < a->n; i++) {
        place(a, i, &pid, &loc);
        e += pid == q;
    }
    return e;
}

/*
 * Checks the type against darray at every index, through pa_offset_on and the split: the process is row-major
 * over the grid's coordinates, and the local offset row-major over the extents of this process's own
 * coordinates (darray packs each process's array; no gap where a process's block is smaller along an axis).
 * \return the number of elements whose packed offset differs from the padded one (the largest block's shape).
 */
static int64_t check_type(const pa_type *t, const axis *ax, int nax)
{
    pa__dist_split s;
    int64_t size = 1, moved = 0;
    PA_CK_OK(pa__dist_split_of(t, &s));
    ck_assert_str_eq(s.thread_mtt, "mpi");
    ck_assert_str_eq(s.memory_mtt, "paged");
    for (int d = 0; d < nax; d++)
        size *= ax[d].n;
    ck_assert_int_eq(pa_size(t), size);
    for (int64_t i = 0; i < size; i++) {
        int64_t pid = 0, loc = 0, padded = 0, rest = i, idx[3];
        for (int d = nax - 1; d >= 0; d--) {
            idx[d] = rest % ax[d].n;
            rest /= ax[d].n;
        }
        for (int d = 0; d < nax; d++) {
            int64_t q, l;
            place(&ax[d], idx[d], &q, &l);
            pid = pid * ax[d].p + q;
            loc = loc * extent_of(&ax[d], q) + l;
            padded = padded * pad_of(&ax[d]) + l;
        }
        moved += loc != padded;
        ck_assert_int_eq(pa_offset_on(t, PA_ON_THREAD, i), pid);
        ck_assert_int_eq(pa_offset_on(t, PA_ON_LOCAL, i), loc);
        ck_assert_int_eq(pa__layout_offset(&s.pid, i), pid);
        ck_assert_int_eq(pa__dist_local(&s, i), loc);
    }
    pa__dist_split_release(&s);
    return moved;
}

START_TEST(test_darray_1d)
{
    int ntypes = 0, empty = 0;
    for (int64_t p = 1; p <= 6; p++)
        for (int64_t n = 1; n <= 13; n++)
            for (int kind = 0; kind < 5; kind++) {
                /* block (default), block of ceil(n/p) + 1, cyclic(1), cyclic(2), cyclic(3) */
                axis a = {n, p, kind == 0 ? 0 : kind == 1 ? cdiv(n, p) + 1 : kind - 1, kind >= 2};
                char text[512], ax[128], loc[64];
                pa_scope *s;
                PA_CK_OK(pa_scope_create(NULL, &s));
                axis_decl(ax, sizeof ax, &a, "P", "L");
                local_decl(loc, sizeof loc, &a);
                snprintf(text, sizeof text, "P = mpi [%lld]\nL = paged int %s\nU = %s", (long long)p, loc, ax);
                PA_CK_OK(pa_declare_text(s, text));
                const pa_type *u = pa_type_get(s, "U");
                ck_assert_ptr_nonnull(u);
                ck_assert_str_eq(pa_mtt(u), "distributed");
                ck_assert_int_eq(check_type(u, &a, 1), 0);   /* one axis: nothing to pack */
                empty += !a.cyclic && (p - 1) * block_of(&a) >= n;   /* the last process owns nothing */
                ntypes++;
                pa_scope_destroy(s);
            }
    ck_assert_int_eq(ntypes, 6 * 13 * 5);
    ck_assert_int_gt(empty, 50);
}
END_TEST

START_TEST(test_darray_2d)
{
    static const int64_t grids[][2] = {{1, 1}, {1, 2}, {2, 1}, {3, 1}, {2, 2}, {1, 5}, {3, 2}, {2, 3}};
    int64_t moved = 0;
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++)
        for (int64_t n0 = 1; n0 <= 7; n0 += 2)
            for (int64_t n1 = 1; n1 <= 7; n1 += 3)
                for (int kind = 0; kind < 4; kind++) {
                    /* both block, both cyclic(2), block x cyclic(1), cyclic(3) x block */
                    axis a[2] = {{n0, grids[g][0], kind == 1 ? 2 : kind == 3 ? 3 : 0, kind == 1 || kind == 3},
                                 {n1, grids[g][1], kind == 1 ? 2 : kind == 2 ? 1 : 0, kind == 1 || kind == 2}};
                    char text[1024], ax0[128], ax1[128], l0[64], l1[64];
                    pa_scope *s;
                    PA_CK_OK(pa_scope_create(NULL, &s));
                    axis_decl(ax0, sizeof ax0, &a[0], "P_0", "L0");
                    axis_decl(ax1, sizeof ax1, &a[1], "P_1", "L1");
                    local_decl(l0, sizeof l0, &a[0]);
                    local_decl(l1, sizeof l1, &a[1]);
                    /* L = [L0][L1] row-major: L0's offsets scale by L1's size */
                    snprintf(text, sizeof text, "P = mpi [%lld][%lld]\nL = paged int [%s][%s]\nL0 = [#L_0]\n"
                             "L1 = [#L_1]\nU = [%s%s]", (long long)grids[g][0], (long long)grids[g][1],
                             l0, l1, ax0, ax1);
                    PA_CK_OK(pa_declare_text(s, text));
                    moved += check_type(pa_type_get(s, "U"), a, 2);
                    pa_scope_destroy(s);
                }
    ck_assert_int_gt(moved, 100);   /* packing differs from the padded block in many cases */
}
END_TEST

/* 3-D on grids of 1 to 6 processes: block, cyclic(2) and a larger block mixed over the axes. */
START_TEST(test_darray_3d)
{
    static const int64_t grids[][3] = {{1, 1, 1}, {2, 1, 1}, {1, 2, 1}, {1, 1, 3}, {2, 2, 1}, {1, 2, 2},
                                       {2, 1, 3}, {3, 2, 1}, {1, 3, 2}, {1, 1, 5}};
    static const int64_t shapes[][3] = {{1, 2, 3}, {3, 1, 5}, {4, 5, 2}, {5, 3, 4}};
    int64_t moved = 0;
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++)
        for (size_t h = 0; h < sizeof shapes / sizeof shapes[0]; h++)
            for (int kind = 0; kind < 3; kind++) {
                axis a[3];
                char text[1024], ax[3][128], l[3][64];
                for (int d = 0; d < 3; d++) {
                    int k = (kind + d) % 3;   /* 0: block, 1: cyclic(2), 2: block of ceil(n / p) + 1 */
                    a[d] = (axis){shapes[h][d], grids[g][d], k == 1 ? 2 : k == 2 ? cdiv(shapes[h][d], grids[g][d]) + 1
                                                                       : 0, k == 1};
                    char proc[8], local[8];
                    snprintf(proc, sizeof proc, "P_%d", d);
                    snprintf(local, sizeof local, "L%d", d);
                    axis_decl(ax[d], sizeof ax[d], &a[d], proc, local);
                    local_decl(l[d], sizeof l[d], &a[d]);
                }
                pa_scope *s;
                PA_CK_OK(pa_scope_create(NULL, &s));
                snprintf(text, sizeof text, "P = mpi [%lld][%lld][%lld]\nL = paged int [%s][%s][%s]\nL0 = [#L_0]\n"
                         "L1 = [#L_1]\nL2 = [#L_2]\nU = [%s%s%s]", (long long)grids[g][0], (long long)grids[g][1],
                         (long long)grids[g][2], l[0], l[1], l[2], ax[0], ax[1], ax[2]);
                PA_CK_OK(pa_declare_text(s, text));
                moved += check_type(pa_type_get(s, "U"), a, 3);
                pa_scope_destroy(s);
            }
    ck_assert_int_gt(moved, 100);
}
END_TEST

/*
 * Which types are packed: a distribution without a window keeps its local type as it is, even with room to
 * spare (U: rows of 5 places, 4 used); a window on an inner axis packs (V: rows of 4, darray's); an even one
 * whose local type is exactly its blocks needs nothing (W: the same offsets, no packing made).
 */
START_TEST(test_which_packed)
{
    pa_scope *s;
    pa__dist_split sp;
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare_text(s, "P = mpi [2][2]\nL = paged int [3][5]\nR = [3 # L_0]\nC = [4 # L_1]\n"
                                "E = paged int [3][4]\n"
                                "U = [[#P_0][#R]][[#P_1][#C]]\n"
                                "V = [[5 # [#P_0][#L_0]][8 # [#P_1][#C]]]\n"
                                "W = [[6 # [#P_0][#E_0]][8 # [#P_1][#E_1]]]"));
    const char *names[] = {"U", "V", "W"};
    for (int t = 0; t < 3; t++) {
        const pa_type *u = pa_type_get(s, names[t]);
        PA_CK_OK(pa__dist_split_of(u, &sp));
        ck_assert_int_eq(sp.pack != NULL, t == 1);
        ck_assert_int_eq(sp.local.affine, t != 1);
        for (int64_t i = 0; i < pa_size(u); i++)
            ck_assert_int_eq(pa_offset_on(u, PA_ON_LOCAL, i), (i / 8 % 3) * (t == 0 ? 5 : 4) + i % 4);
        pa__dist_split_release(&sp);
    }
    pa_scope_destroy(s);
}
END_TEST

/* A window with a displacement and a negative step: the block distribution read backwards. */
START_TEST(test_window_reversed)
{
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare_text(s, "P = mpi [4]\nL = paged int [3]\nB = [#P][#L]\nR = [10 # step(-1) # disp(9) # B]\n"
                                "W = [5 # disp(6) # B]"));
    const pa_type *r = pa_type_get(s, "R"), *w = pa_type_get(s, "W");
    for (int64_t i = 0; i < 10; i++) {
        ck_assert_int_eq(pa_offset_on(r, PA_ON_THREAD, i), (9 - i) / 3);
        ck_assert_int_eq(pa_offset_on(r, PA_ON_LOCAL, i), (9 - i) % 3);
    }
    for (int64_t i = 0; i < 5; i++)
        ck_assert_int_eq(pa_offset_on(w, PA_ON_THREAD, i) * 3 + pa_offset_on(w, PA_ON_LOCAL, i), 6 + i);
    pa_scope_destroy(s);
}
END_TEST

/* A window that comes first in the type and starts at 0 needs no table, whatever its size: 2^40 - 3 elements. */
START_TEST(test_large_prefix)
{
    pa_scope *s;
    pa__dist_split sp;
    int64_t n = (INT64_C(1) << 40) - 3, b = INT64_C(1) << 38;
    char text[256];
    PA_CK_OK(pa_scope_create(NULL, &s));
    snprintf(text, sizeof text, "P = mpi [4]\nL = paged int [%lld]\nU = [%lld # [#P][#L]]\n"
             "C = paged int [%lld][3]\nV = [%lld # [#C_0][#P][#C_1]]", (long long)b, (long long)n,
             (long long)(b / 3 + 1), (long long)n);
    PA_CK_OK(pa_declare_text(s, text));
    const char *names[] = {"U", "V"};
    for (int t = 0; t < 2; t++) {
        const pa_type *u = pa_type_get(s, names[t]);
        PA_CK_OK(pa__dist_split_of(u, &sp));
        ck_assert(sp.pid.affine && sp.local.affine);
        ck_assert_int_eq(sp.nowned, 0);
        ck_assert_int_eq(sp.pid.size, n);
        for (int64_t i = 0; i < n; i += n / 7 + 1) {
            int64_t pid = t ? i / 3 % 4 : i / b, loc = t ? i / 12 * 3 + i % 3 : i % b;
            ck_assert_int_eq(pa__layout_offset(&sp.pid, i), pid);
            ck_assert_int_eq(pa__layout_offset(&sp.local, i), loc);
            ck_assert_int_eq(pa_offset_on(u, PA_ON_THREAD, i), pid);
        }
        ck_assert_int_eq(pa__layout_offset(&sp.pid, n - 1), t ? (n - 1) / 3 % 4 : 3);
        pa__dist_split_release(&sp);
    }
    pa_scope_destroy(s);
}
END_TEST

/* What stays refused: a displacement on a distributed dimension that is not a window. */
START_TEST(test_refused)
{
    pa_scope *s;
    PA_CK_OK(pa_scope_create(NULL, &s));
    PA_CK_OK(pa_declare_text(s, "P = mpi [4]\nL = paged int [3]\nB = [#P][#L]\nD = [[#P][#L] # disp(1)]"));
    pa__dist_split sp;
    PA_CK_ERR(pa__dist_split_of(pa_type_get(s, "D"), &sp), PA_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(pa_last_error(), "window"));
    pa_scope_destroy(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("uneven");
    TCase *tc = tcase_create("uneven");
    tcase_add_test(tc, test_darray_1d);
    tcase_add_test(tc, test_darray_2d);
    tcase_add_test(tc, test_darray_3d);
    tcase_add_test(tc, test_which_packed);
    tcase_add_test(tc, test_window_reversed);
    tcase_add_test(tc, test_large_prefix);
    tcase_add_test(tc, test_refused);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
