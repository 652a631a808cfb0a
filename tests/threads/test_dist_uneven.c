/*
 * Uneven distributions over pthd threads: windows [n # DIST] (darray's block and cyclic(k), docs/types.md)
 * over 1 to 6 threads, sizes 1 to 13.  Inside pa_for every thread copies its part of a shared array into its
 * own local array (some threads own nothing and pass NULL), then its part back into another shared array, then
 * (all-to-all) into the other distribution (block <-> cyclic(2)); the local arrays are checked against darray's
 * rules written out here and the shared copy element by element.
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

int main(void)
{
    Suite *s = suite_create("dist_uneven");
    TCase *tc = tcase_create("dist_uneven");
    tcase_add_test(tc, test_uneven);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
