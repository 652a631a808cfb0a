/*
 * Uneven distributions over pthd threads: windows [n # DIST] (darray's block and cyclic(k), docs/types.md)
 * over 1 to 6 threads, sizes 1 to 13.  Inside pa_for every thread copies its part of a shared array into its
 * own local array (some threads own nothing and pass NULL), then its part back into another shared array, then
 * (all-to-all) into the other distribution (block <-> cyclic(2)); the local arrays are checked against darray's
 * rules written out here and the shared copy element by element.  Two axes on grids of threads (blocks x
 * blocks, and the all-to-all into blocks x cyclic(1)): each thread's array is packed to its own extents, as
 * darray's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "testutil.h"

#define MAXT 6
#define MAXL 16

static pa_scope *scope;
static int global[13], back[13], local[MAXT][MAXL], other[MAXT][MAXL];
static int64_t owned[MAXT];

static int parts(pa_ctx *ctx, void *arg)
{
    int t = (int)pa_tid(ctx), st;
    (void)arg;
    int *mine = owned[t] ? local[t] : NULL;   /* a thread that owns nothing has no array */
    st = pa_copy(pa_type_get(scope, "U"), mine, pa_type_get(scope, "G"), global);
    for (int i = 0; st == PA_OK && mine && i < MAXL; i++)
        mine[i] = mine[i] < 0 ? mine[i] : -mine[i];
    if (st == PA_OK)
        st = pa_copy(pa_type_get(scope, "G"), back, pa_type_get(scope, "U"), mine);
    if (st == PA_OK)   /* the all-to-all into the other distribution (cyclic(2) or block): every thread */
        st = pa_copy(pa_type_get(scope, "V"), other[t], pa_type_get(scope, "U"), mine);
    return st;
}

static void one(int p, int n, int cyclic, int k)
{
    char text[256];
    int b = (n + p - 1) / p, c = (n + p * k - 1) / (p * k);
    int c2 = (n + 2 * p - 1) / (2 * p);   /* V: cyclic(2) when U is block, block when U is cyclic */
    if (cyclic)
        snprintf(text, sizeof text, "P = pthd [%d]\nL = paged int [%d][%d]\nU = [%d # [#L_0][#P][#L_1]]\n"
                 "G = paged int [%d]\nM = paged int [%d]\nV = [%d # [#P][#M]]", p, c, k, n, n, b, n);
    else
        snprintf(text, sizeof text, "P = pthd [%d]\nL = paged int [%d]\nU = [%d # [#P][#L]]\nG = paged int [%d]\n"
                 "M = paged int [%d][2]\nV = [%d # [#M_0][#P][#M_1]]", p, b, n, n, c2, n);
    PA_CK_OK(pa_scope_create(NULL, &scope));
    PA_CK_OK(pa_declare_text(scope, text));
    memset(owned, 0, sizeof owned);
    for (int i = 0; i < n; i++)
        owned[cyclic ? i / k % p : i / b]++;
    for (int i = 0; i < n; i++)
        global[i] = 10 + i, back[i] = 0;
    for (int t = 0; t < MAXT; t++)
        for (int i = 0; i < MAXL; i++)
            local[t][i] = other[t][i] = -1;
    PA_CK_OK(pa_for(pa_type_get(scope, "P"), parts, NULL, 0));
    for (int i = 0; i < n; i++) {
        int t = cyclic ? i / k % p : i / b, l = cyclic ? i / (k * p) * k + i % k : i % b;
        ck_assert_msg(local[t][l] == -(10 + i), "%s\n: element %d on thread %d at %d is %d", text, i, t, l,
                      local[t][l]);
        ck_assert_int_eq(back[i], -(10 + i));
        int vt = cyclic ? i / b : i / 2 % p, vl = cyclic ? i % b : i / (2 * p) * 2 + i % 2;
        ck_assert_msg(other[vt][vl] == -(10 + i), "%s\n: redistributed element %d on thread %d at %d is %d", text,
                      i, vt, vl, other[vt][vl]);
    }
    pa_scope_destroy(scope);
}

START_TEST(test_uneven)
{
    for (int p = 1; p <= MAXT; p++)
        for (int n = 1; n <= 13; n += 2) {
            one(p, n, 0, 1);
            for (int k = 1; k <= 3; k++)
                one(p, n, 1, k);
        }
}
END_TEST

/* ---- two axes on a grid of threads: each thread's array packed to its own extents, as darray's ---------- */

static int g2[35], b2[35], l2[MAXT][35], o2[MAXT][35];

/* Block (cyclic 0) or cyclic(1) of n over p: coordinate, place and the coordinate's extent. */
static void at(int n, int p, int cyclic, int i, int *q, int *l, int *e)
{
    int b = (n + p - 1) / p;
    *q = cyclic ? i % p : i / b;
    *l = cyclic ? i / p : i % b;
    *e = cyclic ? (n - *q + p - 1) / p : (n - *q * b < b ? n - *q * b : b);
}

static int parts2(pa_ctx *ctx, void *arg)
{
    int t = (int)pa_tid(ctx), st;
    (void)arg;
    st = pa_copy(pa_type_get(scope, "U"), l2[t], pa_type_get(scope, "G"), g2);
    if (st == PA_OK)
        st = pa_copy(pa_type_get(scope, "G"), b2, pa_type_get(scope, "U"), l2[t]);
    if (st == PA_OK)   /* all-to-all: blocks x blocks into blocks x cyclic(1) */
        st = pa_copy(pa_type_get(scope, "V"), o2[t], pa_type_get(scope, "U"), l2[t]);
    return st;
}

static void one_2d(int p0, int p1, int n0, int n1)
{
    char text[512];
    int b0 = (n0 + p0 - 1) / p0, b1 = (n1 + p1 - 1) / p1, c1 = (n1 + p1 - 1) / p1;
    snprintf(text, sizeof text, "P = pthd [%d][%d]\nL = paged int [%d][%d]\nU = [[%d # [#P_0][#L_0]][%d # [#P_1][#L_1]]]\n"
             "M = paged int [%d][%d][1]\nM0 = [#M_0]\nV = [[%d # [#P_0][#M0]][%d # [#M_1][#P_1][#M_2]]]\n"
             "G = paged int [%d][%d]", p0, p1, b0, b1, n0, n1, b0, c1, n0, n1, n0, n1);
    PA_CK_OK(pa_scope_create(NULL, &scope));
    PA_CK_OK(pa_declare_text(scope, text));
    for (int i = 0; i < n0 * n1; i++)
        g2[i] = 10 + i, b2[i] = 0;
    for (int t = 0; t < MAXT; t++)
        for (int i = 0; i < 35; i++)
            l2[t][i] = o2[t][i] = -1;
    PA_CK_OK(pa_for(pa_type_get(scope, "P"), parts2, NULL, 0));
    for (int i = 0; i < n0 * n1; i++) {
        int q0, q1, x0, x1, e0, e1, r1, y1, f1;
        at(n0, p0, 0, i / n1, &q0, &x0, &e0);
        at(n1, p1, 0, i % n1, &q1, &x1, &e1);
        at(n1, p1, 1, i % n1, &r1, &y1, &f1);
        ck_assert_msg(l2[q0 * p1 + q1][x0 * e1 + x1] == 10 + i, "%s\n: element %d on thread %d at %d is %d", text,
                      i, q0 * p1 + q1, x0 * e1 + x1, l2[q0 * p1 + q1][x0 * e1 + x1]);
        ck_assert_int_eq(b2[i], 10 + i);
        ck_assert_msg(o2[q0 * p1 + r1][x0 * f1 + y1] == 10 + i, "%s\n: redistributed element %d on thread %d at "
                      "%d is %d", text, i, q0 * p1 + r1, x0 * f1 + y1, o2[q0 * p1 + r1][x0 * f1 + y1]);
    }
    pa_scope_destroy(scope);
}

START_TEST(test_uneven_2d)
{
    static const int grids[][2] = {{1, 2}, {2, 2}, {2, 3}, {3, 1}, {1, 5}};
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++)
        for (int n0 = 3; n0 <= 5; n0 += 2)
            for (int n1 = 4; n1 <= 7; n1 += 3)
                one_2d(grids[g][0], grids[g][1], n0, n1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("dist_uneven");
    TCase *tc = tcase_create("dist_uneven");
    tcase_add_test(tc, test_uneven);
    tcase_add_test(tc, test_uneven_2d);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
