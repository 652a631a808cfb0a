/*
 * parray — the SSB generator's fixed vocabularies and its dimension tables: the 25 nations and 5 regions of
 * TPC-H, the 250 cities (a nation's name cut or padded to 9 characters and a digit), the part hierarchy
 * (MFGR#m, MFGR#mc, MFGR#mcbb), the date table of 1992-01-01 .. 1998-12-31, and the customer, supplier and part
 * rows.  Every dictionary is sorted, so a value's code is its rank; the generator looks codes up once.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ssb_gen.h"

static const char *const nation_names[25] = {
    "ALGERIA", "ARGENTINA", "BRAZIL",  "CANADA",       "EGYPT",   "ETHIOPIA", "FRANCE",         "GERMANY", "INDIA",
    "INDONESIA", "IRAN",    "IRAQ",    "JAPAN",        "JORDAN",  "KENYA",    "MOROCCO",        "MOZAMBIQUE",
    "PERU",    "CHINA",     "ROMANIA", "SAUDI ARABIA", "VIETNAM", "RUSSIA",   "UNITED KINGDOM", "UNITED STATES"};
static const int nation_region[25] = {0, 1, 1, 1, 4, 0, 3, 3, 2, 2, 4, 4, 2, 4, 0, 0, 0, 1, 2, 3, 4, 2, 3, 3, 1};
static const char *const region_names[5] = {"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"};
static const char *const segment_names[5] = {"AUTOMOBILE", "BUILDING", "FURNITURE", "HOUSEHOLD", "MACHINERY"};
static const char *const priority_names[5] = {"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"};
static const char *const shipmode_names[7] = {"AIR", "FOB", "MAIL", "RAIL", "REG AIR", "SHIP", "TRUCK"};
static const char *const day_names[7] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                         "Thursday", "Friday", "Saturday"};
static const char *const month_names[12] = {"January", "February", "March",     "April",   "May",      "June",
                                            "July",    "August",   "September", "October", "November", "December"};
static const char *const season_names[5] = {"Christmas", "Fall", "Spring", "Summer", "Winter"};

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorts n strings into column c's dictionary and writes each input's code to codes[i]. */
static int make_dict(pa_ssb_db *db, int c, const char *const *strs, int n, int32_t *codes)
{
    const char **sorted = malloc((size_t)n * sizeof *sorted);
    if (!sorted)
        return pa__err(PA_ERR_NOMEM, "ssb: dictionary of %s", pa__ssb_cols[c].name);
    memcpy(sorted, strs, (size_t)n * sizeof *sorted);
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_str);
    int rc = pa__ssb_dict_set(&db->dict[c], sorted, n);
    free(sorted);
    for (int i = 0; rc == PA_OK && i < n; i++)
        codes[i] = pa_ssb_dict_code(db, pa__ssb_cols[c].name, strs[i]);
    return rc;
}

int pa__ssb_gen_vocab(pa_ssb_db *db, pa__ssb_vocab *v)
{
    char cities[250][16], mfgr[5][8], cat[25][8], brand[1000][12], ym[84][8];
    const char *cptr[250], *mptr[5], *kptr[25], *bptr[1000], *yptr[84];
    int32_t scratch[25];
    int rc = PA_OK;
    for (int n = 0; n < 25; n++)
        for (int d = 0; d < 10; d++) {
            snprintf(cities[n * 10 + d], sizeof cities[0], "%-9.9s%d", nation_names[n], d);
            cptr[n * 10 + d] = cities[n * 10 + d];
        }
    for (int m = 0; m < 5; m++) {
        snprintf(mfgr[m], sizeof mfgr[0], "MFGR#%d", m + 1);
        mptr[m] = mfgr[m];
        for (int c = 0; c < 5; c++) {
            snprintf(cat[m * 5 + c], sizeof cat[0], "MFGR#%d%d", m + 1, c + 1);
            kptr[m * 5 + c] = cat[m * 5 + c];
            for (int b = 0; b < 40; b++) {
                int i = (m * 5 + c) * 40 + b;
                snprintf(brand[i], sizeof brand[0], "MFGR#%d%d%02d", m + 1, c + 1, b + 1);
                bptr[i] = brand[i];
            }
        }
    }
    for (int y = 0; y < 7; y++)
        for (int m = 0; m < 12; m++) {
            snprintf(ym[y * 12 + m], sizeof ym[0], "%.3s%d", month_names[m], 1992 + y);
            yptr[y * 12 + m] = ym[y * 12 + m];
        }
    /* Customer and supplier share the vocabularies; each column keeps its own copy of the dictionary. */
    const int city_cols[2] = {PA__SSB_C_C_CITY, PA__SSB_C_S_CITY};
    const int nation_cols[2] = {PA__SSB_C_C_NATION, PA__SSB_C_S_NATION};
    const int region_cols[2] = {PA__SSB_C_C_REGION, PA__SSB_C_S_REGION};
    for (int k = 0; k < 2 && rc == PA_OK; k++) {
        rc = make_dict(db, city_cols[k], cptr, 250, v->city);
        if (rc == PA_OK)
            rc = make_dict(db, nation_cols[k], nation_names, 25, v->nation);
        if (rc == PA_OK)
            rc = make_dict(db, region_cols[k], region_names, 5, v->region);
    }
    if (rc == PA_OK)
        rc = make_dict(db, PA__SSB_C_C_MKTSEGMENT, segment_names, 5, v->segment);
    if (rc == PA_OK)
        rc = make_dict(db, PA__SSB_C_P_MFGR, mptr, 5, v->mfgr);
    if (rc == PA_OK)
        rc = make_dict(db, PA__SSB_C_P_CATEGORY, kptr, 25, v->category);
    if (rc == PA_OK)
        rc = make_dict(db, PA__SSB_C_P_BRAND1, bptr, 1000, v->brand);
    if (rc == PA_OK)
        rc = make_dict(db, PA__SSB_C_LO_ORDERPRIORITY, priority_names, 5, v->priority);
    if (rc == PA_OK)
        rc = make_dict(db, PA__SSB_C_LO_SHIPMODE, shipmode_names, 7, v->shipmode);
    if (rc == PA_OK)
        rc = make_dict(db, PA__SSB_C_D_DAYOFWEEK, day_names, 7, v->dayofweek);
    if (rc == PA_OK)
        rc = make_dict(db, PA__SSB_C_D_MONTH, month_names, 12, v->month);
    if (rc == PA_OK)
        rc = make_dict(db, PA__SSB_C_D_YEARMONTH, yptr, 84, v->yearmonth);
    if (rc == PA_OK)
        rc = make_dict(db, PA__SSB_C_D_SELLINGSEASON, season_names, 5, scratch);
    for (int s = 0; rc == PA_OK && s < 5; s++)
        v->season[s] = scratch[s];
    return rc;
}

int pa__ssb_nation_region(int nation)
{
    return nation_region[nation];
}

/* Days since 1970-01-01 of a civil date, and back (proleptic Gregorian). */
int64_t pa__ssb_days(int y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400, doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

void pa__ssb_civil(int64_t z, int *y, int *m, int *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097, doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365, doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = (int)(yoe + era * 400 + (*m <= 2));
}

int32_t pa__ssb_datekey(int64_t days)
{
    int y, m, d;
    pa__ssb_civil(days, &y, &m, &d);
    return y * 10000 + m * 100 + d;
}

void pa__ssb_gen_date(pa_ssb_db *db, const pa__ssb_vocab *v)
{
    int64_t first = pa__ssb_days(1992, 1, 1);
    int32_t **c = db->col;
    for (int64_t i = 0; i < PA__SSB_DATES; i++) {
        int y, m, d, ny, nm, nd;
        int64_t z = first + i;
        pa__ssb_civil(z, &y, &m, &d);
        pa__ssb_civil(z + 1, &ny, &nm, &nd);
        int dow = (int)((z + 4) % 7);  /* 1970-01-01 was a Thursday; 0 is Sunday */
        int doy = (int)(z - pa__ssb_days(y, 1, 1)) + 1;
        c[PA__SSB_C_D_DATEKEY][i] = y * 10000 + m * 100 + d;
        c[PA__SSB_C_D_DAYOFWEEK][i] = v->dayofweek[dow];
        c[PA__SSB_C_D_MONTH][i] = v->month[m - 1];
        c[PA__SSB_C_D_YEAR][i] = y;
        c[PA__SSB_C_D_YEARMONTHNUM][i] = y * 100 + m;
        c[PA__SSB_C_D_YEARMONTH][i] = v->yearmonth[(y - 1992) * 12 + m - 1];
        c[PA__SSB_C_D_DAYNUMINWEEK][i] = dow + 1;
        c[PA__SSB_C_D_DAYNUMINMONTH][i] = d;
        c[PA__SSB_C_D_DAYNUMINYEAR][i] = doy;
        c[PA__SSB_C_D_MONTHNUMINYEAR][i] = m;
        c[PA__SSB_C_D_WEEKNUMINYEAR][i] = doy / 7 + 1;   /* week 1: Jan 1-6; week k from day 7(k-1) */
        /* Christmas: December; Winter: January, February; Spring: March-May; Summer: June-August; Fall. */
        int season = m == 12 ? 0 : m <= 2 ? 4 : m <= 5 ? 2 : m <= 8 ? 3 : 1;
        c[PA__SSB_C_D_SELLINGSEASON][i] = v->season[season];
        c[PA__SSB_C_D_LASTDAYINWEEKFL][i] = dow == 6;
        c[PA__SSB_C_D_LASTDAYINMONTHFL][i] = nm != m;
        c[PA__SSB_C_D_HOLIDAYFL][i] = (m == 1 && d == 1) || (m == 7 && d == 4) || (m == 12 && d == 25);
        c[PA__SSB_C_D_WEEKDAYFL][i] = dow >= 1 && dow <= 5;
    }
}

void pa__ssb_gen_customer(pa_ssb_db *db, const pa__ssb_vocab *v, int64_t lo, int64_t hi)
{
    int32_t **c = db->col;
    for (int64_t i = lo; i < hi; i++) {
        int n = (int)pa__ssb_uniform(db->seed, PA__SSB_S_CNATION, (uint64_t)i, 25);
        c[PA__SSB_C_C_CUSTKEY][i] = (int32_t)(i + 1);
        c[PA__SSB_C_C_NATION][i] = v->nation[n];
        c[PA__SSB_C_C_REGION][i] = v->region[nation_region[n]];
        c[PA__SSB_C_C_CITY][i] = v->city[n * 10 + (int)pa__ssb_uniform(db->seed, PA__SSB_S_CCITY, (uint64_t)i, 10)];
        c[PA__SSB_C_C_MKTSEGMENT][i] = v->segment[pa__ssb_uniform(db->seed, PA__SSB_S_CSEGMENT, (uint64_t)i, 5)];
    }
}

void pa__ssb_gen_supplier(pa_ssb_db *db, const pa__ssb_vocab *v, int64_t lo, int64_t hi)
{
    int32_t **c = db->col;
    for (int64_t i = lo; i < hi; i++) {
        int n = (int)pa__ssb_uniform(db->seed, PA__SSB_S_SNATION, (uint64_t)i, 25);
        c[PA__SSB_C_S_SUPPKEY][i] = (int32_t)(i + 1);
        c[PA__SSB_C_S_NATION][i] = v->nation[n];
        c[PA__SSB_C_S_REGION][i] = v->region[nation_region[n]];
        c[PA__SSB_C_S_CITY][i] = v->city[n * 10 + (int)pa__ssb_uniform(db->seed, PA__SSB_S_SCITY, (uint64_t)i, 10)];
    }
}

void pa__ssb_gen_part(pa_ssb_db *db, const pa__ssb_vocab *v, int64_t lo, int64_t hi)
{
    int32_t **c = db->col;
    for (int64_t i = lo; i < hi; i++) {
        int m = (int)pa__ssb_uniform(db->seed, PA__SSB_S_PMFGR, (uint64_t)i, 5);
        int k = (int)pa__ssb_uniform(db->seed, PA__SSB_S_PCAT, (uint64_t)i, 5);
        int b = (int)pa__ssb_uniform(db->seed, PA__SSB_S_PBRAND, (uint64_t)i, 40);
        c[PA__SSB_C_P_PARTKEY][i] = (int32_t)(i + 1);
        c[PA__SSB_C_P_MFGR][i] = v->mfgr[m];
        c[PA__SSB_C_P_CATEGORY][i] = v->category[m * 5 + k];
        c[PA__SSB_C_P_BRAND1][i] = v->brand[(m * 5 + k) * 40 + b];
        c[PA__SSB_C_P_SIZE][i] = 1 + (int32_t)pa__ssb_uniform(db->seed, PA__SSB_S_PSIZE, (uint64_t)i, 50);
    }
}

int64_t pa__ssb_part_rows(double sf)
{
    if (sf >= 1)
        return 200000 * (int64_t)floor(1 + log2(sf));
    int64_t n = llround(200000 * sf);
    return n > 0 ? n : 1;
}
