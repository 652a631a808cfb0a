/*
 * parray — SSB internals shared by the generator, the loader, the columnar format and the queries.
 *
 * The catalog (ssb_schema.c) lists every field of the five tables in the order of the standard generator's
 * .tbl files.  A field is an integer column, a dictionary-encoded string column, or free text that is not kept
 * (the loader checks the field is there and skips it).  Kept columns are numbered densely (PA__SSB_C_*), and a
 * database holds one int32 array per kept column.
 */
#ifndef PARRAY_SSB_INTERNAL_H
#define PARRAY_SSB_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "parray/ssb.h"

/* The kept columns, densely numbered. */
#define PA__SSB_COLUMNS(X)                                                                                     \
    X(LO_ORDERKEY, lo_orderkey, LINEORDER, 0)                                                                  \
    X(LO_LINENUMBER, lo_linenumber, LINEORDER, 0)                                                              \
    X(LO_CUSTKEY, lo_custkey, LINEORDER, 0)                                                                    \
    X(LO_PARTKEY, lo_partkey, LINEORDER, 0)                                                                    \
    X(LO_SUPPKEY, lo_suppkey, LINEORDER, 0)                                                                    \
    X(LO_ORDERDATE, lo_orderdate, LINEORDER, 0)                                                                \
    X(LO_ORDERPRIORITY, lo_orderpriority, LINEORDER, 1)                                                        \
    X(LO_SHIPPRIORITY, lo_shippriority, LINEORDER, 0)                                                          \
    X(LO_QUANTITY, lo_quantity, LINEORDER, 0)                                                                  \
    X(LO_EXTENDEDPRICE, lo_extendedprice, LINEORDER, 0)                                                        \
    X(LO_ORDTOTALPRICE, lo_ordtotalprice, LINEORDER, 0)                                                        \
    X(LO_DISCOUNT, lo_discount, LINEORDER, 0)                                                                  \
    X(LO_REVENUE, lo_revenue, LINEORDER, 0)                                                                    \
    X(LO_SUPPLYCOST, lo_supplycost, LINEORDER, 0)                                                              \
    X(LO_TAX, lo_tax, LINEORDER, 0)                                                                            \
    X(LO_COMMITDATE, lo_commitdate, LINEORDER, 0)                                                              \
    X(LO_SHIPMODE, lo_shipmode, LINEORDER, 1)                                                                  \
    X(C_CUSTKEY, c_custkey, CUSTOMER, 0)                                                                       \
    X(C_CITY, c_city, CUSTOMER, 1)                                                                             \
    X(C_NATION, c_nation, CUSTOMER, 1)                                                                         \
    X(C_REGION, c_region, CUSTOMER, 1)                                                                         \
    X(C_MKTSEGMENT, c_mktsegment, CUSTOMER, 1)                                                                 \
    X(S_SUPPKEY, s_suppkey, SUPPLIER, 0)                                                                       \
    X(S_CITY, s_city, SUPPLIER, 1)                                                                             \
    X(S_NATION, s_nation, SUPPLIER, 1)                                                                         \
    X(S_REGION, s_region, SUPPLIER, 1)                                                                         \
    X(P_PARTKEY, p_partkey, PART, 0)                                                                           \
    X(P_MFGR, p_mfgr, PART, 1)                                                                                 \
    X(P_CATEGORY, p_category, PART, 1)                                                                         \
    X(P_BRAND1, p_brand1, PART, 1)                                                                             \
    X(P_SIZE, p_size, PART, 0)                                                                                 \
    X(D_DATEKEY, d_datekey, DATE, 0)                                                                           \
    X(D_DAYOFWEEK, d_dayofweek, DATE, 1)                                                                       \
    X(D_MONTH, d_month, DATE, 1)                                                                               \
    X(D_YEAR, d_year, DATE, 0)                                                                                 \
    X(D_YEARMONTHNUM, d_yearmonthnum, DATE, 0)                                                                 \
    X(D_YEARMONTH, d_yearmonth, DATE, 1)                                                                       \
    X(D_DAYNUMINWEEK, d_daynuminweek, DATE, 0)                                                                 \
    X(D_DAYNUMINMONTH, d_daynuminmonth, DATE, 0)                                                               \
    X(D_DAYNUMINYEAR, d_daynuminyear, DATE, 0)                                                                 \
    X(D_MONTHNUMINYEAR, d_monthnuminyear, DATE, 0)                                                             \
    X(D_WEEKNUMINYEAR, d_weeknuminyear, DATE, 0)                                                               \
    X(D_SELLINGSEASON, d_sellingseason, DATE, 1)                                                               \
    X(D_LASTDAYINWEEKFL, d_lastdayinweekfl, DATE, 0)                                                           \
    X(D_LASTDAYINMONTHFL, d_lastdayinmonthfl, DATE, 0)                                                         \
    X(D_HOLIDAYFL, d_holidayfl, DATE, 0)                                                                       \
    X(D_WEEKDAYFL, d_weekdayfl, DATE, 0)

enum {
#define PA__SSB_ENUM(id, name, table, dict) PA__SSB_C_##id,
    PA__SSB_COLUMNS(PA__SSB_ENUM)
#undef PA__SSB_ENUM
        PA__SSB_NCOLS
};

/** A kept column's description. */
typedef struct pa__ssb_coldef {
    const char *name;
    pa_ssb_table table;
    int dict;                   /* 1: dictionary-encoded string */
} pa__ssb_coldef;

extern const pa__ssb_coldef pa__ssb_cols[PA__SSB_NCOLS];
extern const char *const pa__ssb_table_names[PA_SSB_NTABLES];

/** A .tbl field: the kept column it fills, or -1 for free text that is not kept. */
typedef struct pa__ssb_field {
    const char *name;
    int col;
} pa__ssb_field;

/** The fields of a table's .tbl rows, in order; *n gets their number. */
const pa__ssb_field *pa__ssb_fields(pa_ssb_table t, int *n);

/** A dictionary: n strings in code order (sorted), each NUL-terminated inside buf. */
typedef struct pa__ssb_dict {
    int n;
    char **str;
    char *buf;
} pa__ssb_dict;

struct pa_ssb_db {
    double sf;
    uint64_t seed;
    int64_t rows[PA_SSB_NTABLES];
    int32_t *col[PA__SSB_NCOLS];
    pa__ssb_dict dict[PA__SSB_NCOLS];
    pa_ssb_variant variant;     /* the queries' constants where published texts differ (pa_ssb_set_variant) */
    unsigned char skip[PA__SSB_NCOLS];   /* 1: not held (PA_SSB_QUERY_COLUMNS): the column stays NULL */
    int view;                   /* 1: a slice (pa_ssb_slice): columns and dictionaries are another database's */
};

/** The lineorder columns query kind k (0: q1.x, 1: q2.x, 2: q3.x, 3: q4.x) reads, in its GPU kernel's order; *n
 *  their count. */
const int *pa__ssb_fact_cols(int kind, int *n);

/** 1 when column c is one the 13 queries may read: every dimension column and 9 of lineorder's. */
int pa__ssb_query_col(int c);

/** Marks the columns PA_SSB_QUERY_COLUMNS leaves out as skipped (before the tables are allocated). */
void pa__ssb_skip_unqueried(pa_ssb_db *db);

/** PA_OK when db holds every column; else PA_ERR_UNSUPPORTED naming the first one missing and what needs it. */
int pa__ssb_require_all(const pa_ssb_db *db, const char *what);

/** The most rows a table (and strings a dictionary) may have: its int32 column's bytes fit an int64 with room to
 *  spare (the columnar reader checks manifests against it before any arithmetic). */
#define PA__SSB_MAX_ROWS (INT64_C(1) << 40)

/** The column number of a name, or -1. */
int pa__ssb_col_index(const char *name);

/** An empty database (columns NULL). */
pa_ssb_db *pa__ssb_db_new(void);

/** Allocates every column of table t for rows rows (uninitialised).  \return PA_OK or PA_ERR_NOMEM. */
int pa__ssb_alloc_table(pa_ssb_db *db, pa_ssb_table t, int64_t rows);

/** Makes a dictionary from n strings that must already be sorted and distinct.  \return PA_OK or NOMEM. */
int pa__ssb_dict_set(pa__ssb_dict *d, const char *const *strs, int n);
void pa__ssb_dict_free(pa__ssb_dict *d);

/** Calls fn(arg, t, nthreads) once for each t in [0, nthreads) on a pthd thread array (nthreads 0: cores). */
typedef void (*pa__ssb_task)(void *arg, int t, int nthreads);
int pa__ssb_parallel(int nthreads, pa__ssb_task fn, void *arg);
/** The thread count pa__ssb_parallel uses for nthreads (0: the cores, at most PA_MAX_THREADS). */
int pa__ssb_threads(int nthreads);

/** Rows of lineorder in a tile of the tile engine (ssb_tile_host.h's PA__TH_TILE). */
#define PA__SSB_TILE_ROWS 2048

/** Thread t's share of n fact rows among nt: whole tiles, contiguous.  The tile engine scans these shares, and on a
 *  machine of several NUMA nodes pa__ssb_alloc_table places lineorder's pages by them (first touch). */
void pa__ssb_share(int64_t n, int t, int nt, int64_t *lo, int64_t *hi);

/** pa_ssb_load_tbl with nthreads threads (0: every core; 1: the serial parser).  Results and errors do not
 *  depend on the count. */
int pa__ssb_load_tbl_threads(const char *dir, double sf, int nthreads, pa_ssb_db **out);

/** pa_ssb_write_tbl with nthreads threads (0: every core).  The files do not depend on the count. */
int pa__ssb_write_tbl_threads(const pa_ssb_db *db, const char *dir, int nthreads);

/** Reports progress through the function pa_ssb_set_progress installed (none: nothing).  The calling thread's. */
void pa__ssb_progress(const char *what, double done, double total);

/** A 64-bit checksum of n int32 values (independent of the thread count). */
uint64_t pa__ssb_checksum(const int32_t *v, int64_t n, int nthreads);

/* ---- query plans (ssb_plan.c) ------------------------------------------------------------------------------ */

/** A filter on one column: lo <= v <= hi, or v == alt.  col -1: no filter. */
typedef struct pa__ssb_pred {
    int col;
    int32_t lo, hi, alt;
} pa__ssb_pred;

enum { PA__SSB_DDATE, PA__SSB_DCUST, PA__SSB_DSUPP, PA__SSB_DPART, PA__SSB_NDIMS };
enum { PA__SSB_AGG_PRICE_DISC, PA__SSB_AGG_REVENUE, PA__SSB_AGG_PROFIT };

/** One dimension's part in a query: the join, its filters, and the group attribute it gives. */
typedef struct pa__ssb_dim {
    int used;
    int keycol, factcol;        /* d_datekey, lo_orderdate ... */
    pa__ssb_pred pred[2];
    int valcol;                 /* the group attribute, or -1 (semi-join) */
    int32_t vmin;               /* the attribute's values lie in [vmin, vmin + vcount): for d_year the years the */
    int64_t vcount;             /* date table holds (not the spec's 1992-1998), else the dictionary's codes */
} pa__ssb_dim;

/** A query resolved against a database: constants looked up in the dictionaries. */
typedef struct pa__ssb_plan {
    int q;
    int agg;
    pa__ssb_pred fpred[2];      /* q1.x: lo_discount, lo_quantity */
    int32_t date_lo, date_hi;   /* q1.x: the date filter as a range of lo_orderdate (date_ok: it is one) */
    int date_ok;
    pa__ssb_dim dim[PA__SSB_NDIMS];
    int ngroups;
    int gdim[3];                /* the dimension giving each group column, in output order */
    int64_t nslots;             /* product of the group attributes' vcount (1 for q1.x) */
} pa__ssb_plan;

/** A dimension's key lookup is a dense array over the keys' range when that range is at most
 *  PA__SSB_DENSE_FACTOR * rows + PA__SSB_DENSE_SLACK, else a hash table (CPU and GPU alike). */
#define PA__SSB_DENSE_FACTOR 4
#define PA__SSB_DENSE_SLACK 4096

/** The most group slots a plan may number (the CPU keeps groups in hash tables; the GPU has a dense table of
 *  8-byte sums, and refuses plans above PA__SSB_GPU_MAX_SLOTS). */
#define PA__SSB_MAX_SLOTS (INT64_C(1) << 56)
#define PA__SSB_GPU_MAX_SLOTS (INT64_C(1) << 27)

/** Resolves query q against db.  \return PA_OK or PA_ERR_RANGE (a bad q; group slots past PA__SSB_MAX_SLOTS). */
int pa__ssb_plan_make(const pa_ssb_db *db, int q, pa__ssb_plan *p);

static inline int pa__ssb_pred_ok(const pa__ssb_pred *p, int32_t v)
{
    return p->col < 0 || (v >= p->lo && v <= p->hi) || v == p->alt;
}

/**
 * Turns (slot, sum) pairs into a result sorted in the query's order: slots decoded into group values, pairs with
 * sum 0 dropped (both paths treat an absent group and a zero sum alike); q1.x: one row, the sum of all pairs.
 */
int pa__ssb_result_from_pairs(const pa__ssb_plan *p, const int64_t *slots, const int64_t *sums, int64_t n,
                              pa_ssb_result *out);

#endif
