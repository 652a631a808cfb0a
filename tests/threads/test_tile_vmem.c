/*
 * tests/threads: pa_tile_copy and pa_tile through the vmem register-tile mover (tile_digits.c, tile_vmem.c) against
 * the reference offsets: transpositions of 1- to 16-byte and odd-sized elements in tiles that are and are not
 * multiples of the register blocks, windows, three-digit tiles, a layout that leaves no plan, a large pure move
 * (pa_copy's threads from the caller; the tile walk's groups and streaming stores inside a pa_for thread), tile
 * functions in order, and the otile-only zeroing.  The suite runs as it is (the widest SIMD set) and under
 * PA_VMEM_ISA=avx2 and scalar (tests/meson.build).
 */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static pa_scope *scope;

static void setup(void)
{
    ck_assert_int_eq(pa_scope_create(NULL, &scope), PA_OK);
    PA_CK_OK(pa_scope_def_elm(scope, "e12", 12));
    PA_CK_OK(pa_scope_def_elm(scope, "e16", 16));
    ck_assert_int_eq(pa_threads_set_num(4), PA_OK);
}

static void teardown(void)
{
    pa_scope_destroy(scope);
}

static const pa_type *parse(const char *decl)
{
    const pa_type *t = pa_type_parse(scope, decl);
    ck_assert_msg(t != NULL, "%s: %s", decl, pa_last_error());
    return t;
}

static size_t span(const pa_type *t)
{
    int64_t mn, mx;
    PA_CK_OK(pa_extent(t, &mn, &mx));
    ck_assert_int_ge(mn, 0);
    return (size_t)(mx + 1) * pa_elm_size(t);
}

/* Byte b of element i: distinct for every element of up to 64 Ki elements and every byte. */
static void fill(unsigned char *p, size_t bytes, size_t e)
{
    for (size_t i = 0; i < bytes; i++)
        p[i] = (unsigned char)((i / e) * 131 + (i % e) * 17 + (i / e) / 251 + 1);
}

/* A pa_tile_copy call, made inside a thread of a pa_for: a pure move there goes through the tile walk (tile_vmem.c)
 * on that thread, where one outside is pa_copy's. */
typedef struct tile2_call {
    const pa_type *st, *dt, *it;
    const void *s;
    void *d;
} tile2_call;

static int tile2_in_thread(pa_ctx *ctx, void *arg)
{
    (void)ctx;
    const tile2_call *c = *(tile2_call **)arg;
    return pa_tile_copy(c->dt, c->d, c->st, c->s, c->it, NULL, NULL);
}

static void tile2_inside_for(const pa_type *st, const void *s, const pa_type *dt, void *d, const pa_type *it)
{
    tile2_call c = {st, dt, it, s, d}, *cp = &c;
    PA_CK_OK(pa_for(parse("pthd [1]"), tile2_in_thread, &cp, sizeof cp));
}

/* pa_tile_copy(dst, src, inner, fn) checked element by element: dst[D(k)] = src[S(k)] (+ what fn adds), nothing else
 * of dst changed; a pure move both from the caller (pa_copy) and from inside a pa_for thread (the tile walk). */
static void check_tile2(const pa_type *st, const pa_type *dt, const pa_type *it, pa_tile_fn fn, void *arg)
{
    size_t e = pa_elm_size(st), sb = span(st), db = span(dt);
    unsigned char *s = malloc(sb), *d = malloc(db), *x = malloc(db);
    fill(s, sb, e);
    memset(x, 0xab, db);
    for (int64_t k = 0; k < pa_size(st); k++)
        memcpy(x + pa_offset(dt, k) * (int64_t)e, s + pa_offset(st, k) * (int64_t)e, e);
    for (int inside = 0; inside < (fn == NULL ? 2 : 1); inside++) {
        memset(d, 0xab, db);
        if (inside)
            tile2_inside_for(st, s, dt, d, it);
        else
            PA_CK_OK(pa_tile_copy(dt, d, st, s, it, fn, arg));
        size_t i = 0;
        while (i < db && d[i] == x[i])
            i++;
        ck_assert_msg(i == db, "%s -> %s through %s%s: byte %zu is %d, expected %d", pa_type_name(st),
                      pa_type_name(dt), pa_type_name(it), inside ? " in a pa_for thread" : "", i, i < db ? d[i] : 0,
                      i < db ? x[i] : 0);
    }
    free(s);
    free(d);
    free(x);
}

/* Listing 23's types for an (rb*r) x (cb*c) matrix of elm in r x c tiles of memory type mtt (in a scope of their
 * own, for the names A and B). */
static void check_transpose(const char *elm, int rb, int r, int cb, int c, const char *mtt)
{
    pa_scope *outer = scope;
    char decl[128];
    PA_CK_OK(pa_scope_create(outer, &scope));
    snprintf(decl, sizeof decl, "paged %s [[%d][%d]][[%d][%d]]", elm, rb, r, cb, c);
    PA_CK_OK(pa_declare(scope, "A", decl));
    snprintf(decl, sizeof decl, "paged %s [[%d][%d]][[%d][%d]]", elm, cb, c, rb, r);
    PA_CK_OK(pa_declare(scope, "B", decl));
    snprintf(decl, sizeof decl, "%s %s [%d][%d]", mtt, elm, r, c);
    check_tile2(parse("[[#A_0_0][#A_1_0]][[#A_0_1][#A_1_1]]"), parse("[[#B_1_0][#B_0_0]][[#B_1_1][#B_0_1]]"),
                parse(decl), NULL, NULL);
    pa_scope_destroy(scope);
    scope = outer;
}

START_TEST(transpositions)
{
    /* 4- and 8-byte elements: whole register blocks (16 x 16 / 8 x 8 on AVX-512, 8 x 8 / 4 x 4 on AVX2), blocks
     * with edges, tiles smaller than a block; the other sizes through loops. */
    static const struct {
        const char *elm;
        int rb, r, cb, c;
    } cases[] = {
        {"int", 4, 16, 3, 16},  {"float", 3, 32, 2, 16}, {"int", 2, 20, 3, 12}, {"int", 5, 8, 4, 8},
        {"int", 3, 5, 2, 7},    {"double", 4, 8, 3, 8},  {"double", 2, 12, 2, 6}, {"double", 3, 4, 5, 4},
        {"char", 3, 16, 2, 16}, {"short", 2, 8, 3, 16},  {"e12", 3, 4, 2, 6},    {"e16", 2, 4, 3, 8},
        {"int", 1, 16, 1, 16},  {"double", 6, 1, 4, 8},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_transpose(cases[i].elm, cases[i].rb, cases[i].r, cases[i].cb, cases[i].c, "paged");
    /* vmem tiles within the register file of every set (128 bytes), and bench/tiling's: 16 rows of as many
     * columns as the register file holds (16 on AVX-512, 8 on AVX2) */
    check_transpose("int", 4, 4, 4, 8, "vmem");
    check_transpose("double", 3, 4, 2, 4, "vmem");
    int cols = pa_vmem_width() * pa_vmem_registers() / 64;
    check_transpose("int", 3, 16, 2, cols > 16 ? 16 : cols, "vmem");
}
END_TEST

START_TEST(other_layouts)
{
    /* rows through contiguous tiles (listing 47's rows), a window at an offset, a three-digit tile, a reversed
     * source and a tile size that leaves no plan (4 does not split the 6-row mode of the transposed view). */
    check_tile2(parse("paged double [64][16]"), parse("paged double [64][16]"), parse("vmem double [16]"), NULL,
                NULL);
    check_tile2(parse("paged float [[4][8]][[2][16]]"), parse("paged float [[4][8]][[2][16]]"),
                parse("paged float [8][16]"), NULL, NULL);
    PA_CK_OK(pa_declare(scope, "M", "paged float [20][24]"));
    PA_CK_OK(pa_declare(scope, "W", "paged float [16][16]"));
    check_tile2(parse("paged float [16 # disp(2) # M_0][16 # disp(3) # M_1]"),
                parse("paged float [[#W_1][#W_0]]"), parse("paged float [8][16]"), NULL, NULL);
    PA_CK_OK(pa_declare(scope, "T3", "paged int [4][6][8]"));
    check_tile2(parse("paged int [[#T3_0][#T3_2][#T3_1]]"), parse("paged int [4][8][6]"),
                parse("paged int [2][8][6]"), NULL, NULL);
    PA_CK_OK(pa_declare(scope, "V", "paged int [6][10]"));
    check_tile2(parse("paged int [[#V_1][#V_0]]"), parse("paged int [60]"), parse("paged int [4]"), NULL, NULL);
    /* element types of one size: not pa_copy's (it wants one type), the tile walk's from the caller too */
    check_tile2(parse("paged int [[#V_1][#V_0]]"), parse("paged float [60]"), parse("paged int [2][6]"), NULL, NULL);
    check_tile2(parse("paged int [10 # step(-1) # disp(9) # V_1][#V_0]"), parse("paged int [10][6]"),
                parse("paged int [2][6]"), NULL, NULL);
}
END_TEST

START_TEST(large_pure_move)
{
    /* 1552 x 2080 floats (12.6 MiB, over the streaming bound) in 16 x 16 tiles: 97 x 130 tiles, so that the
     * strips (2 bands) and their column groups both end short; over 4 pool threads; the destination aligned to a
     * line (streaming stores), then 4 bytes off it (ordinary stores). */
    int nr = 1552, nc = 2080;
    char decl[96];
    snprintf(decl, sizeof decl, "paged float [[%d][16]][[%d][16]]", nr / 16, nc / 16);
    PA_CK_OK(pa_declare(scope, "A", decl));
    snprintf(decl, sizeof decl, "paged float [[%d][16]][[%d][16]]", nc / 16, nr / 16);
    PA_CK_OK(pa_declare(scope, "B", decl));
    const pa_type *ta = parse("[[#A_0_0][#A_1_0]][[#A_0_1][#A_1_1]]"), *tb = parse("[[#B_1_0][#B_0_0]][[#B_1_1][#B_0_1]]");
    size_t n = (size_t)nr * nc;
    float *a = aligned_alloc(64, sizeof(float) * n), *b0 = aligned_alloc(64, sizeof(float) * (n + 16));
    for (size_t i = 0; i < n; i++)
        a[i] = (float)i;
    for (int off = 0; off < 4; off++) {   /* 2, 3: the tile walk inside a pa_for thread */
        float *b = b0 + off % 2;
        for (size_t i = 0; i < n; i++)
            b[i] = -1;
        if (off < 2)
            PA_CK_OK(pa_tile_copy(tb, b, ta, a, parse("paged float [16][16]"), NULL, NULL));
        else
            tile2_inside_for(ta, a, tb, b, parse("paged float [16][16]"));
        int64_t bad = 0;   /* counted, then asserted once: an assertion per element writes to check's pipe */
        for (int i = 0; i < nr; i++)
            for (int j = 0; j < nc; j++)
                bad += b[(size_t)j * nr + i] != a[(size_t)i * nc + j];
        ck_assert_int_eq(bad, 0);
    }
    /* the same bytes back as rows of 1040-float tiles: contiguous moves with streaming stores */
    snprintf(decl, sizeof decl, "paged float [%zu]", n);
    PA_CK_OK(pa_tile_copy(parse(decl), a, parse(decl), b0 + 1, parse("paged float [1040]"), NULL, NULL));
    int64_t bad = 0;
    for (int i = 0; i < nr; i++)
        for (int j = 0; j < nc; j++)
            bad += a[(size_t)j * nr + i] != (float)((size_t)i * nc + j);
    ck_assert_int_eq(bad, 0);
    free(a);
    free(b0);
}
END_TEST

/* Adds 1000 x t to every element and checks that tiles come in order. */
typedef struct order {
    int64_t next;
    int64_t elems;
} order;

static int add_t(void *tile, int64_t t, void *arg)
{
    order *o = arg;
    ck_assert_int_eq(t, o->next);
    o->next++;
    float *f = tile;
    for (int64_t i = 0; i < o->elems; i++)
        f[i] += 1000.0f * (float)t;
    return PA_OK;
}

START_TEST(staged_in_order)
{
    /* With a tile function each tile is staged in the inner buffer, in order: a transposition through a
     * 16 x 16 buffer whose rows are padded to 20 (the buffer's own layout), and otile alone stores zeros. */
    PA_CK_OK(pa_declare(scope, "A", "paged float [[4][16]][[3][16]]"));
    PA_CK_OK(pa_declare(scope, "B", "paged float [[3][16]][[4][16]]"));
    PA_CK_OK(pa_declare(scope, "PAD", "paged float [16][20]"));
    const pa_type *ta = parse("[[#A_0_0][#A_1_0]][[#A_0_1][#A_1_1]]"), *tb = parse("[[#B_1_0][#B_0_0]][[#B_1_1][#B_0_1]]");
    const pa_type *tile = parse("paged float [16 # PAD_0][16 # PAD_1]");
    int64_t mn, mx;
    PA_CK_OK(pa_extent(tile, &mn, &mx));
    ck_assert_int_eq(mx, 15 * 20 + 15);
    float *a = malloc(sizeof(float) * 64 * 48), *b = malloc(sizeof(float) * 64 * 48);
    for (int i = 0; i < 64 * 48; i++)
        a[i] = (float)i, b[i] = -1;
    order o = {0, 0};
    PA_CK_OK(pa_tile_copy(tb, b, ta, a, tile, add_t, &o));   /* elems 0: only the order is checked here */
    ck_assert_int_eq(o.next, 12);
    for (int i = 0; i < 64; i++)
        for (int j = 0; j < 48; j++)
            ck_assert(b[j * 64 + i] == a[i * 48 + j]);
    o = (order){0, mx + 1};   /* the buffer's extent: padding included */
    PA_CK_OK(pa_tile_copy(tb, b, ta, a, tile, add_t, &o));
    for (int i = 0; i < 64; i++)
        for (int j = 0; j < 48; j++)
            ck_assert(b[j * 64 + i] == a[i * 48 + j] + 1000.0f * (float)(i / 16 * 3 + j / 16));
    PA_CK_OK(pa_tile(ta, a, tile, PA_OTILE, NULL, NULL));
    for (int i = 0; i < 64 * 48; i++)
        ck_assert(a[i] == 0.0f);
    free(a);
    free(b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("threads_tile_vmem");
    TCase *tc = tcase_create("tile_vmem");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, transpositions);
    tcase_add_test(tc, other_layouts);
    tcase_add_test(tc, large_pure_move);
    tcase_add_test(tc, staged_in_order);
    suite_add_tcase(s, tc);
    return pa_test_run(s);
}
