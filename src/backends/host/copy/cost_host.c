/*
 * parray — measuring the host copies' constants of the cost model on this machine (pa_cost_calibrate).
 *
 * Each constant is measured by the copy that isolates it, on one thread, as the median of several rounds that
 * run every copy once (after a warm-up round), and solved from the same formula the strategy's probe uses
 * (copy_strategies.c), so that the probes predict what they measured: the bandwidth from one contiguous 16 MiB
 * run; a memcpy call's cost from 32-byte rows; a loop unit's from a strided element loop; a transposed unit's
 * from a 2048 x 2048 float transpose (a tile's set-up keeps its value); a reversed element's from a 16 MiB
 * reversal; a gathered element's from a random permutation.  Values outside a plausible range are clamped to it.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "copy_host.h"
#include "cost_model.h"

#define REPS 5
#define MiB ((int64_t)1 << 20)

/* The copies that isolate the constants, in the order they are solved. */
enum { C_MEMCPY, C_RUNS, C_LOOPS, C_TRANSPOSE, C_GATHER, C_REVERSE, NCASES };
static const char *const case_strategy[NCASES] = {"memcpy", "memcpy_runs", "loops", "transpose", "gather",
                                                  "reverse"};

/*
 * Times every case's kernel on one thread, in rounds (each round runs every case once, so that a change in the
 * machine's load touches every case alike), after a warm-up round; ns[c] gets each case's median.
 */
static int time_cases(pa__layout (*l)[2], char *d, const char *s, double *ns)
{
    pa__plan *p[NCASES] = {0};
    pa__copy_kernel k[NCASES];
    double t[NCASES][REPS];
    int st = PA_OK;
    for (int c = 0; c < NCASES && st == PA_OK; c++) {
        st = pa__plan_make(&l[c][0], &l[c][1], 4, NULL, NULL, &p[c]);
        pa__copy_kernel ks[3];
        if (st == PA_OK && !pa__host_kernels_of(case_strategy[c], ks))
            st = pa__err(PA_ERR_INVAL, "calibrate: no host strategy %s", case_strategy[c]);
        /* Where the planner picks the case's strategy, the kernel pa_copy runs on one thread (with streaming
         * stores where it would use them: a large transpose streams whole lines); else the strategy's own. */
        if (st == PA_OK)
            k[c] = strcmp(p[c]->strategy->name, case_strategy[c]) == 0 ? pa__host_kernel_on(p[c], 1) : ks[0];
    }
    for (int r = -1; r < REPS && st == PA_OK; r++)
        for (int c = 0; c < NCASES; c++) {
            double t0 = pa__cost_now();
            pa__copy_parallel(&p[c]->shape, d + l[c][0].base * 4, s + l[c][1].base * 4, 1, k[c]);
            if (r >= 0)
                t[c][r] = pa__cost_now() - t0;
        }
    for (int c = 0; c < NCASES; c++) {
        if (st == PA_OK) {
            pa__cost_sort(t[c], REPS);
            ns[c] = t[c][REPS / 2];
        }
        pa__plan_unref(p[c]);
    }
    return st;
}

int pa__host_calibrate(pa__cost_model *m, FILE *log)
{
    const int64_t n = 4 * MiB;                    /* 16 MiB of floats */
    char *d = aligned_alloc(64, (size_t)(2 * n * 4)), *s = aligned_alloc(64, (size_t)(2 * n * 4));
    int32_t *perm = malloc((size_t)(n / 4) * sizeof *perm);
    int64_t *table = malloc((size_t)(n / 4) * sizeof *table);
    int st = PA_OK;
    if (!d || !s || !perm || !table) {
        st = pa__err(PA_ERR_NOMEM, "calibrate: no memory for 64 MiB of buffers");
        goto done;
    }
    memset(d, 1, (size_t)(2 * n * 4));
    memset(s, 2, (size_t)(2 * n * 4));
    pa__cost_model c = *m;

    /* The random permutation of n/4 elements spread over the whole 16 MiB source, for the gathered elements. */
    int64_t g = n / 4, rows = n / 8;
    unsigned x = 12345;
    for (int64_t i = 0; i < g; i++)
        perm[i] = (int32_t)i;
    for (int64_t i = g - 1; i > 0; i--) {
        x = x * 1103515245u + 12345u;
        int64_t j = (int64_t)(x >> 8) % (i + 1), v = perm[i];
        perm[i] = perm[j];
        perm[j] = (int32_t)v;
    }
    for (int64_t i = 0; i < g; i++)
        table[i] = (int64_t)perm[i] * 4;
    pa__layout l[NCASES][2] = {
        /* one run of 16 MiB */
        {pa__cost_affine(1, (int64_t[]){n}, (int64_t[]){1}), pa__cost_affine(1, (int64_t[]){n}, (int64_t[]){1})},
        /* 32-byte rows, the source's 48 bytes apart */
        {pa__cost_affine(2, (int64_t[]){rows, 8}, (int64_t[]){8, 1}),
         pa__cost_affine(2, (int64_t[]){rows, 8}, (int64_t[]){12, 1})},
        /* 4-byte elements, every second one of the source: 12 bytes of traffic each */
        {pa__cost_affine(1, (int64_t[]){n}, (int64_t[]){1}), pa__cost_affine(1, (int64_t[]){n}, (int64_t[]){2})},
        /* 2048 x 2048 floats transposed */
        {pa__cost_affine(2, (int64_t[]){2048, 2048}, (int64_t[]){2048, 1}),
         pa__cost_affine(2, (int64_t[]){2048, 2048}, (int64_t[]){1, 2048})},
        /* the permutation */
        {pa__cost_affine(1, (int64_t[]){g}, (int64_t[]){1}), {0}},
        /* 16 MiB reversed */
        {pa__cost_affine(1, (int64_t[]){n}, (int64_t[]){1}), pa__cost_affine(1, (int64_t[]){n}, (int64_t[]){-1})},
    };
    l[C_REVERSE][1].base = n - 1;
    l[C_GATHER][1].nmodes = 1;
    l[C_GATHER][1].size = g;
    l[C_GATHER][1].modes[0] = (pa__mode){.size = g, .table = table};
    double t[NCASES];
    if ((st = time_cases(l, d, s, t)) != PA_OK)
        goto done;

    /* Solved in turn, each from the probe's own formula (copy_strategies.c) with the constants before it. */
    double bytes = (double)(n * 4);
    c.host_bw = pa__cost_clamp(2.0 * bytes / t[C_MEMCPY], 0.5, 1000);
    c.host_memcpy_call = pa__cost_clamp((t[C_RUNS] - 2.0 * bytes / c.host_bw) / (double)rows, 0.2, 500);
    c.host_loop_unit = pa__cost_clamp((t[C_LOOPS] - 12.0 * (double)n / c.host_bw - c.host_loop_start) / (double)n, 0.02,
                             100);
    double edge = pa__transpose_edge(4), tiles = (double)n / (edge * edge);
    c.host_transpose_unit = pa__cost_clamp((t[C_TRANSPOSE] - 2.0 * bytes / c.host_bw - tiles * c.host_tile) / (double)n,
                                  0.02, 100);
    c.host_reverse_elem = pa__cost_clamp((t[C_REVERSE] - 2.0 * bytes / c.host_bw) / (double)n, 0.01, 100);
    double traffic = 4.0 * (double)g + 64.0 * (double)g;   /* as the gather's probe counts it */
    c.host_gather_elem = pa__cost_clamp((t[C_GATHER] - traffic / c.host_bw) / (double)g - c.host_loop_unit, 0.05, 200);

    if (log)
        fprintf(log, "  host: %.2f bytes/ns, memcpy call %.2f ns, loop unit %.3f ns, transposed unit %.3f ns, "
                "reversed element %.3f ns, gathered element %.2f ns\n", c.host_bw, c.host_memcpy_call,
                c.host_loop_unit, c.host_transpose_unit, c.host_reverse_elem, c.host_gather_elem);
    c.mpi_host_bw = c.host_bw;
    *m = c;
done:
    free(d);
    free(s);
    free(perm);
    free(table);
    return st;
}
