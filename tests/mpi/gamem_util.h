/*
 * parray MPI tests — what the gamem suites share: types by name, element byte patterns, a round trip through a
 * gamem type compared element by element with the types' reference offsets (destinations poisoned first), and
 * the Global Arrays calls of the last copy as text (ga_backend.h's statistics).
 */
#ifndef PARRAY_GAMEM_UTIL_H
#define PARRAY_GAMEM_UTIL_H

#include <ga.h>

#include "ga_backend.h"
#include "mpi_check.h"

static pa_scope *scope;

static const pa_type *T(const char *name)
{
    const pa_type *t = pa_type_get(scope, name);
    MCK(t != NULL, "pa_type_get(%s): %s", name, pa_last_error());
    return t;
}

/* The Global Array behind a gamem pointer: its data type and dimensions as text ("C_INT 3x4x2"). */
static inline const char *ga_shape(const void *g)
{
    static char text[96];
    int h = 0, type = 0, nd = 0;
    int64_t dims[GA_MAX_DIM];
    if (pa_gamem_handle(g, &h) != PA_OK)
        return pa_last_error();
    NGA_Inquire64(h, &type, &nd, dims);
    int at = snprintf(text, sizeof text, "%s ", type == C_INT ? "C_INT" : type == C_DBL ? "C_DBL" : type == C_CHAR
                      ? "C_CHAR" : type == C_LONGLONG ? "C_LONGLONG" : "other");
    for (int d = 0; d < nd; d++)
        at += snprintf(text + at, sizeof text - (size_t)at, d ? "x%lld" : "%lld", (long long)dims[d]);
    return text;
}

/* The status of the last failure on this thread, from its message's prefix ("ERR_NOMEM: ..."). */
static inline int last_status(void)
{
    const char *msg = pa_last_error();
    for (int st = -1; st >= -16; st--) {
        const char *name = pa_status_name(st);
        size_t len = strlen(name);
        if (strncmp(msg, name, len) == 0 && msg[len] == ':')
            return st;
    }
    return PA_ERR_INVAL;
}

/* One more than the largest offset of a type. */
static inline int64_t extent_of(const pa_type *t)
{
    int64_t lo = 0, hi = -1;
    pa_extent(t, &lo, &hi);
    return hi + 1;
}

/* The Global Arrays calls of this thread's last gamem copy, as "calls=N strided=N packed=N". */
static inline const char *last_calls(void)
{
    static char text[96];
    pa_ga__stats st;
    pa_ga__last_stats(&st);
    snprintf(text, sizeof text, "calls=%lld strided=%lld packed=%lld", (long long)st.calls, (long long)st.strided,
             (long long)st.packed);
    return text;
}

/* Byte b of the element that pattern p puts at offset o (never 0xEE or 0x11, the poisons). */
static inline unsigned char pat(int p, int64_t o, size_t b)
{
    unsigned char v = (unsigned char)(p * 31 + o * 7 + (int64_t)b * 3 + 1);
    return v == 0xEE || v == 0x11 ? 0x42 : v;
}

static inline void fill(char *h, int64_t n, size_t elm, int p)
{
    for (int64_t o = 0; o < n; o++)
        for (size_t b = 0; b < elm; b++)
            h[o * (int64_t)elm + (int64_t)b] = (char)pat(p, o, b);
}

/* 1 when element o of h holds pattern p's element at offset from. */
static inline int holds(const char *h, int64_t o, size_t elm, int p, int64_t from)
{
    for (size_t b = 0; b < elm; b++)
        if ((unsigned char)h[o * (int64_t)elm + (int64_t)b] != pat(p, from, b))
            return 0;
    return 1;
}

/* 1 when every byte of element o of h is the poison. */
static inline int poisoned(const char *h, int64_t o, size_t elm, unsigned char poison)
{
    for (size_t b = 0; b < elm; b++)
        if ((unsigned char)h[o * (int64_t)elm + (int64_t)b] != poison)
            return 0;
    return 1;
}

/* A host type of n elements of t's element type (declared once). */
static inline const pa_type *flat_host(const pa_type *t, int64_t n)
{
    char name[64], decl[96];
    snprintf(name, sizeof name, "HFLAT_%s_%lldx", pa_elm(t), (long long)n);
    for (char *c = name; *c; c++)
        *c = *c == ' ' ? '_' : *c;
    if (!pa_type_get(scope, name)) {
        snprintf(decl, sizeof decl, "paged %s [%lld]", pa_elm(t), (long long)n);
        MCK(pa_declare(scope, name, decl) == PA_OK, "%s: %s", decl, pa_last_error());
    }
    return pa_type_get(scope, name);
}

/*
 * Round trip through gamem type gt, over an array made from type mt (read as a flat type of its extent), and
 * host type ht, on the processes of comm: process `writer` poisons the array, fills the host array with
 * pattern 1 and puts it; every process reads the whole array and checks the elements the copy reached (and
 * the poison elsewhere); then `writer` fills the array with pattern 2 and every process gets it back into a
 * poisoned host array.  expect_put and expect_get, when not NULL, are the calls of the writer's put and of
 * every get (last_calls).
 */
static inline void round_trip(MPI_Comm comm, const pa_type *mt, const pa_type *gt, const pa_type *ht, int writer,
                              const char *expect_put, const char *expect_get)
{
    const pa_type *wt = mt;
    const char *gname = pa_type_name(gt), *hname = pa_type_name(ht);
    int me = 0, np = 1;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    if (!mt || !gt || !ht)
        return;
    if (extent_of(mt) != pa_size(mt)) {   /* made from a window: read it through a flat gamem type */
        char fname[64], decl[96];
        snprintf(fname, sizeof fname, "GFLAT_%s_%lldx", pa_type_name(mt), (long long)extent_of(mt));
        if (!pa_type_get(scope, fname)) {
            snprintf(decl, sizeof decl, "gamem %s [%lld]", pa_elm(mt), (long long)extent_of(mt));
            MCK(pa_declare(scope, fname, decl) == PA_OK, "%s: %s", decl, pa_last_error());
        }
        wt = T(fname);
    }
    size_t e = pa_elm_size(gt);
    int64_t n = pa_size(gt), fn = extent_of(wt), hx = extent_of(ht);
    const pa_type *flat = flat_host(wt, fn);
    char *g = pa_create(mt), *host = malloc((size_t)hx * e), *all = malloc((size_t)fn * e);
    char *seen = calloc((size_t)(fn > hx ? fn : hx), 1);
    MCK(g != NULL, "pa_create(%s): %s", pa_type_name(mt), pa_last_error());
    if (!g || !host || !all || !seen || !flat)
        goto done;
    if (me == writer % np) {
        memset(all, 0xEE, (size_t)fn * e);
        MCK_OK(pa_copy(wt, g, flat, all));
        fill(host, hx, e, 1);
        MCK_OK(pa_copy(gt, g, ht, host));
        MCK(!expect_put || strcmp(last_calls(), expect_put) == 0, "put %s <- %s: %s, expected %s", gname, hname,
            last_calls(), expect_put);
    }
    MPI_Barrier(comm);
    memset(all, 0x11, (size_t)fn * e);
    MCK_OK(pa_copy(flat, all, wt, g));
    int bad = 0;
    for (int64_t k = 0; k < n && bad < 5; k++) {
        int64_t go = pa_offset(gt, k), ho = pa_offset(ht, k);
        seen[go] = 1;
        if (!holds(all, go, e, 1, ho) && ++bad)
            MCK(0, "put %s <- %s: element %lld (gamem offset %lld) is not host element %lld", gname, hname,
                (long long)k, (long long)go, (long long)ho);
    }
    for (int64_t o = 0; o < fn && bad < 5; o++)
        if (!seen[o] && !poisoned(all, o, e, 0xEE) && ++bad)
            MCK(0, "put %s <- %s: gamem offset %lld was written", gname, hname, (long long)o);
    MPI_Barrier(comm);
    if (me == writer % np) {
        fill(all, fn, e, 2);
        MCK_OK(pa_copy(wt, g, flat, all));
    }
    MPI_Barrier(comm);
    memset(host, 0x11, (size_t)hx * e);
    MCK_OK(pa_copy(ht, host, gt, g));
    MCK(!expect_get || strcmp(last_calls(), expect_get) == 0, "get %s <- %s: %s, expected %s", hname, gname,
        last_calls(), expect_get);
    int64_t touched = 0;
    for (int64_t k = 0; k < n && bad < 5; k++) {
        int64_t go = pa_offset(gt, k), ho = pa_offset(ht, k);
        if (!holds(host, ho, e, 2, go) && ++bad)
            MCK(0, "get %s <- %s: element %lld (host offset %lld) is not gamem element %lld", hname, gname,
                (long long)k, (long long)ho, (long long)go);
    }
    for (int64_t o = 0; o < hx; o++)
        touched += !poisoned(host, o, e, 0x11);
    MCK(touched == n, "get %s <- %s: %lld host elements written, expected %lld", hname, gname,
        (long long)touched, (long long)n);
    MPI_Barrier(comm);
done:
    MCK_OK(pa_destroy(mt, g));
    free(host);
    free(all);
    free(seen);
}

/* round_trip with the types named in the suite's scope. */
static inline void round_trip_on(MPI_Comm comm, const char *whole, const char *gname, const char *hname,
                                 int writer, const char *expect_put, const char *expect_get)
{
    round_trip(comm, T(whole), T(gname), T(hname), writer, expect_put, expect_get);
}

/*
 * dt <- st between two gamem arrays (made from dm and sm; the same array when same), on every process of
 * the world: process `writer` fills the source with pattern 3 and the destination with poison (through flat
 * types) and copies; every process reads the destination back and checks every element against the
 * reference offsets, and that the elements outside the copy kept what they held.
 */
static inline void gamem_copy_check(const pa_type *dm, const pa_type *dt, const pa_type *sm, const pa_type *st,
                                    int same, int writer)
{
    int me = 0, np = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (!dm || !sm || !dt || !st)
        return;
    const char *dname = pa_type_name(dt), *sname = pa_type_name(st);
    size_t e = pa_elm_size(dt);
    int64_t dn = extent_of(dm), sn = extent_of(sm), n = pa_size(dt);
    char *dg = pa_create(dm), *sg = same ? dg : pa_create(sm), line[512];
    char *dh = malloc((size_t)dn * e), *sh = malloc((size_t)sn * e), *seen = calloc((size_t)dn, 1);
    char *got = malloc((size_t)dn * e);
    const pa_type *df = flat_host(dm, dn), *sf = flat_host(sm, sn);
    MCK(dg && sg, "pa_create: %s", pa_last_error());
    if (!dg || !sg || !dh || !sh || !seen || !got || extent_of(dm) != pa_size(dm) || extent_of(sm) != pa_size(sm))
        goto done;
    if (me == writer % np) {
        memset(dh, 0xEE, (size_t)dn * e);
        MCK_OK(pa_copy(dm, dg, df, dh));
        fill(sh, sn, e, 3);
        MCK_OK(pa_copy(sm, sg, sf, sh));   /* (the same array: the pattern overwrites the poison) */
        if (same)
            memcpy(dh, sh, (size_t)sn * e);   /* what the destination held before the copy */
        MCK_OK(pa_copy(dt, dg, st, sg));
        pa_ga__stats calls;
        pa_ga__last_stats(&calls);
        MCK(pa_ga__slice_bytes > 4096 || calls.calls >= 12, "%s <- %s in slices: %lld calls", dname, sname,
            (long long)calls.calls);
        MCK(pa_copy_explain(dt, st, line, sizeof line) > 0 && strstr(line, "strategy=ga_copy"), "%s", line);
    }
    MPI_Bcast(dh, (int)((size_t)dn * e), MPI_BYTE, writer % np, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    memset(got, 0x11, (size_t)dn * e);
    MCK_OK(pa_copy(df, got, dm, dg));
    int bad = 0;
    for (int64_t k = 0; k < n && bad < 5; k++) {
        int64_t d = pa_offset(dt, k), s = pa_offset(st, k);
        seen[d] = 1;
        if (!holds(got, d, e, 3, s) && ++bad)
            MCK(0, "%s <- %s: element %lld (offset %lld) is not source element %lld", dname, sname, (long long)k,
                (long long)d, (long long)s);
    }
    for (int64_t o = 0; o < dn && bad < 5; o++)
        if (!seen[o] && memcmp(got + o * (int64_t)e, dh + o * (int64_t)e, e) != 0 && ++bad)
            MCK(0, "%s <- %s: offset %lld outside the copy changed", dname, sname, (long long)o);
    MPI_Barrier(MPI_COMM_WORLD);
done:
    if (!same)
        MCK_OK(pa_destroy(sm, sg));
    MCK_OK(pa_destroy(dm, dg));
    free(dh);
    free(sh);
    free(seen);
    free(got);
}

#endif
