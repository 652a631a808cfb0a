/*
 * Host copy benchmark (target P4 in shared/PERFORMANCE.md): layout-changing paged->paged copies through real
 * types and pa_copy (plan cache lookup included) at 1, 2, 4, 8 and all of this process's cores, each against an
 * OpenMP-parallel memcpy of the same bytes on the same number of threads (omp_memcpy.h), measured in the same
 * run on the same buffers of random data, several times the size of the last-level cache; medians of repeats
 * after warm-up, ours and the anchor taking turns.  Targets: contiguous and windows >= 0.85, transposes of 4-,
 * 8- and 16-byte units >= 0.75.
 *
 * Between the two sides of a turn the benchmark pauses (10 ms): OpenMP's threads poll for a while after a
 * parallel region and the pool's workers for 200 us after a copy, and a copy started right after the other
 * side's would share the cores with those polling threads (bench/host_probe measures the effect).
 * Usage: copy_host [repeats] [--smoke] [--case TEXT] [--csv FILE]   (default 11; --smoke: 8 MiB cases, 3 repeats,
 * no pass/fail; --case: only the rows whose name contains TEXT, e.g. "cyclic shift" or "reversal"; --csv: the
 * rows also written to FILE as comma-separated values, one header line, for scripts/plots.py).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <parray/parray.h>

#include "bench_clock.h"
#include "omp_memcpy.h"

typedef struct bcase {
    const char *name, *size, *dst, *src;   /* type names declared by the text below */
    double target;
} bcase;

static const char decls[] =
    "parray paged float [67108864] FLAT\n"
    "parray paged float [[8192][8192]] A\n"
    "parray paged float [[#A_1][#A_0]] AT\n"
    "parray paged float4 [[4096][4096]] Q\n"
    "parray paged float4 [[#Q_1][#Q_0]] QT\n"
    "parray paged float [[4096][4096]][4] M\n"
    "parray paged float [[#M_0_1][#M_0_0]][#M_1] MT\n"
    "parray paged float [[8192][8192]] DATA\n"
    "parray paged float [[8000 # disp(96) # DATA_0][8000 # disp(96) # DATA_1]] WINDOW\n"
    "parray paged float [8000][8000] COPY\n"
    "parray paged float [67108864 # disp(3) # FLAT] SHIFT\n"
    "parray paged float [67108864 # step(-1) # disp(67108863) # FLAT] REVERSED\n";

/* The same shapes at 8 MiB for the smoke run (CI). */
static const char decls_smoke[] =
    "parray paged float [2097152] FLAT\n"
    "parray paged float [[1448][1448]] A\n"
    "parray paged float [[#A_1][#A_0]] AT\n"
    "parray paged float4 [[724][724]] Q\n"
    "parray paged float4 [[#Q_1][#Q_0]] QT\n"
    "parray paged float [[724][724]][4] M\n"
    "parray paged float [[#M_0_1][#M_0_0]][#M_1] MT\n"
    "parray paged float [[1448][1448]] DATA\n"
    "parray paged float [[1400 # disp(24) # DATA_0][1400 # disp(24) # DATA_1]] WINDOW\n"
    "parray paged float [1400][1400] COPY\n"
    "parray paged float [2097152 # disp(3) # FLAT] SHIFT\n"
    "parray paged float [2097152 # step(-1) # disp(2097151) # FLAT] REVERSED\n";

static const bcase cases[] = {
    {"contiguous float", "256 MiB", "FLAT", "FLAT", 0.85},
    {"transpose float", "8192^2", "AT", "A", 0.75},
    {"transpose 16 B (float4)", "4096^2", "QT", "Q", 0.75},
    {"[[n][n]][m] transposition", "n=4096 m=4 float", "MT", "M", 0.75},
    {"window float", "8000^2 of 8192^2", "COPY", "WINDOW", 0.85},
    /* issue 19: the manual's cyclic shift [n # disp(3) # A] (two affine pieces) and a reversal (stride -1) */
    {"cyclic shift float", "64M, disp(3)", "FLAT", "SHIFT", 0.70},
    {"reversal float", "64M, step(-1)", "FLAT", "REVERSED", 0.70},
};

static int smoke;
static FILE *csv;   /* --csv FILE: the rows again, machine-readable */

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

/* Checks the copy element by element against the offsets of both types (sampled on large arrays). */
static int check(const pa_type *dt, const char *d, const pa_type *st, const char *s)
{
    size_t e = pa_elm_size(dt);
    int64_t n = pa_size(dt), step = n > (1 << 20) ? 4099 : 1;
    for (int64_t k = 0; k < n; k += step)
        if (memcmp(d + pa_offset(dt, k) * (int64_t)e, s + pa_offset(st, k) * (int64_t)e, e) != 0) {
            fprintf(stderr, "copy_host: wrong element %lld\n", (long long)k);
            return 1;
        }
    return 0;
}

static int run_case(pa_scope *sc, const bcase *k, const int *nthr, int nt, int reps, int *rows)
{
    const pa_type *dt = pa_type_get(sc, k->dst), *st = pa_type_get(sc, k->src);
    size_t bytes = (size_t)pa_size(dt) * pa_elm_size(dt);
    char *d = created(dt), *s = created(st), *md = created(dt);
    int fails = 0;
    for (int i = 0; i < nt; i++) {
        int t = nthr[i];
        double vo[256], va[256];
        pa_copy_info info;
        pa_copy_set_threads(t);
        if (pa_copy_query(dt, st, &info) != PA_OK) {
            fprintf(stderr, "%s: pa_copy_query: %s\n", k->name, pa_last_error());
            exit(1);
        }
        for (int r = -2; r < reps; r++) {
            double t0 = now();
            int rc = pa_copy(dt, d, st, s);
            double t1 = now();
            if (!smoke)
                usleep(10000);
            double t2 = now();
            omp_memcpy(md, s, bytes, t);
            double t3 = now();
            if (!smoke)
                usleep(10000);
            if (rc != PA_OK) {
                fprintf(stderr, "%s: %s\n", k->name, pa_last_error());
                exit(1);
            }
            if (r >= 0)
                vo[r] = t1 - t0, va[r] = t3 - t2;
        }
        if (i == 0 && check(dt, d, st, s))
            exit(1);
        double to = median(vo, reps), ta = median(va, reps), ratio = ta / to;
        int pass = ratio >= k->target;
        fails += !pass;
        (*rows)++;
        printf("| %s | %s | %d | %s | %d | %.2f | %.2f | %.3f | %.2f | %s |\n", k->name, smoke ? "8 MiB" : k->size, t,
               info.strategy, info.threads, bytes / to * 1e-9,
               bytes / ta * 1e-9, ratio, k->target, smoke ? "(smoke)" : pass ? "pass" : "FAIL");
        if (csv)
            fprintf(csv, "\"%s\",\"%s\",%d,%s,%.3f,%.3f,%.4f,%.2f\n", k->name, smoke ? "8 MiB" : k->size, t,
                    info.strategy, bytes / to * 1e-9, bytes / ta * 1e-9, ratio, k->target);
        fflush(stdout);
    }
    pa_copy_set_threads(0);
    pa_destroy(dt, d);
    pa_destroy(st, s);
    pa_destroy(dt, md);
    return fails;
}

int main(int argc, char **argv)
{
    int reps = 11, nthr[8], nt = 0, rows = 0, fails = 0;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--smoke") == 0)
            smoke = 1;
        else if (strcmp(argv[i], "--case") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
            if (!(csv = fopen(argv[++i], "w"))) {
                perror(argv[i]);
                return 2;
            }
            fprintf(csv, "case,size,threads,strategy,ours_gbps,anchor_gbps,ratio,target\n");
        }
        else if (atoi(argv[i]) > 0 && atoi(argv[i]) <= 255)
            reps = atoi(argv[i]);
    }
    if (smoke)
        reps = 3;
    pa_host_share_info sh;
    pa_host_share(&sh);
    for (int t = 1; t < sh.cpus && nt < 7; t *= 2)
        nthr[nt++] = t;
    nthr[nt++] = sh.cpus;
    pa_scope *sc;
    if (pa_scope_create(NULL, &sc) != PA_OK || pa_declare_text(sc, smoke ? decls_smoke : decls) != PA_OK) {
        fprintf(stderr, "declarations: %s\n", pa_last_error());
        return 1;
    }
    printf("P4: host copies at 1 to %d threads (this process's share: %d of %d CPUs, rank %d of %d on the node) "
           "against an OpenMP memcpy on as many threads; median of %d\n", sh.cpus, sh.cpus, sh.machine_cpus,
           sh.local_rank, sh.local_ranks, reps);
    printf("| case | size | threads | strategy | planner's threads | ours GB/s | OpenMP memcpy GB/s | ratio | target "
           "| result |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        if (!only || strstr(cases[c].name, only))
            fails += run_case(sc, &cases[c], nthr, nt, reps, &rows);
    printf("%d of %d rows meet their target\n", rows - fails, rows);
    if (csv && fclose(csv) != 0) {
        perror("copy_host: --csv");
        return 2;
    }
    pa_scope_destroy(sc);
    return smoke ? 0 : fails != 0;
}
