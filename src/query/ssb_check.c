/*
 * parray — the selectivity check: each query's fraction of lineorder rows that pass its filters, against the
 * filter factor of the specification's distributions.
 *
 * A query's filter factor is a product of independent fractions, each drawn over a population: a fraction of
 * the parts, the suppliers or the customers (attributes uniform over their vocabularies), of the orders (the
 * date: uniform over the 2,557 days), or of the lines (quantity, discount).  At a small scale factor each
 * fraction is a sample over its population, with relative standard deviation sqrt((1 - f) / (f n)); with the
 * Poisson noise of the matching rows themselves they give the tolerance (4.5 standard deviations).
 */
#include <math.h>

#include "internal.h"
#include "ssb_cpu.h"

enum { POP_ROWS, POP_ORDERS, POP_CUST, POP_SUPP, POP_PART };

typedef struct factor {
    double f;
    int pop;
} factor;

#define DAYS 2557.0
#define Y92_97 (2192 / DAYS)
#define Y97_98 (730 / DAYS)

static const factor filter_factors[PA_SSB_NQUERIES][4] = {
    {{365 / DAYS, POP_ORDERS}, {3 / 11.0, POP_ROWS}, {24 / 50.0, POP_ROWS}},
    {{31 / DAYS, POP_ORDERS}, {3 / 11.0, POP_ROWS}, {10 / 50.0, POP_ROWS}},
    {{7 / DAYS, POP_ORDERS}, {3 / 11.0, POP_ROWS}, {10 / 50.0, POP_ROWS}},
    {{1 / 25.0, POP_PART}, {1 / 5.0, POP_SUPP}},
    {{8 / 1000.0, POP_PART}, {1 / 5.0, POP_SUPP}},
    {{1 / 1000.0, POP_PART}, {1 / 5.0, POP_SUPP}},
    {{1 / 5.0, POP_CUST}, {1 / 5.0, POP_SUPP}, {Y92_97, POP_ORDERS}},
    {{1 / 25.0, POP_CUST}, {1 / 25.0, POP_SUPP}, {Y92_97, POP_ORDERS}},
    {{2 / 250.0, POP_CUST}, {2 / 250.0, POP_SUPP}, {Y92_97, POP_ORDERS}},
    {{2 / 250.0, POP_CUST}, {2 / 250.0, POP_SUPP}, {31 / DAYS, POP_ORDERS}},
    {{1 / 5.0, POP_CUST}, {1 / 5.0, POP_SUPP}, {2 / 5.0, POP_PART}},
    {{1 / 5.0, POP_CUST}, {1 / 5.0, POP_SUPP}, {Y97_98, POP_ORDERS}, {2 / 5.0, POP_PART}},
    {{1 / 5.0, POP_CUST}, {1 / 25.0, POP_SUPP}, {Y97_98, POP_ORDERS}, {1 / 25.0, POP_PART}},
};

int pa_ssb_selectivity(const pa_ssb_db *db, int q, int nthreads, double *measured, double *spec, double *tolerance)
{
    pa__ssb_plan p;
    int64_t matches = 0;
    int rc;
    if (!db || !measured || !spec || !tolerance)
        return pa__err(PA_ERR_INVAL, "pa_ssb_selectivity: NULL argument");
    if (nthreads < 0)
        return pa__err(PA_ERR_RANGE, "pa_ssb_selectivity: %d threads (0: every core, or a positive count)", nthreads);
    if ((rc = pa__ssb_plan_make(db, q, &p)) != PA_OK || (rc = pa__ssb_count_matches(db, &p, nthreads, &matches)))
        return rc;
    double rows = (double)db->rows[PA_SSB_LINEORDER];
    double pops[5] = {rows, rows / 4, (double)db->rows[PA_SSB_CUSTOMER], (double)db->rows[PA_SSB_SUPPLIER],
                      (double)db->rows[PA_SSB_PART]};
    double ff = 1, var = 0;
    for (int i = 0; i < 4 && filter_factors[q][i].f > 0; i++) {
        double f = filter_factors[q][i].f, n = pops[filter_factors[q][i].pop];
        if (q == 2 && i == 2 && db->variant == PA_SSB_VARIANT_ONEIL)
            f = 5 / 50.0;   /* lo_quantity between 36 and 40 */
        ff *= f;
        var += (1 - f) / (f * (n > 1 ? n : 1));
    }
    var += 1 / (ff * rows > 1 ? ff * rows : 1);
    *measured = rows > 0 ? (double)matches / rows : 0;
    *spec = ff;
    *tolerance = 4.5 * sqrt(var);
    return PA_OK;
}
