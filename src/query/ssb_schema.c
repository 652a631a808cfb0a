/*
 * parray — the SSB catalog (tables, .tbl fields, kept columns), databases and dictionaries, and the two helpers
 * every SSB pass uses: a pthd thread array over nthreads threads, and a checksum whose value does not depend on
 * how many threads computed it.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "parray/topology.h"
#include "ssb_internal.h"

const pa__ssb_coldef pa__ssb_cols[PA__SSB_NCOLS] = {
#define PA__SSB_DEF(id, name, table, dict) {#name, PA_SSB_##table, dict},
    PA__SSB_COLUMNS(PA__SSB_DEF)
#undef PA__SSB_DEF
};

const char *const pa__ssb_table_names[PA_SSB_NTABLES] = {"lineorder", "customer", "supplier", "part", "date"};

#define F(name, id) {#name, PA__SSB_C_##id}
#define TEXT(name) {#name, -1}
static const pa__ssb_field lineorder_fields[] = {
    F(lo_orderkey, LO_ORDERKEY), F(lo_linenumber, LO_LINENUMBER), F(lo_custkey, LO_CUSTKEY),
    F(lo_partkey, LO_PARTKEY), F(lo_suppkey, LO_SUPPKEY), F(lo_orderdate, LO_ORDERDATE),
    F(lo_orderpriority, LO_ORDERPRIORITY), F(lo_shippriority, LO_SHIPPRIORITY), F(lo_quantity, LO_QUANTITY),
    F(lo_extendedprice, LO_EXTENDEDPRICE), F(lo_ordtotalprice, LO_ORDTOTALPRICE), F(lo_discount, LO_DISCOUNT),
    F(lo_revenue, LO_REVENUE), F(lo_supplycost, LO_SUPPLYCOST), F(lo_tax, LO_TAX),
    F(lo_commitdate, LO_COMMITDATE), F(lo_shipmode, LO_SHIPMODE),
};
static const pa__ssb_field customer_fields[] = {
    F(c_custkey, C_CUSTKEY), TEXT(c_name), TEXT(c_address), F(c_city, C_CITY), F(c_nation, C_NATION),
    F(c_region, C_REGION), TEXT(c_phone), F(c_mktsegment, C_MKTSEGMENT),
};
static const pa__ssb_field supplier_fields[] = {
    F(s_suppkey, S_SUPPKEY), TEXT(s_name), TEXT(s_address), F(s_city, S_CITY), F(s_nation, S_NATION),
    F(s_region, S_REGION), TEXT(s_phone),
};
static const pa__ssb_field part_fields[] = {
    F(p_partkey, P_PARTKEY), TEXT(p_name), F(p_mfgr, P_MFGR), F(p_category, P_CATEGORY), F(p_brand1, P_BRAND1),
    TEXT(p_color), TEXT(p_type), F(p_size, P_SIZE), TEXT(p_container),
};
static const pa__ssb_field date_fields[] = {
    F(d_datekey, D_DATEKEY), TEXT(d_date), F(d_dayofweek, D_DAYOFWEEK), F(d_month, D_MONTH), F(d_year, D_YEAR),
    F(d_yearmonthnum, D_YEARMONTHNUM), F(d_yearmonth, D_YEARMONTH), F(d_daynuminweek, D_DAYNUMINWEEK),
    F(d_daynuminmonth, D_DAYNUMINMONTH), F(d_daynuminyear, D_DAYNUMINYEAR), F(d_monthnuminyear, D_MONTHNUMINYEAR),
    F(d_weeknuminyear, D_WEEKNUMINYEAR), F(d_sellingseason, D_SELLINGSEASON),
    F(d_lastdayinweekfl, D_LASTDAYINWEEKFL), F(d_lastdayinmonthfl, D_LASTDAYINMONTHFL), F(d_holidayfl, D_HOLIDAYFL),
    F(d_weekdayfl, D_WEEKDAYFL),
};
#undef F
#undef TEXT

const pa__ssb_field *pa__ssb_fields(pa_ssb_table t, int *n)
{
#define CASE(tab, arr)                                                                                             \
    case tab:                                                                                                      \
        *n = (int)(sizeof arr / sizeof arr[0]);                                                                    \
        return arr;
    switch (t) {
        CASE(PA_SSB_LINEORDER, lineorder_fields)
        CASE(PA_SSB_CUSTOMER, customer_fields)
        CASE(PA_SSB_SUPPLIER, supplier_fields)
        CASE(PA_SSB_PART, part_fields)
        CASE(PA_SSB_DATE, date_fields)
    default:
        *n = 0;
        return NULL;
    }
#undef CASE
}

int pa__ssb_col_index(const char *name)
{
    for (int c = 0; name && c < PA__SSB_NCOLS; c++)
        if (strcmp(pa__ssb_cols[c].name, name) == 0)
            return c;
    return -1;
}

pa_ssb_db *pa__ssb_db_new(void)
{
    return calloc(1, sizeof(pa_ssb_db));
}

void pa__ssb_share(int64_t n, int t, int nt, int64_t *lo, int64_t *hi)
{
    int64_t tiles = (n + PA__SSB_TILE_ROWS - 1) / PA__SSB_TILE_ROWS;
    *lo = tiles * t / nt * PA__SSB_TILE_ROWS;
    *hi = tiles * (t + 1) / nt * PA__SSB_TILE_ROWS;
    *hi = *hi < n ? *hi : n;
    *lo = *lo < n ? *lo : n;
}

/* Each thread writes its share of the fact table's new columns first, so that the kernel places those pages on
 * its node (first touch): the tile engine's threads read the same shares (pa__ssb_share), with the same default
 * count.  Done where the machine has several NUMA nodes (pa_topology_get; without hwloc, not at all). */
static void touch_task(void *arg, int t, int nt)
{
    pa_ssb_db *db = arg;
    int64_t lo, hi;
    pa__ssb_share(db->rows[PA_SSB_LINEORDER], t, nt, &lo, &hi);
    for (int c = 0; c < PA__SSB_NCOLS; c++)
        if (pa__ssb_cols[c].table == PA_SSB_LINEORDER && hi > lo && db->col[c])
            memset(db->col[c] + lo, 0, (size_t)(hi - lo) * sizeof(int32_t));
}

int pa__ssb_alloc_table(pa_ssb_db *db, pa_ssb_table t, int64_t rows)
{
    db->rows[t] = rows;
    for (int c = 0; c < PA__SSB_NCOLS; c++) {
        if (pa__ssb_cols[c].table != t || db->skip[c])
            continue;
        free(db->col[c]);
        /* One spare element, so that an empty table still has a non-NULL column. */
        if (!(db->col[c] = malloc(((size_t)rows + 1) * sizeof(int32_t))))
            return pa__err(PA_ERR_NOMEM, "ssb: %s: %lld rows of %s", pa__ssb_cols[c].name, (long long)rows,
                           pa__ssb_table_names[t]);
    }
    pa_topology_info topo;
    if (t == PA_SSB_LINEORDER && rows > 0 && pa_topology_get(&topo) == PA_OK && topo.numa_nodes > 1)
        return pa__ssb_parallel(0, touch_task, db);
    return PA_OK;
}

int pa__ssb_dict_set(pa__ssb_dict *d, const char *const *strs, int n)
{
    size_t bytes = 0;
    pa__ssb_dict_free(d);
    for (int i = 0; i < n; i++)
        bytes += strlen(strs[i]) + 1;
    d->str = malloc(((size_t)n + 1) * sizeof *d->str);
    d->buf = malloc(bytes + 1);
    if (!d->str || !d->buf) {
        pa__ssb_dict_free(d);
        return pa__err(PA_ERR_NOMEM, "ssb: a dictionary of %d strings", n);
    }
    char *p = d->buf;
    for (int i = 0; i < n; i++) {
        size_t l = strlen(strs[i]) + 1;
        memcpy(p, strs[i], l);
        d->str[i] = p;
        p += l;
    }
    d->n = n;
    return PA_OK;
}

void pa__ssb_dict_free(pa__ssb_dict *d)
{
    free(d->str);
    free(d->buf);
    d->str = NULL;
    d->buf = NULL;
    d->n = 0;
}

void pa_ssb_destroy(pa_ssb_db *db)
{
    if (!db)
        return;
    for (int c = 0; c < PA__SSB_NCOLS && !db->view; c++) {
        free(db->col[c]);
        pa__ssb_dict_free(&db->dict[c]);
    }
    free(db);
}

double pa_ssb_scale(const pa_ssb_db *db)
{
    return db ? db->sf : 0;
}

int64_t pa_ssb_rows(const pa_ssb_db *db, pa_ssb_table t)
{
    return db && (int)t >= 0 && t < PA_SSB_NTABLES ? db->rows[t] : -1;
}

const int32_t *pa_ssb_column(const pa_ssb_db *db, const char *name, int64_t *rows)
{
    int c = pa__ssb_col_index(name);
    if (!db || c < 0) {
        pa__err(PA_ERR_NAME, "ssb: no column '%s' (free-text columns are not kept)", name ? name : "(null)");
        return NULL;
    }
    if (!db->col[c]) {
        pa__err(PA_ERR_NAME, "ssb: column %s is not held: this database has only the columns the queries read "
                "(PA_SSB_QUERY_COLUMNS)", name);
        return NULL;
    }
    if (rows)
        *rows = db->rows[pa__ssb_cols[c].table];
    return db->col[c];
}

int pa_ssb_column_held(const pa_ssb_db *db, const char *name)
{
    int c = pa__ssb_col_index(name);
    return !db || c < 0 ? -1 : db->col[c] != NULL;
}

int64_t pa_ssb_bytes(const pa_ssb_db *db)
{
    int64_t b = 0;
    for (int c = 0; db && c < PA__SSB_NCOLS; c++)
        if (db->col[c])
            b += db->rows[pa__ssb_cols[c].table] * 4;
    return b;
}

int pa__ssb_query_col(int c)
{
    if (pa__ssb_cols[c].table != PA_SSB_LINEORDER)
        return 1;
    for (int k = 0; k < 4; k++) {
        int n;
        const int *fc = pa__ssb_fact_cols(k, &n);
        for (int i = 0; i < n; i++)
            if (fc[i] == c)
                return 1;
    }
    return 0;
}

void pa__ssb_skip_unqueried(pa_ssb_db *db)
{
    for (int c = 0; c < PA__SSB_NCOLS; c++)
        db->skip[c] = !pa__ssb_query_col(c);
}

int pa__ssb_require_all(const pa_ssb_db *db, const char *what)
{
    for (int c = 0; c < PA__SSB_NCOLS; c++)
        if (!db->col[c])
            return pa__err(PA_ERR_UNSUPPORTED, "%s: the database does not hold %s (it was made with only the columns "
                           "the queries read, PA_SSB_QUERY_COLUMNS)", what, pa__ssb_cols[c].name);
    return PA_OK;
}

const char *pa_ssb_dict_string(const pa_ssb_db *db, const char *column, int32_t code)
{
    int c = pa__ssb_col_index(column);
    if (!db || c < 0 || !pa__ssb_cols[c].dict) {
        pa__err(PA_ERR_NAME, "ssb: '%s' is not a dictionary-encoded column", column ? column : "(null)");
        return NULL;
    }
    if (code < 0 || code >= db->dict[c].n) {
        pa__err(PA_ERR_RANGE, "ssb: code %d outside %s's dictionary of %d strings", code, column, db->dict[c].n);
        return NULL;
    }
    return db->dict[c].str[code];
}

int32_t pa_ssb_dict_code(const pa_ssb_db *db, const char *column, const char *s)
{
    int c = pa__ssb_col_index(column);
    if (!db || !s || c < 0 || !pa__ssb_cols[c].dict)
        return -1;
    int lo = 0, hi = db->dict[c].n - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2, r = strcmp(db->dict[c].str[mid], s);
        if (r == 0)
            return mid;
        if (r < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

/* ---- threads ----------------------------------------------------------------------------------------------- */

/* ---- progress ---------------------------------------------------------------------------------------------- */

static pa_ssb_progress_fn progress_fn;
static void *progress_arg;

void pa_ssb_set_progress(pa_ssb_progress_fn fn, void *arg)
{
    progress_fn = fn;
    progress_arg = arg;
}

void pa__ssb_progress(const char *what, double done, double total)
{
    pa_ssb_progress_fn fn = progress_fn;
    if (fn)
        fn(progress_arg, what, done, total);
}

int pa__ssb_threads(int nthreads)
{
    if (nthreads <= 0)   /* the process's share of the CPUs (its affinity mask, $PA_NUM_THREADS): thread.h */
        nthreads = pa_threads_get_num();
    return nthreads > PA_MAX_THREADS ? PA_MAX_THREADS : nthreads;
}

typedef struct task_arg {
    pa__ssb_task fn;
    void *arg;
    int n;
} task_arg;

static int task_body(pa_ctx *ctx, void *p)
{
    task_arg *a = p;
    a->fn(a->arg, (int)pa_tid(ctx), a->n);
    return PA_OK;
}

int pa__ssb_parallel(int nthreads, pa__ssb_task fn, void *arg)
{
    task_arg a = {fn, arg, pa__ssb_threads(nthreads)};
    if (a.n == 1) {
        fn(arg, 0, 1);
        return PA_OK;
    }
    pa_scope *scope = NULL;
    char decl[32];
    int rc = pa_scope_create(NULL, &scope);
    if (rc == PA_OK) {
        snprintf(decl, sizeof decl, "pthd [%d]", a.n);
        const pa_type *t = pa_type_parse(scope, decl);
        rc = t ? pa_for(t, task_body, &a, sizeof a) : PA_ERR_NOMEM;
    }
    pa_scope_destroy(scope);
    return rc;
}

/* ---- checksum ---------------------------------------------------------------------------------------------- */

#define CK_BLOCK 65536

static uint64_t mix(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ULL;
    x ^= x >> 27;
    x *= 0x81dadef4bc2dd44dULL;
    x ^= x >> 33;
    return x;
}

typedef struct ck_arg {
    const int32_t *v;
    int64_t n, nblocks;
    uint64_t part[PA_MAX_THREADS];
} ck_arg;

/* Blocks of CK_BLOCK values are hashed on their own and summed, so the split among threads does not matter. */
static void ck_task(void *p, int t, int nt)
{
    ck_arg *a = p;
    uint64_t sum = 0;
    for (int64_t b = a->nblocks * t / nt; b < a->nblocks * (t + 1) / nt; b++) {
        int64_t lo = b * CK_BLOCK, hi = lo + CK_BLOCK < a->n ? lo + CK_BLOCK : a->n;
        uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)b;
        for (int64_t i = lo; i < hi; i++)
            h = (h ^ (uint32_t)a->v[i]) * 0x100000001b3ULL;
        sum += mix(h + (uint64_t)b);
    }
    a->part[t] = sum;
}

uint64_t pa__ssb_checksum(const int32_t *v, int64_t n, int nthreads)
{
    ck_arg *a = calloc(1, sizeof *a);
    uint64_t sum = mix((uint64_t)n);
    int nt = pa__ssb_threads(nthreads);
    if (!a)
        return 0;
    a->v = v;
    a->n = n;
    a->nblocks = (n + CK_BLOCK - 1) / CK_BLOCK;
    if (nt > a->nblocks)
        nt = a->nblocks > 0 ? (int)a->nblocks : 1;
    if (pa__ssb_parallel(nt, ck_task, a) == PA_OK)
        for (int t = 0; t < nt; t++)
            sum += a->part[t];
    else
        sum = 0;
    free(a);
    return sum;
}
