/*
 * pkufft — the listing's declarations and its subprogram fft, in both routes (see pkufft.h).
 *
 * Each step that can fail on one process only (a plan, a transform, a copy between the host and its GPU) is
 * followed by pk_agree before the next collective step, so that a failure stops every process instead of
 * leaving the others waiting in the all-to-all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pkufft.h"

double pk_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int pk_declare(pk_ctx *c)
{
    char text[1024];
    int st = pa_scope_set_int(c->s, "N", c->n);
    if (st == PA_OK)
        st = pa_scope_set_int(c->s, "P", c->p);
    /* listing 46, lines 17-20, with the memory types of this engine; then the device route's slab (HSTS_1 in
     * device memory) and its distribution, and the agreement's types (listing 34's all-to-all) */
    snprintf(text, sizeof text,
             "parray mpi [P] PROCS\n"
             "parray %s float2 [P][[N/P][[N][N]]] HSTS\n"
             "parray %s float2 [N][[N][N]] DEVS\n"
             "parray [#PROCS][#HSTS_1] SCATTER\n"
             "parray %s float2 [N/P][[N][N]] DSLAB\n"
             "parray [#PROCS][#DSLAB] DSCATTER\n"
             "parray paged int [P] AGV\n"
             "parray [#PROCS][#AGV] AGS\n"
             "parray [#AGV][#PROCS] AGT\n",
             c->hmem, c->dmem, c->dmem);
    return st == PA_OK ? pa_declare_text(c->s, text) : st;
}

int pk_agree(pk_ctx *c, int mine, int *all)
{
    int send[PA_MAX_THREADS];
    for (int q = 0; q < c->p; q++)
        send[q] = mine, all[q] = -1;
    return pa_copy(pa_type_get(c->s, "AGT"), all, pa_type_get(c->s, "AGS"), send);
}

int pk_first_failed(const pk_ctx *c, const int *all)
{
    for (int q = 0; q < c->p; q++)
        if (all[q] != 0)
            return q;
    return -1;
}

int pk_declare_exchange(pk_ctx *c, pk_route route, pa_scope **out)
{
    int st = pa_scope_create(c->s, out);
    if (st != PA_OK)
        return st;
    /* subprog fft(HST, DEV, PROCS) called as fft(HSTS_1, DEVS_1, PROCS): the listing's lines 22-24; the device
     * route's types are the same over the slab in device memory, with DSLT transposing every plane (DEVT) */
    if (route == PK_ROUTE_HOST)
        st = pa_declare_text(*out, "parray [#HSTS_1] HST\n"
                                   "parray [#DEVS_1] DEV\n"
                                   "parray [[#DEV_1][#DEV_0]] DEVT\n"
                                   "parray [#PROCS][#HST] S\n"
                                   "parray [[#HST_1_0][#PROCS][#HST_0][#HST_1_1]] T\n");
    else
        st = pa_declare_text(*out, "parray [#DSLAB] DSL\n"
                                   "parray [#DSL_0][[#DSL_1_1][#DSL_1_0]] DSLT\n"
                                   "parray [#PROCS][#DSL] S\n"
                                   "parray [[#DSL_1_0][#PROCS][#DSL_0][#DSL_1_1]] T\n"
                                   /* the fast form's one all-to-all: Z gathered innermost, Y distributed */
                                   "parray [[#DSL_1_1][#PROCS][#DSL_0][#DSL_1_0]] TZ\n");
    if (st != PA_OK) {
        pa_scope_destroy(*out);
        *out = NULL;
    }
    return st;
}

/* Agrees on st (this process's status): the first failing process's status on every process. */
static int agree_status(pk_ctx *c, int st, int *failed)
{
    int all[PA_MAX_THREADS];
    int rc = pk_agree(c, st, all);
    if (rc != PA_OK)
        return rc;
    *failed = pk_first_failed(c, all);
    return *failed < 0 ? PA_OK : all[*failed];
}

/* A failed transform or plan as a library status, with its words in the error message. */
static int engine_error(const pk_ctx *c, const char *what, const char *msg)
{
    fprintf(stderr, "pkufft: process %d: %s: %s\n", c->k, what, msg);
    return PA_ERR_SYS;
}

static int copy(const pa_type *dt, void *d, const pa_type *sty, const void *s, double *acc)
{
    double t0 = pk_now();
    int st = pa_copy(dt, d, sty, s);
    if (st != PA_OK)
        fprintf(stderr, "pkufft: copy from %s to %s: %s\n", pa_type_name(sty), pa_type_name(dt), pa_last_error());
    *acc += pk_now() - t0;
    return st;
}

static int exec(pk_ctx *c, const pk_plan *p, void *data, double *acc)
{
    const char *msg;
    double t0 = pk_now();
    int st = pk_plan_exec(p, data, &msg) == 0 ? PA_OK : engine_error(c, "transform", msg);
    *acc += pk_now() - t0;
    return st;
}

/* Makes both plans on this process and agrees on them. */
static int make_plans(pk_ctx *c, int64_t xy_batch, int64_t z_batch, pk_plan *xy, pk_plan *z, int *failed)
{
    const char *msg = "";
    int st = PA_OK;
    if (pk_plan_make(c->engine, 2, c->n, xy_batch, c->fail_plan, xy, &msg) != 0 ||
        pk_plan_make(c->engine, 1, c->n, z_batch, c->fail_plan, z, &msg) != 0)
        st = engine_error(c, "FFT plan", msg);
    return agree_status(c, st, failed);
}

/* ---- the listing's route: slabs in host memory, one plane at a time on the GPU --------------------------- */

/* One pass of the listing over the slab's planes: each plane of host goes to the GPU as D (DEV, or DEVT for the
 * Z pass), is transformed there by plan, and comes back into the same plane of hbuf. */
static int planes_through_gpu(pk_ctx *c, const pa_type *HST_0, const pa_type *HST_1, const pa_type *D,
                              const pk_plan *plan, const pk_complex *h, pk_complex *hb, void *dev, double *fft_acc,
                              pk_times *t)
{
    int st = PA_OK;
    for (int64_t z = 0; z < pa_size(HST_0) && st == PA_OK; z++) {   /* for HST_0(host, hbuf) */
        int64_t o = pa_offset(HST_0, z);
        st = copy(D, dev, HST_1, h + o, &t->copies);                /* copy HST_1(host) to D(dev) */
        if (st == PA_OK)
            st = exec(c, plan, dev, fft_acc);                       /* fft */
        if (st == PA_OK)
            st = copy(HST_1, hb + o, D, dev, &t->copies);           /* copy D(dev) to HST_1(hbuf) */
    }
    return st;
}

int pk_fft_host(pk_ctx *c, void *host, void *hbuf, void *dev, pk_times *t, int *failed)
{
    pa_scope *s = NULL;
    pk_plan planxy = {0}, planz = {0};
    pk_complex *h = host, *hb = hbuf;
    double t0 = pk_now();
    int st = pk_declare_exchange(c, PK_ROUTE_HOST, &s);
    *failed = -1;
    if (st != PA_OK)
        return st;   /* the same declarations on every process: all fail alike */
    const pa_type *HST_0 = pa_type_get(s, "HST_0"), *HST_1 = pa_type_get(s, "HST_1"), *DEV = pa_type_get(s, "DEV"),
                  *DEVT = pa_type_get(s, "DEVT"), *S = pa_type_get(s, "S"), *T = pa_type_get(s, "T");
    if ((st = make_plans(c, 1, c->n, &planxy, &planz, failed)) != PA_OK)
        goto done;
    st = planes_through_gpu(c, HST_0, HST_1, DEV, &planxy, h, hb, dev, &t->fft_xy, t);   /* fft XY */
    if ((st = agree_status(c, st, failed)) != PA_OK)
        goto done;
    if ((st = copy(T, host, S, hbuf, &t->alltoall)) != PA_OK)       /* copy S(hbuf) to T(host) */
        goto done;
    st = planes_through_gpu(c, HST_0, HST_1, DEVT, &planz, h, hb, dev, &t->fft_z, t);   /* fft Z */
    if ((st = agree_status(c, st, failed)) != PA_OK)
        goto done;
    st = copy(S, host, T, hbuf, &t->alltoall);                      /* copy T(hbuf) to S(host) */
done:
    pk_plan_destroy(&planxy);
    pk_plan_destroy(&planz);
    pa_scope_destroy(s);
    t->total += pk_now() - t0;
    return st;
}

/* ---- the device route: the slab stays in device memory -------------------------------------------------- */

int pk_fft_device(pk_ctx *c, void *dslab, void *dbuf, pk_times *t, int *failed)
{
    pa_scope *s = NULL;
    pk_plan planxy = {0}, planz = {0};
    double t0 = pk_now();
    int st = pk_declare_exchange(c, PK_ROUTE_DEVICE, &s);
    *failed = -1;
    if (st != PA_OK)
        return st;
    const pa_type *DSL = pa_type_get(s, "DSL"), *DSLT = pa_type_get(s, "DSLT"), *S = pa_type_get(s, "S"),
                  *T = pa_type_get(s, "T");
    int64_t planes = c->n / c->p;
    if ((st = make_plans(c, planes, planes * c->n, &planxy, &planz, failed)) != PA_OK)
        goto done;
    st = exec(c, &planxy, dslab, &t->fft_xy);                       /* fft XY of every plane at once */
    if ((st = agree_status(c, st, failed)) != PA_OK)
        goto done;
    if ((st = copy(T, dbuf, S, dslab, &t->alltoall)) != PA_OK)      /* copy S(dslab) to T(dbuf) */
        goto done;
    st = copy(DSLT, dslab, DSL, dbuf, &t->copies);                  /* Z made contiguous, on the GPU */
    if (st == PA_OK)
        st = exec(c, &planz, dslab, &t->fft_z);                     /* fft Z */
    if (st == PA_OK)
        st = copy(DSL, dbuf, DSLT, dslab, &t->copies);
    if ((st = agree_status(c, st, failed)) != PA_OK)
        goto done;
    st = copy(S, dslab, T, dbuf, &t->alltoall);                     /* copy T(dbuf) to S(dslab) */
done:
    pk_plan_destroy(&planxy);
    pk_plan_destroy(&planz);
    pa_scope_destroy(s);
    t->total += pk_now() - t0;
    return st;
}

/* ---- the fast form: one all-to-all, the result left transposed ------------------------------------------- */

int pk_fast_groups(const pk_ctx *c)
{
    int64_t planes = c->n / c->p;
    int g = c->groups < 1 ? 1 : c->groups;
    while (g > 1 && planes % g != 0)
        g--;
    return g;
}

/*
 * The types of one plane group (M = N/P/G planes of every process): its source SG, the group's planes of the
 * slab, and its destination TZG, the same places as TZ's for those planes.  TZ puts global plane z = p N/P + zp
 * at offset z of its innermost dimension (stride 1); DZG splits that dimension as [P][[G][M]], so that a group
 * is the dimensions P (stride N/P) and M (stride 1) from the group's first plane, g M elements on.
 */
static int declare_group(pk_ctx *c, pa_scope *s, int64_t m, int groups)
{
    char text[512];
    int st = pa_scope_set_int(s, "M", m);
    if (st == PA_OK)
        st = pa_scope_set_int(s, "G", groups);
    snprintf(text, sizeof text,
             "parray %s float2 [M][[N][N]] DSLG\n"
             "parray [#PROCS][#DSLG] SG\n"
             "parray %s float2 [N/P][[N][[P][[G][M]]]] DZG\n"
             "parray [[#DZG_1_1_0][#DZG_1_1_1_1][#PROCS][#DZG_0][#DZG_1_0]] TZG\n",
             c->dmem, c->dmem);
    return st == PA_OK ? pa_declare_text(s, text) : st;
}

/* Waits for the XY transforms queued on stream, timed into t->fft_xy, and agrees on how they went. */
static int xy_done(pk_ctx *c, void *stream, int st, pk_times *t, int *failed)
{
    const char *msg;
    double t0 = pk_now();
    if (pk_stream_wait(c->engine, stream, &msg) != 0 && st == PA_OK)
        st = engine_error(c, "transform", msg);
    t->fft_xy += pk_now() - t0;
    return agree_status(c, st, failed);
}

/* The fast form's declarations, plans and stream: made at the first call and kept in c->fast for the calls that
 * follow with the same groups, as a program that transforms many times keeps its plans (pk_fast_release frees
 * them).  Collective: a failure on one process is agreed on. */
struct pk_fast {
    pa_scope *s;
    int groups;
    pk_plan xy, z;
    void *stream;
    const pa_type *SG, *TZG;
};

void pk_fast_release(pk_ctx *c)
{
    pk_fast *f = c->fast;
    if (!f)
        return;
    pk_stream_destroy(c->engine, f->stream);
    pk_plan_destroy(&f->xy);
    pk_plan_destroy(&f->z);
    pa_scope_destroy(f->s);
    free(f);
    c->fast = NULL;
}

static int fast_setup(pk_ctx *c, int groups, int *failed)
{
    const char *msg = "";
    if (c->fast && c->fast->groups == groups)
        return PA_OK;
    pk_fast_release(c);
    pk_fast *f = calloc(1, sizeof *f);
    int st = agree_status(c, f ? PA_OK : engine_error(c, "setup", "no memory"), failed);
    if (st != PA_OK) {
        free(f);
        return st;
    }
    c->fast = f;
    f->groups = groups;
    int64_t planes = c->n / c->p, m = planes / groups;
    if ((st = pk_declare_exchange(c, PK_ROUTE_DEVICE, &f->s)) != PA_OK ||   /* alike on every process */
        (st = declare_group(c, f->s, m, groups)) != PA_OK) {
        pk_fast_release(c);
        return st;
    }
    f->SG = pa_type_get(f->s, "SG");
    f->TZG = pa_type_get(f->s, "TZG");
    if ((st = make_plans(c, m, planes * c->n, &f->xy, &f->z, failed)) == PA_OK) {
        st = pk_stream_make(c->engine, &f->stream, &msg) == 0 ? PA_OK : engine_error(c, "stream", msg);
        st = agree_status(c, st, failed);
    }
    if (st != PA_OK)
        pk_fast_release(c);
    return st;
}

int pk_fft_device_fast(pk_ctx *c, void *dslab, void *dbuf, pk_times *t, int *failed)
{
    const char *msg = "";
    double t0 = pk_now();
    int groups = pk_fast_groups(c);
    *failed = -1;
    int st = fast_setup(c, groups, failed);
    if (st != PA_OK) {
        t->total += pk_now() - t0;
        return st;
    }
    pk_fast *f = c->fast;
    int64_t m = c->n / c->p / groups, plane = (int64_t)c->n * c->n;
    pk_complex *slab = dslab, *buf = dbuf;
    /* fft XY of the first group; then, group by group, the next group's XY transforms run on the program's
     * stream while the all-to-all copy SG -> TZG moves this group: the transposition happens in the exchange,
     * which writes every Z line contiguously, so no transposition follows */
    st = pk_plan_launch(&f->xy, slab, f->stream, &msg) == 0 ? PA_OK : engine_error(c, "transform", msg);
    if ((st = xy_done(c, f->stream, st, t, failed)) != PA_OK)
        goto done;
    for (int g = 0; g < groups; g++) {
        int next = g + 1 < groups;
        if (next)
            st = pk_plan_launch(&f->xy, slab + (g + 1) * m * plane, f->stream, &msg) == 0 ? PA_OK
                 : engine_error(c, "transform", msg);
        int cst = copy(f->TZG, buf + g * m, f->SG, slab + g * m * plane, &t->alltoall);
        if (next)
            st = xy_done(c, f->stream, st, t, failed);
        if (cst != PA_OK || st != PA_OK) {
            st = cst != PA_OK ? cst : st;
            goto done;
        }
    }
    st = exec(c, &f->z, dbuf, &t->fft_z);                           /* fft Z, in place in dbuf */
    st = agree_status(c, st, failed);
done:
    t->total += pk_now() - t0;
    return st;
}
