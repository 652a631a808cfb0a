/*
 * Host copy benchmark (target P4 in shared/PERFORMANCE.md): layout-changing paged->paged copies against memcpy
 * of the same bytes, measured in the same run on the same buffers, median of many repeats after warm-up, on
 * random data several times the size of the last-level cache.  The copies go through real types and
 * pa_copy (plan cache lookup included); ours runs on 2 threads (P4) and, for reference, on 1.
 * Usage: copy_host [repeats [case]]   (default 31 repeats; case: only the rows whose name contains it).  bench/copy_calibrate measures the planner's constants.
 */
#include "bench_util.h"

/* ---- the P4 table ----------------------------------------------------------------------------------------- */

typedef struct bcase {
    const char *name, *size, *dst, *src;   /* type names declared by the text below */
} bcase;

static const char decls[] =
    "parray paged float [16777216] FLAT\n"
    "parray paged float [[4096][4096]] A\n"
    "parray paged float [[#A_1][#A_0]] AT\n"
    "parray paged float4 [[2048][2048]] Q\n"
    "parray paged float4 [[#Q_1][#Q_0]] QT\n"
    "parray paged float [[2048][2048]][2] M\n"
    "parray paged float [[#M_0_1][#M_0_0]][#M_1] MT\n"
    "parray paged float [[8192][8192]] DATA\n"
    "parray paged float [[8000 # disp(96) # DATA_0][8000 # disp(96) # DATA_1]] WINDOW\n"
    "parray paged float [8000][8000] COPY\n"
    "parray paged float [67108864] FLAT64\n"
    "parray paged float [67108864 # disp(3) # FLAT64] SHIFT\n"
    "parray paged float [67108864 # step(-1) # disp(67108863) # FLAT64] REVERSED\n";

static const bcase cases[] = {
    {"contiguous float", "16M", "FLAT", "FLAT"},
    {"transpose float", "4096x4096", "AT", "A"},
    {"transpose 16 B (float4)", "2048x2048", "QT", "Q"},
    {"[[n][n]][m] transposition", "n=2048 m=2 float", "MT", "M"},
    {"window float", "8000x8000 of 8192^2", "COPY", "WINDOW"},
    /* issue 19: a cyclic shift (the manual's [n # disp(3) # A], two pieces) and a reversal (one stride -1) */
    {"cyclic shift float", "64M, disp(3)", "FLAT64", "SHIFT"},
    {"reversal float", "64M, step(-1)", "FLAT64", "REVERSED"},
};

static void *created(const pa_type *t)
{
    void *p = pa_create(t);
    if (!p) {
        fprintf(stderr, "pa_create(%s): %s\n", pa_type_name(t), pa_last_error());
        exit(1);
    }
    /* Random bytes, so that no page is left untouched or shared with the zero page. */
    size_t n = pa_alloc_bytes(t);
    uint64_t x = 0x9e3779b97f4a7c15ULL ^ n;
    for (size_t i = 0; i + 8 <= n; i += 8) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        memcpy((char *)p + i, &x, 8);
    }
    return p;
}

static int run_case(pa_scope *sc, const bcase *k, int reps)
{
    const pa_type *dt = pa_type_get(sc, k->dst), *st = pa_type_get(sc, k->src);
    size_t bytes = (size_t)pa_size(dt) * pa_elm_size(dt);
    void *d = created(dt), *s = created(st);
    char line[512];
    pa_copy_explain(dt, st, line, sizeof line);
    /* Ours on two threads, ours on one, memcpy of the same bytes: interleaved repeat by repeat, so that a
     * busy moment of the machine hits all three; the first two rounds warm up. */
    double v2[256], v1[256], vm[256];
    for (int r = -2; r < reps; r++) {
        pa_copy_set_threads(2);
        double t0 = now();
        int st2 = pa_copy(dt, d, st, s);
        double t1 = now();
        pa_copy_set_threads(1);
        int st1 = pa_copy(dt, d, st, s);
        double t2 = now();
        memcpy(d, s, bytes);
        double t3 = now();
        if (st1 != PA_OK || st2 != PA_OK) {
            fprintf(stderr, "%s: %s\n", k->name, pa_last_error());
            exit(1);
        }
        if (r >= 0) {
            v2[r] = t1 - t0;
            v1[r] = t2 - t1;
            vm[r] = t3 - t2;
        }
    }
    pa_copy_set_threads(0);
    double t2 = median(v2, reps), t1 = median(v1, reps), tm = median(vm, reps), ratio = tm / t2;
    const char *strategy = strstr(line, "strategy=") + strlen("strategy=");
    printf("| %s | %s | %.*s | %.2f | %.2f | %.2f | %.2f | 0.70 | %s |\n", k->name, k->size,
           (int)strcspn(strategy, " "), strategy, bytes / t2 * 1e-9, bytes / t1 * 1e-9, bytes / tm * 1e-9, ratio,
           ratio >= 0.70 ? "pass" : "FAIL");
    pa_destroy(dt, d);
    pa_destroy(st, s);
    return ratio >= 0.70 ? 0 : 1;
}

static int table(int reps, const char *only)
{
    pa_scope *sc;
    int fails = 0;
    if (pa_scope_create(NULL, &sc) != PA_OK || pa_declare_text(sc, decls) != PA_OK) {
        fprintf(stderr, "declarations: %s\n", pa_last_error());
        return 1;
    }
    printf("| case | size | strategy | ours 2T GB/s | ours 1T GB/s | memcpy GB/s | ratio 2T | target | result |\n");
    printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        if (!only || strstr(cases[c].name, only))
            fails += run_case(sc, &cases[c], reps);
    pa_scope_destroy(sc);
    return fails != 0;
}

int main(int argc, char **argv)
{
    int reps = 31;
    if (argc > 1)
        reps = atoi(argv[1]) > 0 && atoi(argv[1]) <= 255 ? atoi(argv[1]) : reps;
    return table(reps, argc > 2 ? argv[2] : NULL);
}
