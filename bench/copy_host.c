/*
 * Host copy benchmark (target P4 in shared/PERFORMANCE.md): layout-changing paged->paged copies against memcpy
 * of the same bytes, measured in the same run on the same buffers, median of many repeats after warm-up, on
 * random data several times the size of the last-level cache.
 * Usage: copy_host [repeats]   (default 31).  bench/copy_calibrate measures the planner's constants.
 */
#include "bench_util.h"

/* ---- the P4 table ----------------------------------------------------------------------------------------- */

typedef struct bcase {
    const char *name, *size;
    pa__layout d, s;
    size_t elm;
} bcase;

static int table(int reps)
{
    bcase cases[] = {
        {"contiguous float", "16M", L(1, 1 << 24, 1), L(1, 1 << 24, 1), 4},
        {"transpose float", "4096x4096", L(2, 4096, 4096, 4096, 1), L(2, 4096, 4096, 1, 4096), 4},
        {"transpose 16 B", "2048x2048", L(2, 2048, 2048, 2048, 1), L(2, 2048, 2048, 1, 2048), 16},
        {"[[n][n]][m] transposition", "n=2048 m=2 float", L(3, 2048, 2048, 2, 2, 4096, 1),
         L(1, 2048 * 2048 * 2, 1), 4},
        {"window float", "8000x8000 of 8192^2", L(2, 8000, 8000, 8000, 1), L(2, 8000, 8000, 8192, 1), 4},
    };
    int ncases = (int)(sizeof cases / sizeof cases[0]), fails = 0;
    printf("| case | size | strategy | ours 2T GB/s | ours 1T GB/s | memcpy GB/s | ratio 2T | target | result |\n");
    printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    for (int c = 0; c < ncases; c++) {
        bcase *k = &cases[c];
        size_t bytes = (size_t)k->d.size * k->elm;
        size_t dbytes = (size_t)extent(&k->d) * k->elm, sbytes = (size_t)extent(&k->s) * k->elm;
        void *d = random_buffer(dbytes), *s = random_buffer(sbytes);
        pa__plan *p;
        if (pa__plan_get(&k->d, &k->s, k->elm, NULL, NULL, &p) != PA_OK) {
            fprintf(stderr, "%s: %s\n", k->name, pa_last_error());
            return 1;
        }
        /* The three are interleaved repeat by repeat, so that a busy moment of the machine hits all of them. */
        double v2[256], v1[256], vm[256];
        for (int r = -2; r < reps; r++) {
            pa__copy_threads_set(2);
            double t0 = now();
            pa__plan_exec(p, d, 0, s, 0);
            double t1 = now();
            pa__copy_threads_set(1);
            pa__plan_exec(p, d, 0, s, 0);
            double t2 = now();
            memcpy(d, s, bytes);
            double t3 = now();
            if (r >= 0) {   /* the first two rounds warm up */
                v2[r] = t1 - t0;
                v1[r] = t2 - t1;
                vm[r] = t3 - t2;
            }
        }
        pa__copy_threads_set(0);
        double t2 = median(v2, reps), t1 = median(v1, reps), tm = median(vm, reps);
        double ratio = tm / t2;
        fails += ratio < 0.70;
        printf("| %s | %s | %s | %.2f | %.2f | %.2f | %.2f | 0.70 | %s |\n", k->name, k->size, p->strategy->name,
               bytes / t2 * 1e-9, bytes / t1 * 1e-9, bytes / tm * 1e-9, ratio, ratio >= 0.70 ? "pass" : "FAIL");
        pa__plan_unref(p);
        free(d);
        free(s);
    }
    return fails != 0;
}

int main(int argc, char **argv)
{
    int reps = 31;
    if (argc > 1)
        reps = atoi(argv[1]) > 0 && atoi(argv[1]) <= 255 ? atoi(argv[1]) : reps;
    return table(reps);
}
