/*
 * parray — the SSB generator (pa_ssb_generate).
 *
 * Orders are cut into chunks of CHUNK orders.  A first parallel pass counts each chunk's lines (1 to 7 per
 * order, a hash of the order number), a prefix sum over the chunks gives every chunk's first row, and a second
 * parallel pass writes the rows of lineorder and of the dimension tables.  Chunks are fixed by the scale
 * factor, not by the thread count, and every value is a hash of (seed, attribute, row): the same seed gives
 * the same bytes on 1 thread or 16.
 *
 * Distributions (docs/ssb.md): customer, supplier and part attributes uniform over their vocabularies; an
 * order's customer uniform over customers, its date uniform over the 2,557 days of the date table (so each
 * year holds 1/7 of the rows, as the specification's filter factors assume; dbgen stops 151 days before the
 * end); a line's part and supplier uniform; lo_quantity 1..50, lo_discount 0..10, lo_tax 0..8 uniform;
 * lo_extendedprice = quantity x the part's retail price (TPC-H's formula, in cents); lo_revenue =
 * extendedprice x (100 - discount) / 100; lo_supplycost = 6 x retail price / 10; lo_commitdate 30..90 days
 * after the order; lo_ordtotalprice the order's sum of extendedprice x (100 - discount) x (100 + tax) / 10^4.
 */
#include <math.h>
#include <stdlib.h>

#include "internal.h"
#include "ssb_gen.h"

#define CHUNK 16384

typedef struct gen {
    pa_ssb_db *db;
    pa__ssb_vocab v;
    int64_t orders, nchunks;
    int64_t *first;             /* nchunks + 1: each chunk's first lineorder row */
    int32_t datekeys[PA__SSB_DATES];
    int64_t day0;
} gen;

static int lines_of(uint64_t seed, int64_t o)
{
    return 1 + (int)pa__ssb_uniform(seed, PA__SSB_S_LINES, (uint64_t)o, 7);
}

static void count_task(void *p, int t, int nt)
{
    gen *g = p;
    for (int64_t c = g->nchunks * t / nt; c < g->nchunks * (t + 1) / nt; c++) {
        int64_t lo = c * CHUNK, hi = lo + CHUNK < g->orders ? lo + CHUNK : g->orders, n = 0;
        for (int64_t o = lo; o < hi; o++)
            n += lines_of(g->db->seed, o);
        g->first[c + 1] = n;
    }
}

static int32_t retail_price(int32_t partkey)
{
    return 90000 + (partkey / 10) % 20001 + 100 * (partkey % 1000);
}

static void order_rows(gen *g, int64_t o, int64_t row)
{
    pa_ssb_db *db = g->db;
    int32_t **c = db->col;
    uint64_t s = db->seed;
    int n = lines_of(s, o);
    int32_t cust = 1 + (int32_t)pa__ssb_uniform(s, PA__SSB_S_OCUST, (uint64_t)o, (uint64_t)db->rows[PA_SSB_CUSTOMER]);
    int64_t day = (int64_t)pa__ssb_uniform(s, PA__SSB_S_ODATE, (uint64_t)o, PA__SSB_DATES);
    int32_t prio = g->v.priority[pa__ssb_uniform(s, PA__SSB_S_OPRIO, (uint64_t)o, 5)];
    int64_t total = 0;
    for (int l = 0; l < n; l++) {
        int64_t r = row + l;
        uint64_t li = (uint64_t)o * 8 + (uint64_t)l;
        int32_t part = 1 + (int32_t)pa__ssb_uniform(s, PA__SSB_S_LPART, li, (uint64_t)db->rows[PA_SSB_PART]);
        int32_t qty = 1 + (int32_t)pa__ssb_uniform(s, PA__SSB_S_LQTY, li, 50);
        int32_t disc = (int32_t)pa__ssb_uniform(s, PA__SSB_S_LDISC, li, 11);
        int32_t tax = (int32_t)pa__ssb_uniform(s, PA__SSB_S_LTAX, li, 9);
        int32_t price = retail_price(part), ext = qty * price;
#define SET(col, v)                                                                                            \
    do {                                                                                                       \
        if (c[PA__SSB_C_##col])                                                                                \
            c[PA__SSB_C_##col][r] = (v);                                                                       \
    } while (0)
        SET(LO_ORDERKEY, (int32_t)(o + 1));
        SET(LO_LINENUMBER, l + 1);
        SET(LO_CUSTKEY, cust);
        SET(LO_PARTKEY, part);
        SET(LO_SUPPKEY, 1 + (int32_t)pa__ssb_uniform(s, PA__SSB_S_LSUPP, li, (uint64_t)db->rows[PA_SSB_SUPPLIER]));
        SET(LO_ORDERDATE, g->datekeys[day]);
        SET(LO_ORDERPRIORITY, prio);
        SET(LO_SHIPPRIORITY, 0);
        SET(LO_QUANTITY, qty);
        SET(LO_EXTENDEDPRICE, ext);
        SET(LO_DISCOUNT, disc);
        SET(LO_REVENUE, (int32_t)((int64_t)ext * (100 - disc) / 100));
        SET(LO_SUPPLYCOST, 6 * price / 10);
        SET(LO_TAX, tax);
        SET(LO_COMMITDATE,
            pa__ssb_datekey(g->day0 + day + 30 + (int64_t)pa__ssb_uniform(s, PA__SSB_S_LCOMMIT, li, 61)));
        SET(LO_SHIPMODE, g->v.shipmode[pa__ssb_uniform(s, PA__SSB_S_LMODE, li, 7)]);
#undef SET
        total += (int64_t)ext * (100 - disc) * (100 + tax) / 10000;
    }
    for (int l = 0; l < n && c[PA__SSB_C_LO_ORDTOTALPRICE]; l++)
        c[PA__SSB_C_LO_ORDTOTALPRICE][row + l] = (int32_t)total;
}

static void fill_task(void *p, int t, int nt)
{
    gen *g = p;
    pa_ssb_db *db = g->db;
    int64_t nc = db->rows[PA_SSB_CUSTOMER], ns = db->rows[PA_SSB_SUPPLIER], np = db->rows[PA_SSB_PART];
    pa__ssb_gen_customer(db, &g->v, nc * t / nt, nc * (t + 1) / nt);
    pa__ssb_gen_supplier(db, &g->v, ns * t / nt, ns * (t + 1) / nt);
    pa__ssb_gen_part(db, &g->v, np * t / nt, np * (t + 1) / nt);
    int64_t c0 = g->nchunks * t / nt, c1 = g->nchunks * (t + 1) / nt;
    for (int64_t c = c0; c < c1; c++) {
        int64_t row = g->first[c], hi = (c + 1) * CHUNK < g->orders ? (c + 1) * CHUNK : g->orders;
        for (int64_t o = c * CHUNK; o < hi; o++) {
            order_rows(g, o, row);
            row += lines_of(db->seed, o);
        }
        if (t == 0 && (c - c0) % 64 == 63)   /* thread 0's share done stands for everyone's */
            pa__ssb_progress("lineorder", (double)(c - c0 + 1) / (double)(c1 - c0) * (double)db->rows[PA_SSB_LINEORDER],
                             (double)db->rows[PA_SSB_LINEORDER]);
    }
}

static int64_t rows_of(double n)
{
    int64_t r = llround(n);
    return r > 0 ? r : 1;
}

int pa_ssb_generate(double sf, uint64_t seed, int nthreads, pa_ssb_db **out)
{
    return pa_ssb_generate_with(sf, seed, nthreads, 0, out);
}

int pa_ssb_generate_with(double sf, uint64_t seed, int nthreads, unsigned flags, pa_ssb_db **out)
{
    gen *g = NULL;
    pa_ssb_db *db = NULL;
    int rc = PA_OK;
    if (!out)
        return pa__err(PA_ERR_INVAL, "pa_ssb_generate: out is NULL");
    if (!(sf > 0 && sf <= 1000))
        return pa__err(PA_ERR_RANGE, "pa_ssb_generate: scale factor %g (wanted > 0 and at most 1000)", sf);
    if (nthreads < 0)
        return pa__err(PA_ERR_RANGE, "pa_ssb_generate: %d threads (0: every core, or a positive count)", nthreads);
    if (flags & ~PA_SSB_QUERY_COLUMNS)
        return pa__err(PA_ERR_RANGE, "pa_ssb_generate: flags %#x (PA_SSB_QUERY_COLUMNS is the only one)", flags);
    if (!(g = calloc(1, sizeof *g)) || !(db = pa__ssb_db_new())) {
        rc = pa__err(PA_ERR_NOMEM, "pa_ssb_generate: out of memory");
        goto fail;
    }
    db->sf = sf;
    db->seed = seed;
    if (flags & PA_SSB_QUERY_COLUMNS)
        pa__ssb_skip_unqueried(db);
    g->db = db;
    g->orders = rows_of(1500000 * sf);
    g->nchunks = (g->orders + CHUNK - 1) / CHUNK;
    g->day0 = pa__ssb_days(1992, 1, 1);
    if (!(g->first = calloc((size_t)g->nchunks + 1, sizeof *g->first))) {
        rc = pa__err(PA_ERR_NOMEM, "pa_ssb_generate: %lld chunks", (long long)g->nchunks);
        goto fail;
    }
    if ((rc = pa__ssb_gen_vocab(db, &g->v)) != PA_OK)
        goto fail;
    if ((rc = pa__ssb_alloc_table(db, PA_SSB_DATE, PA__SSB_DATES)) != PA_OK ||
        (rc = pa__ssb_alloc_table(db, PA_SSB_CUSTOMER, rows_of(30000 * sf))) != PA_OK ||
        (rc = pa__ssb_alloc_table(db, PA_SSB_SUPPLIER, rows_of(2000 * sf))) != PA_OK ||
        (rc = pa__ssb_alloc_table(db, PA_SSB_PART, pa__ssb_part_rows(sf))) != PA_OK)
        goto fail;
    pa__ssb_gen_date(db, &g->v);
    for (int i = 0; i < PA__SSB_DATES; i++)
        g->datekeys[i] = db->col[PA__SSB_C_D_DATEKEY][i];
    if ((rc = pa__ssb_parallel(nthreads, count_task, g)) != PA_OK)
        goto fail;
    for (int64_t c = 0; c < g->nchunks; c++)
        g->first[c + 1] += g->first[c];
    if ((rc = pa__ssb_alloc_table(db, PA_SSB_LINEORDER, g->first[g->nchunks])) != PA_OK)
        goto fail;
    pa__ssb_progress("lineorder", 0, (double)db->rows[PA_SSB_LINEORDER]);
    if ((rc = pa__ssb_parallel(nthreads, fill_task, g)) != PA_OK)
        goto fail;
    pa__ssb_progress("lineorder", (double)db->rows[PA_SSB_LINEORDER], (double)db->rows[PA_SSB_LINEORDER]);
    *out = db;
    db = NULL;
fail:
    if (g)
        free(g->first);
    free(g);
    pa_ssb_destroy(db);
    return rc;
}
