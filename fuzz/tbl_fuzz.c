/*
 * tbl_fuzz — a libFuzzer target for the SSB .tbl loader (pa_ssb_load_tbl) and the queries on what it loads.
 *
 * The input is up to five sections separated by the byte 0x1e: the texts of lineorder.tbl, customer.tbl,
 * supplier.tbl, part.tbl and date.tbl, in that order.  A table without a section gets the small fixture of
 * tests/query/tbl (built in below), so that one mutated table is loaded beside valid ones.  When the load
 * succeeds, the 13 queries run on one thread, their results are printed and compared with themselves, and the
 * selectivity check runs: every value the loader accepted must be something the engine handles (years outside
 * 1992-1998, keys of any spread, empty dictionaries).  A failed load must leave nothing behind (ASan's leak
 * check).  See fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <parray/parray.h>
#include <parray/ssb.h>

#include "fuzz_files.h"

static const char *const tables[5] = {"lineorder.tbl", "customer.tbl", "supplier.tbl", "part.tbl", "date.tbl"};

/* The fixture's rows (tests/query/tbl), one table per string. */
static const char *const fixture[5] = {
    "1|1|2|1|1|19940101|1-URGENT|0|10|1000000|2000000|2|980000|60000|3|19940201|AIR|\n"
    "1|2|2|2|1|19940101|1-URGENT|0|30|2000000|2000000|5|1900000|60000|3|19940201|RAIL|\n"
    "2|1|3|2|2|19970615|3-MEDIUM|0|20|500000|500000|1|495000|30000|0|19970715|TRUCK|\n"
    "3|1|1|1|2|19931231|5-LOW|0|24|300000|300000|3|291000|20000|1|19940115|MAIL|\n",
    "1|Customer#000000001|addr one|UNITED KI1|UNITED KINGDOM|EUROPE|33-123-456|BUILDING|\n"
    "2|Customer#000000002|addr two|UNITED ST3|UNITED STATES|AMERICA|11-111-111|MACHINERY|\n"
    "3|Customer#000000003|addr three|CHINA    4|CHINA|ASIA|22-222-222|AUTOMOBILE|\n",
    "1|Supplier#000000001|s addr|UNITED ST0|UNITED STATES|AMERICA|11-000-000|\n"
    "2|Supplier#000000002|s addr2|JAPAN    2|JAPAN|ASIA|22-000-000|\n",
    "1|lace spring|MFGR#1|MFGR#12|MFGR#1205|red|PROMO BRUSHED TIN|7|SM BOX|\n"
    "2|rose moccasin|MFGR#2|MFGR#22|MFGR#2221|blue|STANDARD POLISHED|20|LG CASE|\n",
    "19940101|January 1, 1994|Saturday|January|1994|199401|Jan1994|7|1|1|1|1|Winter|1|0|1|0|\n"
    "19970615|June 15, 1997|Sunday|June|1997|199706|Jun1997|1|15|166|6|24|Summer|0|0|0|0|\n"
    "19931231|December 31, 1993|Friday|December|1993|199312|Dec1993|6|31|365|12|53|Christmas|0|1|0|1|\n",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *part[5];
    size_t len[5];
    const char *dir = fuzz_dir();
    int n = fuzz_split(data, size, 0x1e, 5, part, len);
    static fuzz_file_memo memo[5];   /* a table the input leaves as the last one did is not written again */
    for (int t = 0; t < 5; t++) {
        if (t < n)
            fuzz_write_changed(&memo[t], dir, tables[t], part[t], len[t]);
        else
            fuzz_write_changed(&memo[t], dir, tables[t], fixture[t], strlen(fixture[t]));
    }
    pa_ssb_db *db = NULL;
    if (pa_ssb_load_tbl(dir, 0.0001, &db) != PA_OK) {
        if (db != NULL)
            abort();   /* nothing is returned on error */
        return 0;
    }
    FILE *null = fopen("/dev/null", "w");
    for (int q = 0; q < PA_SSB_NQUERIES; q++) {
        pa_ssb_result r;
        double m, s, tol;
        if (pa_ssb_run_cpu(db, q, 1, &r) == PA_OK) {
            if (!pa_ssb_result_equal(&r, &r, NULL, 0) || pa_ssb_result_print(db, &r, null) != PA_OK)
                abort();
            pa_ssb_result_destroy(&r);
        }
        (void)pa_ssb_selectivity(db, q, 1, &m, &s, &tol);
    }
    fclose(null);
    pa_ssb_destroy(db);
    return 0;
}
