/*
 * parray — SSB on the GPU: the engine's setup (pa_ssb_gpu_create_with).  The mode (resident or streaming), the
 * parts (GPUs and their rows of lineorder), the chunk and the streams are chosen first, from the setup, the
 * environment and the memory allowed, before anything is allocated; then each part gets its kernels, its copy
 * of the dimension columns, hash tables and group table, and either its rows of the fact columns (resident) or
 * its chunk buffers and streams (streaming).  Launches are in ssb_gpu_run.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "parray/query/block.h"
#include "ssb_gpu.h"

#define SRC_(bt, ipt) "#define PA_SSB_BT " #bt "\n#define PA_SSB_IPT " #ipt "\n#include <parray/query/ssb_kernels.h>\n"
#define SRC(bt, ipt) SRC_(bt, ipt)

static const char *const entries[PA__SSB_NK] = {"pa_ssb_fill", "pa_ssb_build", "pa_ssb_q1", "pa_ssb_q2", "pa_ssb_q3",
                                                  "pa_ssb_q4"};

const char *pa_ssb_gpu_source(int q)
{
    static const char src[] = SRC(PA_SSB_BLOCK, PA_SSB_ITEMS);
    return q >= 0 && q < PA_SSB_NQUERIES ? src : NULL;
}

static int is_fact(int c)
{
    return pa__ssb_cols[c].table == PA_SSB_LINEORDER;
}

static int dalloc(pa_ssb_gpu *g, pa__ssb_part *pt, pa__ssb_dbuf *b, const char *elm, int64_t n, const char *what)
{
    char decl[96];
    int64_t bytes = (n > 0 ? n : 1) * (elm[0] == 'l' ? 8 : 4);
    snprintf(decl, sizeof decl, "dmem %s [%lld]", elm, (long long)(n > 0 ? n : 1));
    if (!(b->type = pa_type_parse(g->scope, decl)))
        return pa__err_wrap(PA_ERR_NOMEM, "ssb: %s", what);
    if (!(b->ptr = pa_create(b->type)))
        return pa__err_wrap(PA_ERR_NOMEM, "ssb: %s on GPU %d (%lld bytes; the data may not fit in the GPU's memory: "
                            "pa_ssb_gpu_config's streaming mode keeps lineorder in host memory)", what, pt->device,
                            (long long)bytes);
    pt->bytes += bytes;
    return PA_OK;
}

/* A cuda thread type of blocks x threads in the grid convention, as launch shape. */
static int shape(pa_ssb_gpu *g, int64_t blocks, int threads, pa_dthreads *out)
{
    char decl[96];
    snprintf(decl, sizeof decl, "cuda [[%lld][%d]]", (long long)(blocks > 0 ? blocks : 1), threads);
    const pa_type *t = pa_type_parse(g->scope, decl);
    return t ? pa_cuda_threads(t, PA_CUDA_GRID, out) : pa__err_wrap(PA_ERR_RANGE, "ssb: launch shape %s", decl);
}

static int64_t tiles(const pa_ssb_gpu *g, int64_t rows)
{
    return (rows + g->bt * g->ipt - 1) / (g->bt * g->ipt);
}

/* Rows [lo, lo + n) of column c to dmem. */
static int copy_column(pa_ssb_gpu *g, pa__ssb_part *pt, int c, int64_t lo, int64_t n)
{
    char decl[64];
    int rc = dalloc(g, pt, &pt->col[c], "int", n, pa__ssb_cols[c].name);
    if (rc != PA_OK || n == 0)
        return rc;
    snprintf(decl, sizeof decl, "paged int [%lld]", (long long)n);
    const pa_type *h = pa_type_parse(g->scope, decl);
    rc = h ? pa_copy(pt->col[c].type, pt->col[c].ptr, h, g->db->col[c] + lo) : PA_ERR_NOMEM;
    return rc == PA_OK ? rc : pa__err_wrap(rc, "ssb: copying %s to GPU %d", pa__ssb_cols[c].name, pt->device);
}

/* The tile shape: PA_SSB_BLOCK x PA_SSB_ITEMS, or $PA_SSB_TILE ("256x8": threads x items) for tuning. */
static int tile_shape(pa_ssb_gpu *g)
{
    const char *e = getenv("PA_SSB_TILE");
    g->bt = PA_SSB_BLOCK;
    g->ipt = PA_SSB_ITEMS;
    if (e && *e && (sscanf(e, "%dx%d", &g->bt, &g->ipt) != 2 || g->bt < 32 || g->bt > 1024 || g->bt % 32 ||
                    g->ipt < 1 || g->ipt > 32))
        return pa__err(PA_ERR_RANGE, "ssb: PA_SSB_TILE=%s (wanted THREADSxITEMS, threads a multiple of 32 up to 1024, "
                       "items 1 to 32)", e);
    snprintf(g->source, sizeof g->source, "#define PA_SSB_BT %d\n#define PA_SSB_IPT %d\n"
             "#include <parray/query/ssb_kernels.h>\n", g->bt, g->ipt);
    return PA_OK;
}

/* The hash table of dimension d: perfect over the keys' range when dense enough, else open addressing. */
static int plan_table(const pa_ssb_db *db, int keycol, pa_qb_ht *ht, int64_t *ints)
{
    int64_t n = db->rows[pa__ssb_cols[keycol].table];
    const int32_t *key = db->col[keycol];
    int32_t kmin = n ? key[0] : 0, kmax = n ? key[0] : 0;
    for (int64_t i = 1; i < n; i++) {
        kmin = key[i] < kmin ? key[i] : kmin;
        kmax = key[i] > kmax ? key[i] : kmax;
    }
    int64_t range = (int64_t)kmax - kmin + 1, size = 1;
    memset(ht, 0, sizeof *ht);
    ht->kmin = kmin;
    ht->open = range > PA__SSB_DENSE_FACTOR * n + PA__SSB_DENSE_SLACK;   /* the CPU's rule (ssb_cpu.h) */
    if (ht->open) {
        while (size < 2 * n)
            size *= 2;
    } else {
        size = range;
    }
    if (size > INT32_MAX / 2)
        return pa__err(PA_ERR_RANGE, "ssb: a hash table of %lld slots for %s", (long long)size,
                       pa__ssb_cols[keycol].name);
    ht->size = (int)size;
    *ints = ht->open ? 2 * size : size;
    return PA_OK;
}

/* ---- the setup: environment, limits, mode -------------------------------------------------------------------- */

/* The environment's setup (docs/api.md's table of variables): a value that does not parse warns once and is not
 * used. */
static atomic_int warned_mode, warned_mem, warned_chunk, warned_streams, warned_devices;

static int64_t env_bytes(void)
{
    const char *e = getenv("PA_SSB_GPU_MEM");
    char *end;
    if (!e)
        return 0;
    double x = *e >= '0' && *e <= '9' ? strtod(e, &end) : 0;
    if (x > 0 && (*end == 'K' || *end == 'M' || *end == 'G')) {
        x *= *end == 'K' ? 1024.0 : *end == 'M' ? 1048576.0 : 1073741824.0;
        end++;
    }
    if (x >= 1 && x < 9e18 && !*end)
        return (int64_t)x;
    pa__env_warn(&warned_mem, "PA_SSB_GPU_MEM", e, "a count of bytes (an optional K, M or G suffix)",
                 "90% of the GPU's free memory");
    return 0;
}

static void env_devices(pa_ssb_gpu_config *c)
{
    const char *e = getenv("PA_SSB_GPU_DEVICES"), *s = e;
    int n = 0, d[PA_SSB_GPU_MAX_DEVICES];
    if (!e)
        return;
    while (*s) {
        char *end;
        long v = *s >= '0' && *s <= '9' ? strtol(s, &end, 10) : -1;
        if (v < 0 || v > 1024 || n == PA_SSB_GPU_MAX_DEVICES || (*end && *end != ',') || (*end == ',' && !end[1])) {
            pa__env_warn(&warned_devices, "PA_SSB_GPU_DEVICES", e, "GPU numbers separated by commas (at most 16)",
                         "the current GPU");
            return;
        }
        d[n++] = (int)v;
        s = *end ? end + 1 : end;
    }
    if (n == 0) {
        pa__env_warn(&warned_devices, "PA_SSB_GPU_DEVICES", e, "GPU numbers separated by commas (at most 16)",
                     "the current GPU");
        return;
    }
    c->ndevices = n;
    memcpy(c->devices, d, (size_t)n * sizeof *d);
}

/* The setup with the environment's values where the caller's are zero, checked, and the defaults filled in. */
static int resolve(const pa_ssb_gpu_config *in, int ndev, pa_ssb_gpu_config *c)
{
    static const pa_ssb_gpu_config zero;
    static const char *const modes[] = {"auto", "resident", "stream"};
    *c = in ? *in : zero;
    if (c->mode == PA_SSB_GPU_AUTO)
        c->mode = (pa_ssb_gpu_mode)pa__env_choice("PA_SSB_GPU_MODE", modes, 3, PA_SSB_GPU_AUTO, &warned_mode);
    if (!c->mem_limit)
        c->mem_limit = env_bytes();
    if (!c->chunk_rows)
        c->chunk_rows = pa__env_int("PA_SSB_GPU_CHUNK", 1, INT64_C(1) << 31, 0, "8388608 rows", &warned_chunk);
    if (!c->streams)
        c->streams = (int)pa__env_int("PA_SSB_GPU_STREAMS", 2, PA__SSB_MAX_STREAMS, 0, "3", &warned_streams);
    if (!c->ndevices)
        env_devices(c);
    if ((int)c->mode < PA_SSB_GPU_AUTO || c->mode > PA_SSB_GPU_STREAM)
        return pa__err(PA_ERR_RANGE, "ssb: GPU mode %d (auto 0, resident 1, stream 2)", (int)c->mode);
    if (c->mem_limit < 0 || c->chunk_rows < 0 || c->chunk_rows > (INT64_C(1) << 31))
        return pa__err(PA_ERR_RANGE, "ssb: %s %lld (wanted 0 for the default, or positive%s)",
                       c->mem_limit < 0 ? "GPU memory limit" : "chunk of rows",
                       (long long)(c->mem_limit < 0 ? c->mem_limit : c->chunk_rows),
                       c->mem_limit < 0 ? "" : " up to 2^31");
    if (c->streams && (c->streams < 2 || c->streams > PA__SSB_MAX_STREAMS))
        return pa__err(PA_ERR_RANGE, "ssb: %d streams (wanted 2 to %d, or 0 for %d)", c->streams,
                       PA__SSB_MAX_STREAMS, PA__SSB_STREAMS);
    if (c->ndevices < 0 || c->ndevices > PA_SSB_GPU_MAX_DEVICES)
        return pa__err(PA_ERR_RANGE, "ssb: %d GPUs (wanted 1 to %d, or 0 for the current one)", c->ndevices,
                       PA_SSB_GPU_MAX_DEVICES);
    for (int i = 0; i < c->ndevices; i++)
        if (c->devices[i] < 0 || c->devices[i] >= ndev)
            return pa__err(PA_ERR_RANGE, "ssb: GPU %d (part %d): this process sees %d GPU%s", c->devices[i], i, ndev,
                           ndev == 1 ? "" : "s");
    if (!c->streams)
        c->streams = PA__SSB_STREAMS;
    if (!c->chunk_rows)
        c->chunk_rows = PA__SSB_CHUNK_ROWS;
    if (!c->ndevices) {
        int d = pa_cuda_get_device();
        if (d < 0)
            return d;
        c->ndevices = 1;
        c->devices[0] = d;
    }
    return PA_OK;
}

/* The bytes a part takes whatever the mode: dimension columns, hash tables, the group table. */
static int64_t common_bytes(const pa_ssb_gpu *g, const int *need, const int64_t *ht_ints)
{
    int64_t b = g->gslots * 8;
    for (int c = 0; c < PA__SSB_NCOLS; c++)
        if (need[c] && !is_fact(c))
            b += (g->db->rows[pa__ssb_cols[c].table] + 1) * 4;
    for (int d = 0; d < PA__SSB_NDIMS; d++)
        b += ht_ints[d] * 4;
    return b;
}

/* The memory each part may take: the setup's limit, else 90% of its GPU's free memory over the parts on it. */
static int part_limits(pa_ssb_gpu *g, const pa_ssb_gpu_config *c, int64_t *limit)
{
    for (int p = 0; p < g->nparts; p++) {
        if (c->mem_limit) {
            limit[p] = c->mem_limit;
            continue;
        }
        size_t free_b = 0, total_b = 0;
        const pa__async_ops *as = pa__backends_async("ssb: the GPU's free memory");
        int rc = as ? pa_cuda_set_device(g->part[p].device) : PA_ERR_NODEV;
        if (rc != PA_OK || (rc = as->mem_info(&free_b, &total_b)) != PA_OK)
            return rc;
        int sharing = 0;
        for (int k = 0; k < g->nparts; k++)
            sharing += g->part[k].device == g->part[p].device;
        limit[p] = (int64_t)((double)free_b * 0.9) / sharing;
    }
    return PA_OK;
}

/* Chooses the mode and, streaming, the chunk: nothing is allocated yet. */
static int choose(pa_ssb_gpu *g, const pa_ssb_gpu_config *c, const int *need, const int64_t *ht_ints)
{
    int64_t limit[PA_SSB_GPU_MAX_DEVICES], common = common_bytes(g, need, ht_ints), tile = g->bt * g->ipt, most = 0;
    int nfact = 0, rc = part_limits(g, c, limit), worst = 0;
    if (rc != PA_OK)
        return rc;
    for (int k = 0; k < PA__SSB_NCOLS; k++)
        nfact += need[k] && is_fact(k);
    int fits = 1;
    for (int p = 0; p < g->nparts; p++) {
        int64_t rows = g->part[p].hi - g->part[p].lo, b = common + nfact * (rows + 1) * 4;
        most = rows > most ? rows : most;
        if (b > limit[p]) {
            fits = 0;
            worst = p;
        }
    }
    g->mode = c->mode == PA_SSB_GPU_AUTO ? (fits ? PA_SSB_GPU_RESIDENT : PA_SSB_GPU_STREAM) : c->mode;
    if (g->mode == PA_SSB_GPU_RESIDENT) {
        int64_t rows = g->part[worst].hi - g->part[worst].lo;
        return fits ? PA_OK : pa__err(PA_ERR_NOMEM, "ssb: resident on GPU %d: %lld bytes needed (%lld rows of %d "
                                      "lineorder columns and the dimensions), %lld allowed (%s); the streaming mode "
                                      "keeps lineorder in host memory", g->part[worst].device,
                                      (long long)(common + nfact * (rows + 1) * 4), (long long)rows, nfact,
                                      (long long)limit[worst], c->mem_limit ? "the limit set" : "90% of its free memory");
    }
    g->nstreams = c->streams;
    int64_t chunk = (c->chunk_rows + tile - 1) / tile * tile, whole = (most + tile - 1) / tile * tile;
    chunk = chunk < whole ? chunk : whole;
    chunk = chunk > tile ? chunk : tile;
    for (int p = 0; p < g->nparts; p++) {
        int64_t room = (limit[p] - common) / (g->nstreams * PA__SSB_MAX_FACT * 4) / tile * tile;
        if (room < tile)
            return pa__err(PA_ERR_NOMEM, "ssb: streaming on GPU %d: %lld bytes allowed (%s), but the dimension tables "
                           "take %lld and %d chunks of %lld rows %lld more", g->part[p].device, (long long)limit[p],
                           c->mem_limit ? "the limit set" : "90% of its free memory", (long long)common, g->nstreams,
                           (long long)tile, (long long)(g->nstreams * PA__SSB_MAX_FACT * 4 * tile));
        chunk = chunk < room ? chunk : room;
    }
    g->chunk = chunk;
    return PA_OK;
}

/* ---- the parts ----------------------------------------------------------------------------------------------- */

static int setup_part(pa_ssb_gpu *g, pa__ssb_part *pt, const int *need, const pa_qb_ht *hts, const int64_t *ht_ints)
{
    const pa_ssb_db *db = g->db;
    int64_t rows = pt->hi - pt->lo;
    int rc = pa_cuda_set_device(pt->device);
    for (int k = 0; k < PA__SSB_NK && rc == PA_OK; k++)
        rc = pa_cuda_compile("ssb_kernels", g->source, entries[k], &pt->fn[k]);
    for (int c = 0; c < PA__SSB_NCOLS && rc == PA_OK; c++)
        if (need[c] && !is_fact(c))
            rc = copy_column(g, pt, c, 0, db->rows[pa__ssb_cols[c].table]);
        else if (need[c] && g->mode == PA_SSB_GPU_RESIDENT)
            rc = copy_column(g, pt, c, pt->lo, rows);
    for (int d = 0; d < PA__SSB_NDIMS && rc == PA_OK; d++) {
        if (!ht_ints[d])
            continue;
        pt->hts[d] = hts[d];
        pt->ht_ints[d] = ht_ints[d];
        int64_t n = db->rows[d == PA__SSB_DDATE ? PA_SSB_DATE : d == PA__SSB_DCUST ? PA_SSB_CUSTOMER
                             : d == PA__SSB_DSUPP ? PA_SSB_SUPPLIER : PA_SSB_PART];
        if ((rc = dalloc(g, pt, &pt->ht[d], "int", ht_ints[d], "a dimension's hash table")) == PA_OK)
            rc = shape(g, tiles(g, n), g->bt, &pt->build[d]);
        pt->hts[d].slots = pt->ht[d].ptr;
    }
    if (rc == PA_OK)
        rc = dalloc(g, pt, &pt->groups, "long", g->gslots, "the group table");
    if (rc == PA_OK)
        rc = shape(g, 264, 256, &pt->fill);
    if (rc != PA_OK)
        return rc;
    if (g->mode == PA_SSB_GPU_RESIDENT) {   /* several parts: each its own stream; one: the caller's */
        if ((rc = shape(g, tiles(g, rows), g->bt, &pt->fact)) != PA_OK || !g->as ||
            (rc = g->as->stream_new(&pt->streams[0])) != PA_OK)
            return rc;
        return g->as->event_new(&pt->done[0]);
    }
    pt->nchunks = (rows + g->chunk - 1) / g->chunk;
    if ((rc = shape(g, tiles(g, g->chunk), g->bt, &pt->fact)) != PA_OK ||
        (rc = shape(g, tiles(g, rows - (pt->nchunks ? pt->nchunks - 1 : 0) * g->chunk), g->bt, &pt->fact_last)) !=
            PA_OK || (rc = g->as->event_new(&pt->built)) != PA_OK)
        return rc;
    for (int s = 0; s < g->nstreams && rc == PA_OK; s++)
        if ((rc = dalloc(g, pt, &pt->buf[s], "int", g->chunk * PA__SSB_MAX_FACT, "a chunk buffer")) == PA_OK &&
            (rc = g->as->stream_new(&pt->streams[s])) == PA_OK)
            rc = g->as->event_new(&pt->done[s]);
    return rc;
}

/* Page-locks the host's fact columns for the streaming copies; where that fails, streams them unlocked. */
static void lock_columns(pa_ssb_gpu *g, const int *need)
{
    for (int c = 0; c < PA__SSB_NCOLS; c++) {
        int64_t n = g->db->rows[PA_SSB_LINEORDER];
        if (!need[c] || !is_fact(c) || n == 0)
            continue;
        if (g->as->host_lock(g->db->col[c], (size_t)n * 4, &g->locked[c]) != PA_OK)
            g->unlocked = 1;
    }
}

static void describe(pa_ssb_gpu *g)
{
    char devs[96] = "";
    int64_t most = 0;
    for (int p = 0; p < g->nparts; p++) {
        size_t l = strlen(devs);
        snprintf(devs + l, sizeof devs - l, "%s%d", p ? "," : "", g->part[p].device);
        most = g->part[p].bytes > most ? g->part[p].bytes : most;
    }
    int l = snprintf(g->what, sizeof g->what, "%s: %d part%s on GPU%s %s", g->mode == PA_SSB_GPU_STREAM ? "stream"
                     : "resident", g->nparts, g->nparts == 1 ? "" : "s", g->nparts == 1 ? "" : "s", devs);
    if (g->mode == PA_SSB_GPU_STREAM)
        l += snprintf(g->what + l, sizeof g->what - (size_t)l, "; chunks of %lld rows, %d streams%s", (long long)g->chunk,
                      g->nstreams, g->unlocked ? ", host columns NOT page-locked (pageable copies)" : "");
    snprintf(g->what + l, sizeof g->what - (size_t)l, "; %.3f GB a part", (double)most / 1e9);
}

int pa_ssb_gpu_create_with(const pa_ssb_db *db, const pa_ssb_gpu_config *cfg, pa_ssb_gpu **out)
{
    pa_ssb_gpu *g = NULL;
    pa_ssb_gpu_config c;
    int rc, ndev;
    if (!db || !out)
        return pa__err(PA_ERR_INVAL, "pa_ssb_gpu_create: NULL argument");
    if ((ndev = pa_cuda_device_count()) < 0)
        return ndev;
    if ((rc = resolve(cfg, ndev, &c)) != PA_OK)
        return rc;
    if (!(g = calloc(1, sizeof *g)))
        return pa__err(PA_ERR_NOMEM, "pa_ssb_gpu_create: out of memory");
    g->db = db;
    g->home = pa_cuda_get_device();
    if ((rc = pa_scope_create(NULL, &g->scope)) != PA_OK || (rc = tile_shape(g)) != PA_OK)
        goto fail;
    int need[PA__SSB_NCOLS] = {0}, dimkey[PA__SSB_NDIMS] = {-1, -1, -1, -1};
    for (int k = 0; k < 4; k++) {
        int n;
        const int *fc = pa__ssb_fact_cols(k, &n);
        for (int i = 0; i < n; i++)
            need[fc[i]] = 1;
    }
    g->gslots = 1;
    for (int q = 0; q < PA_SSB_NQUERIES; q++) {
        pa__ssb_plan *p = &g->plan[q];
        if ((rc = pa__ssb_plan_make(db, q, p)) != PA_OK)
            goto fail;
        /* A query whose groups do not fit the dense table is refused at its launch, not here. */
        if (p->nslots <= PA__SSB_GPU_MAX_SLOTS)
            g->gslots = p->nslots > g->gslots ? p->nslots : g->gslots;
        for (int d = 0; d < PA__SSB_NDIMS; d++) {
            if (!p->dim[d].used || q < 3)
                continue;
            dimkey[d] = p->dim[d].keycol;
            need[p->dim[d].keycol] = 1;
            for (int k = 0; k < 2; k++)
                if (p->dim[d].pred[k].col >= 0)
                    need[p->dim[d].pred[k].col] = 1;
            if (p->dim[d].valcol >= 0)
                need[p->dim[d].valcol] = 1;
        }
    }
    pa_qb_ht hts[PA__SSB_NDIMS];
    int64_t ht_ints[PA__SSB_NDIMS] = {0};
    for (int d = 0; d < PA__SSB_NDIMS; d++)
        if (dimkey[d] >= 0 && (rc = plan_table(db, dimkey[d], &hts[d], &ht_ints[d])) != PA_OK)
            goto fail;
    g->nparts = c.ndevices;
    for (int p = 0; p < g->nparts; p++) {
        g->part[p].device = c.devices[p];
        pa__ssb_share(db->rows[PA_SSB_LINEORDER], p, g->nparts, &g->part[p].lo, &g->part[p].hi);
    }
    if ((rc = choose(g, &c, need, ht_ints)) != PA_OK)
        goto fail;
    if (g->mode == PA_SSB_GPU_STREAM || g->nparts > 1) {
        if (!(g->as = pa__backends_async("ssb: streaming or several GPUs"))) {
            rc = PA_ERR_NODEV;
            goto fail;
        }
        if ((rc = pa_cuda_set_device(g->home)) != PA_OK || (rc = g->as->event_new(&g->start)) != PA_OK)
            goto fail;
    }
    if (g->mode == PA_SSB_GPU_STREAM)
        lock_columns(g, need);
    for (int p = 0; p < g->nparts; p++)
        if ((rc = setup_part(g, &g->part[p], need, hts, ht_ints)) != PA_OK)
            goto fail;
    (void)pa_cuda_set_device(g->home);
    describe(g);
    *out = g;
    return PA_OK;
fail:
    pa_ssb_gpu_destroy(g);
    return rc;
}

int pa_ssb_gpu_create(const pa_ssb_db *db, pa_ssb_gpu **out)
{
    return pa_ssb_gpu_create_with(db, NULL, out);
}

pa_ssb_gpu_mode pa_ssb_gpu_get_mode(const pa_ssb_gpu *g)
{
    return g ? g->mode : PA_SSB_GPU_AUTO;
}

const char *pa_ssb_gpu_describe(const pa_ssb_gpu *g)
{
    return g ? g->what : "";
}

static void free_buf(pa__ssb_dbuf *b)
{
    if (b->ptr)
        pa_destroy(b->type, b->ptr);
    b->ptr = NULL;
}

void pa_ssb_gpu_destroy(pa_ssb_gpu *g)
{
    if (!g)
        return;
    int err = pa__last_status();   /* freeing after a failure keeps its message */
    char msg[512];
    snprintf(msg, sizeof msg, "%s", pa_last_error());
    for (int p = 0; p < g->nparts; p++) {
        pa__ssb_part *pt = &g->part[p];
        (void)pa_cuda_set_device(pt->device);
        for (int c = 0; c < PA__SSB_NCOLS; c++)
            free_buf(&pt->col[c]);
        for (int d = 0; d < PA__SSB_NDIMS; d++)
            free_buf(&pt->ht[d]);
        free_buf(&pt->groups);
        for (int s = 0; s < PA__SSB_MAX_STREAMS; s++) {
            free_buf(&pt->buf[s]);
            if (g->as) {
                g->as->stream_free(pt->streams[s]);
                g->as->event_free(pt->done[s]);
            }
        }
        if (g->as)
            g->as->event_free(pt->built);
    }
    if (g->as) {
        (void)pa_cuda_set_device(g->home);
        g->as->event_free(g->start);
        for (int c = 0; c < PA__SSB_NCOLS; c++)
            if (g->locked[c])
                (void)g->as->host_unlock(g->db->col[c]);
    }
    if (g->nparts)
        (void)pa_cuda_set_device(g->home);
    pa_scope_destroy(g->scope);
    free(g);
    if (err != PA_OK)
        pa__err(err, "%s", msg);
}
