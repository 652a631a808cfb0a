/*
 * parray — the 13 SSB queries: their SQL, and their plans resolved against a database.
 *
 * A plan says, for each dimension a query joins, the filters on it (constants looked up in the dictionaries:
 * a string missing from a dictionary matches nothing), the attribute it contributes to the GROUP BY and that
 * attribute's range of values; and for q1.x the filters on lineorder itself.  Both the CPU and the GPU run
 * from the same plan; the group columns make a dense slot number (mixed radix over the attributes' ranges).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "ssb_internal.h"

static const char *const names[PA_SSB_NQUERIES] = {"q1.1", "q1.2", "q1.3", "q2.1", "q2.2", "q2.3", "q3.1",
                                                   "q3.2", "q3.3", "q3.4", "q4.1", "q4.2", "q4.3"};

#define Q1 "select sum(lo_extendedprice * lo_discount) as revenue from lineorder, date where lo_orderdate = d_datekey "
#define Q2 "select sum(lo_revenue), d_year, p_brand1 from lineorder, date, part, supplier where lo_orderdate = " \
           "d_datekey and lo_partkey = p_partkey and lo_suppkey = s_suppkey and "
#define Q2END " group by d_year, p_brand1 order by d_year, p_brand1"
#define Q3(g1, g2) "select " g1 ", " g2 ", d_year, sum(lo_revenue) as revenue from customer, lineorder, supplier, " \
                   "date where lo_custkey = c_custkey and lo_suppkey = s_suppkey and lo_orderdate = d_datekey and "
#define Q3END(g1, g2) " group by " g1 ", " g2 ", d_year order by d_year asc, revenue desc"
#define Q4(sel) "select d_year, " sel ", sum(lo_revenue - lo_supplycost) as profit from date, customer, supplier, " \
                "part, lineorder where lo_custkey = c_custkey and lo_suppkey = s_suppkey and lo_partkey = " \
                "p_partkey and lo_orderdate = d_datekey and "

static const char *const sql[PA_SSB_NQUERIES] = {
    Q1 "and d_year = 1993 and lo_discount between 1 and 3 and lo_quantity < 25",
    Q1 "and d_yearmonthnum = 199401 and lo_discount between 4 and 6 and lo_quantity between 26 and 35",
    Q1 "and d_weeknuminyear = 6 and d_year = 1994 and lo_discount between 5 and 7 and lo_quantity between 26 and 35",
    Q2 "p_category = 'MFGR#12' and s_region = 'AMERICA'" Q2END,
    Q2 "p_brand1 between 'MFGR#2221' and 'MFGR#2228' and s_region = 'ASIA'" Q2END,
    Q2 "p_brand1 = 'MFGR#2239' and s_region = 'EUROPE'" Q2END,
    Q3("c_nation", "s_nation") "c_region = 'ASIA' and s_region = 'ASIA' and d_year >= 1992 and d_year <= 1997"
        Q3END("c_nation", "s_nation"),
    Q3("c_city", "s_city") "c_nation = 'UNITED STATES' and s_nation = 'UNITED STATES' and d_year >= 1992 and "
                           "d_year <= 1997" Q3END("c_city", "s_city"),
    Q3("c_city", "s_city") "(c_city = 'UNITED KI1' or c_city = 'UNITED KI5') and (s_city = 'UNITED KI1' or "
                           "s_city = 'UNITED KI5') and d_year >= 1992 and d_year <= 1997" Q3END("c_city", "s_city"),
    Q3("c_city", "s_city") "(c_city = 'UNITED KI1' or c_city = 'UNITED KI5') and (s_city = 'UNITED KI1' or "
                           "s_city = 'UNITED KI5') and d_yearmonth = 'Dec1997'" Q3END("c_city", "s_city"),
    Q4("c_nation") "c_region = 'AMERICA' and s_region = 'AMERICA' and (p_mfgr = 'MFGR#1' or p_mfgr = 'MFGR#2') "
                   "group by d_year, c_nation order by d_year, c_nation",
    Q4("s_nation, p_category") "c_region = 'AMERICA' and s_region = 'AMERICA' and (d_year = 1997 or d_year = 1998) "
                               "and (p_mfgr = 'MFGR#1' or p_mfgr = 'MFGR#2') group by d_year, s_nation, p_category "
                               "order by d_year, s_nation, p_category",
    Q4("s_city, p_brand1") "c_region = 'AMERICA' and s_nation = 'UNITED STATES' and (d_year = 1997 or d_year = "
                           "1998) and p_category = 'MFGR#14' group by d_year, s_city, p_brand1 order by d_year, "
                           "s_city, p_brand1",
};

/* The two queries whose constants differ between published texts (docs/ssb.md, "Variants"): O'Neil, O'Neil and
 * Chen's revision 3 SQL has q1.3 on lo_quantity between 36 and 40 and q2.3 on 'MFGR#2221'. */
static const char *const sql_oneil[2] = {
    Q1 "and d_weeknuminyear = 6 and d_year = 1994 and lo_discount between 5 and 7 and lo_quantity between 36 and 40",
    Q2 "p_brand1 = 'MFGR#2221' and s_region = 'EUROPE'" Q2END,
};

static const char *const group_cols[PA_SSB_NQUERIES][3] = {
    {0}, {0}, {0},
    {"d_year", "p_brand1"}, {"d_year", "p_brand1"}, {"d_year", "p_brand1"},
    {"c_nation", "s_nation", "d_year"}, {"c_city", "s_city", "d_year"}, {"c_city", "s_city", "d_year"},
    {"c_city", "s_city", "d_year"},
    {"d_year", "c_nation"}, {"d_year", "s_nation", "p_category"}, {"d_year", "s_city", "p_brand1"},
};

const char *pa_ssb_query_name(int q)
{
    return q >= 0 && q < PA_SSB_NQUERIES ? names[q] : NULL;
}

int pa_ssb_query_index(const char *name)
{
    if (!name)
        return -1;
    for (int q = 0; q < PA_SSB_NQUERIES; q++)
        if (strcmp(names[q], name) == 0 || strcmp(names[q] + 1, name) == 0)
            return q;
    return -1;
}

const char *pa_ssb_query_sql(int q)
{
    return q >= 0 && q < PA_SSB_NQUERIES ? sql[q] : NULL;
}

const char *pa_ssb_query_sql_variant(int q, pa_ssb_variant v)
{
    if (v == PA_SSB_VARIANT_ONEIL && (q == 2 || q == 5))
        return sql_oneil[q == 5];
    return v == PA_SSB_VARIANT_COMMON || v == PA_SSB_VARIANT_ONEIL ? pa_ssb_query_sql(q) : NULL;
}

int pa_ssb_set_variant(pa_ssb_db *db, pa_ssb_variant v)
{
    if (!db)
        return pa__err(PA_ERR_INVAL, "pa_ssb_set_variant: NULL database");
    if (v != PA_SSB_VARIANT_COMMON && v != PA_SSB_VARIANT_ONEIL)
        return pa__err(PA_ERR_RANGE, "pa_ssb_set_variant: variant %d (PA_SSB_VARIANT_COMMON 0 or _ONEIL 1)", (int)v);
    db->variant = v;
    return PA_OK;
}

pa_ssb_variant pa_ssb_db_variant(const pa_ssb_db *db)
{
    return db ? db->variant : PA_SSB_VARIANT_COMMON;
}

const char *pa_ssb_result_column(int q, int i)
{
    return q >= 0 && q < PA_SSB_NQUERIES && i >= 0 && i < 3 ? group_cols[q][i] : NULL;
}

/* ---- resolving constants ---------------------------------------------------------------------------------- */

static pa__ssb_pred none(void)
{
    return (pa__ssb_pred){-1, 0, -1, INT32_MIN};
}

static pa__ssb_pred range(int col, int32_t lo, int32_t hi)
{
    return (pa__ssb_pred){col, lo, hi, INT32_MIN};
}

/* col = a (or col = b): codes from the column's dictionary; a missing string gets a code nothing has. */
static pa__ssb_pred str_eq(const pa_ssb_db *db, int col, const char *a, const char *b)
{
    const char *name = pa__ssb_cols[col].name;
    int32_t ca = pa_ssb_dict_code(db, name, a), cb = b ? pa_ssb_dict_code(db, name, b) : -1;
    return (pa__ssb_pred){col, ca < 0 ? 1 : ca, ca < 0 ? 0 : ca, cb < 0 ? INT32_MIN : cb};
}

/* lo <= col <= hi on strings: the codes of the dictionary's first string >= lo and last string <= hi. */
static pa__ssb_pred str_between(const pa_ssb_db *db, int col, const char *lo, const char *hi)
{
    const pa__ssb_dict *d = &db->dict[col];
    int32_t a = 0, b = d->n - 1;
    while (a < d->n && strcmp(d->str[a], lo) < 0)
        a++;
    while (b >= 0 && strcmp(d->str[b], hi) > 0)
        b--;
    return range(col, a, b);
}

static void dim(pa__ssb_plan *p, int which, int valcol, pa__ssb_pred p0, pa__ssb_pred p1, const pa_ssb_db *db)
{
    static const int keys[PA__SSB_NDIMS][2] = {{PA__SSB_C_D_DATEKEY, PA__SSB_C_LO_ORDERDATE},
                                               {PA__SSB_C_C_CUSTKEY, PA__SSB_C_LO_CUSTKEY},
                                               {PA__SSB_C_S_SUPPKEY, PA__SSB_C_LO_SUPPKEY},
                                               {PA__SSB_C_P_PARTKEY, PA__SSB_C_LO_PARTKEY}};
    pa__ssb_dim *d = &p->dim[which];
    d->used = 1;
    d->keycol = keys[which][0];
    d->factcol = keys[which][1];
    d->pred[0] = p0;
    d->pred[1] = p1;
    d->valcol = valcol;
    d->vmin = 0;
    d->vcount = 1;
    if (valcol == PA__SSB_C_D_YEAR) {   /* the years in the data: SSB's 1992-1998 or any others */
        const int32_t *y = db->col[valcol];
        int64_t n = db->rows[PA_SSB_DATE];
        int32_t lo = n ? y[0] : 0, hi = n ? y[0] : 0;
        for (int64_t i = 1; i < n; i++) {
            lo = y[i] < lo ? y[i] : lo;
            hi = y[i] > hi ? y[i] : hi;
        }
        d->vmin = lo;
        d->vcount = (int64_t)hi - lo + 1;
    } else if (valcol >= 0) {
        d->vcount = db->dict[valcol].n > 0 ? db->dict[valcol].n : 1;
    }
}

/* q1.x: the date filter as a range of date keys, when the dates that pass it are consecutive in the table. */
static void date_range(const pa_ssb_db *db, pa__ssb_plan *p)
{
    const int32_t *key = db->col[PA__SSB_C_D_DATEKEY];
    const pa__ssb_dim *d = &p->dim[PA__SSB_DDATE];
    int64_t n = db->rows[PA_SSB_DATE], in = 0;
    int32_t lo = INT32_MAX, hi = INT32_MIN;
    for (int64_t i = 0; i < n; i++)
        if (pa__ssb_pred_ok(&d->pred[0], db->col[d->pred[0].col][i]) &&
            pa__ssb_pred_ok(&d->pred[1], d->pred[1].col < 0 ? 0 : db->col[d->pred[1].col][i])) {
            lo = key[i] < lo ? key[i] : lo;
            hi = key[i] > hi ? key[i] : hi;
            in++;
        }
    int64_t between = 0;
    for (int64_t i = 0; i < n; i++)
        between += key[i] >= lo && key[i] <= hi;
    p->date_ok = between == in;
    p->date_lo = in ? lo : 1;
    p->date_hi = in ? hi : 0;
}

static const int kind_cols[4][6] = {
    {PA__SSB_C_LO_ORDERDATE, PA__SSB_C_LO_QUANTITY, PA__SSB_C_LO_DISCOUNT, PA__SSB_C_LO_EXTENDEDPRICE},
    {PA__SSB_C_LO_SUPPKEY, PA__SSB_C_LO_PARTKEY, PA__SSB_C_LO_ORDERDATE, PA__SSB_C_LO_REVENUE},
    {PA__SSB_C_LO_CUSTKEY, PA__SSB_C_LO_SUPPKEY, PA__SSB_C_LO_ORDERDATE, PA__SSB_C_LO_REVENUE},
    {PA__SSB_C_LO_CUSTKEY, PA__SSB_C_LO_SUPPKEY, PA__SSB_C_LO_PARTKEY, PA__SSB_C_LO_ORDERDATE, PA__SSB_C_LO_REVENUE,
     PA__SSB_C_LO_SUPPLYCOST}};

const int *pa__ssb_fact_cols(int kind, int *n)
{
    *n = kind == 3 ? 6 : 4;
    return kind_cols[kind];
}

int pa__ssb_plan_make(const pa_ssb_db *db, int q, pa__ssb_plan *p)
{
    if (q < 0 || q >= PA_SSB_NQUERIES)
        return pa__err(PA_ERR_RANGE, "ssb: query %d (there are %d, 0 .. %d)", q, PA_SSB_NQUERIES, PA_SSB_NQUERIES - 1);
    int nfc;
    const int *fc = pa__ssb_fact_cols(q < 3 ? 0 : q < 6 ? 1 : q < 10 ? 2 : 3, &nfc);
    for (int i = 0; i < nfc; i++)
        if (!db->col[fc[i]])
            return pa__err(PA_ERR_UNSUPPORTED, "ssb: %s reads %s, which this database does not hold", names[q],
                           pa__ssb_cols[fc[i]].name);
    memset(p, 0, sizeof *p);
    p->q = q;
    p->fpred[0] = p->fpred[1] = none();
    enum { DD = PA__SSB_DDATE, DC = PA__SSB_DCUST, DS = PA__SSB_DSUPP, DP = PA__SSB_DPART };
    const pa__ssb_pred N = none();
    const pa__ssb_pred years92_97 = range(PA__SSB_C_D_YEAR, 1992, 1997), years97_98 = range(PA__SSB_C_D_YEAR, 1997, 1998);
    switch (q) {
    case 0:
        dim(p, DD, -1, range(PA__SSB_C_D_YEAR, 1993, 1993), N, db);
        p->fpred[0] = range(PA__SSB_C_LO_DISCOUNT, 1, 3);
        p->fpred[1] = range(PA__SSB_C_LO_QUANTITY, INT32_MIN, 24);
        break;
    case 1:
        dim(p, DD, -1, range(PA__SSB_C_D_YEARMONTHNUM, 199401, 199401), N, db);
        p->fpred[0] = range(PA__SSB_C_LO_DISCOUNT, 4, 6);
        p->fpred[1] = range(PA__SSB_C_LO_QUANTITY, 26, 35);
        break;
    case 2:
        dim(p, DD, -1, range(PA__SSB_C_D_WEEKNUMINYEAR, 6, 6), range(PA__SSB_C_D_YEAR, 1994, 1994), db);
        p->fpred[0] = range(PA__SSB_C_LO_DISCOUNT, 5, 7);
        p->fpred[1] = db->variant == PA_SSB_VARIANT_ONEIL ? range(PA__SSB_C_LO_QUANTITY, 36, 40)
                                                          : range(PA__SSB_C_LO_QUANTITY, 26, 35);
        break;
    case 3: case 4: case 5: {
        static const char *const region[3] = {"AMERICA", "ASIA", "EUROPE"};
        pa__ssb_pred pp = q == 3 ? str_eq(db, PA__SSB_C_P_CATEGORY, "MFGR#12", NULL)
                          : q == 4 ? str_between(db, PA__SSB_C_P_BRAND1, "MFGR#2221", "MFGR#2228")
                          : str_eq(db, PA__SSB_C_P_BRAND1,
                                   db->variant == PA_SSB_VARIANT_ONEIL ? "MFGR#2221" : "MFGR#2239", NULL);
        dim(p, DD, PA__SSB_C_D_YEAR, N, N, db);
        dim(p, DP, PA__SSB_C_P_BRAND1, pp, N, db);
        dim(p, DS, -1, str_eq(db, PA__SSB_C_S_REGION, region[q - 3], NULL), N, db);
        p->gdim[0] = DD;
        p->gdim[1] = DP;
        p->ngroups = 2;
        break;
    }
    case 6:
        dim(p, DC, PA__SSB_C_C_NATION, str_eq(db, PA__SSB_C_C_REGION, "ASIA", NULL), N, db);
        dim(p, DS, PA__SSB_C_S_NATION, str_eq(db, PA__SSB_C_S_REGION, "ASIA", NULL), N, db);
        dim(p, DD, PA__SSB_C_D_YEAR, years92_97, N, db);
        break;
    case 7:
        dim(p, DC, PA__SSB_C_C_CITY, str_eq(db, PA__SSB_C_C_NATION, "UNITED STATES", NULL), N, db);
        dim(p, DS, PA__SSB_C_S_CITY, str_eq(db, PA__SSB_C_S_NATION, "UNITED STATES", NULL), N, db);
        dim(p, DD, PA__SSB_C_D_YEAR, years92_97, N, db);
        break;
    case 8: case 9:
        dim(p, DC, PA__SSB_C_C_CITY, str_eq(db, PA__SSB_C_C_CITY, "UNITED KI1", "UNITED KI5"), N, db);
        dim(p, DS, PA__SSB_C_S_CITY, str_eq(db, PA__SSB_C_S_CITY, "UNITED KI1", "UNITED KI5"), N, db);
        dim(p, DD, PA__SSB_C_D_YEAR, q == 8 ? years92_97 : str_eq(db, PA__SSB_C_D_YEARMONTH, "Dec1997", NULL), N, db);
        break;
    case 10: case 11: case 12: {
        pa__ssb_pred mfgr = str_eq(db, PA__SSB_C_P_MFGR, "MFGR#1", "MFGR#2");
        dim(p, DD, PA__SSB_C_D_YEAR, q == 10 ? N : years97_98, N, db);
        dim(p, DC, q == 10 ? PA__SSB_C_C_NATION : -1, str_eq(db, PA__SSB_C_C_REGION, "AMERICA", NULL), N, db);
        if (q == 12)
            dim(p, DS, PA__SSB_C_S_CITY, str_eq(db, PA__SSB_C_S_NATION, "UNITED STATES", NULL), N, db);
        else
            dim(p, DS, q == 11 ? PA__SSB_C_S_NATION : -1, str_eq(db, PA__SSB_C_S_REGION, "AMERICA", NULL), N, db);
        dim(p, DP, q == 10 ? -1 : q == 11 ? PA__SSB_C_P_CATEGORY : PA__SSB_C_P_BRAND1,
            q == 12 ? str_eq(db, PA__SSB_C_P_CATEGORY, "MFGR#14", NULL) : mfgr, N, db);
        p->gdim[0] = DD;
        p->gdim[1] = q == 10 ? DC : DS;
        p->gdim[2] = DP;
        p->ngroups = q == 10 ? 2 : 3;
        break;
    }
    }
    if (q >= 6 && q <= 9) {
        p->gdim[0] = DC;
        p->gdim[1] = DS;
        p->gdim[2] = DD;
        p->ngroups = 3;
    }
    p->agg = q < 3 ? PA__SSB_AGG_PRICE_DISC : q < 10 ? PA__SSB_AGG_REVENUE : PA__SSB_AGG_PROFIT;
    p->nslots = 1;
    for (int i = 0; i < p->ngroups; i++)
        if (__builtin_mul_overflow(p->nslots, p->dim[p->gdim[i]].vcount, &p->nslots) || p->nslots > PA__SSB_MAX_SLOTS)
            return pa__err(PA_ERR_RANGE, "ssb: %s: its group columns take more than %lld combinations of values "
                           "(the data's ranges are too wide)", names[q], (long long)PA__SSB_MAX_SLOTS);
    if (q < 3)
        date_range(db, p);
    return PA_OK;
}

int64_t pa_ssb_fact_bytes(const pa_ssb_db *db, int q)
{
    if (!db || q < 0 || q >= PA_SSB_NQUERIES)
        return -1;
    return db->rows[PA_SSB_LINEORDER] * 4 * (q < 10 ? 4 : 6);   /* rows <= PA__SSB_MAX_ROWS: no overflow */
}
