/*
 * k-means' assignment step on the tensor cores (examples/matrix_kmeans.c, tests/matrix/test_matrix_knn_gpu.c):
 * kmeans_tc_step(data, centroids) answers as matrix_kmeans.h's kmeans_step (the next centroids and the cluster
 * sizes, k x (d + 1) double) with each point's nearest centroid found from scores computed by pa_gemm_dmem_async
 * with pa_gemm_config.compute = PA_GEMM_TF32:
 *
 *   G = -2 X C_hi^T - 2 X C_lo^T     (n x k, row-major: a point's scores contiguous)
 *
 * where C_hi is each centroid coordinate truncated to TF32 on the host and C_lo = C - C_hi (the tensor cores
 * read it truncated again: a relative error below 2^-20 of the coordinate).  One TF32 product would leave the
 * centroids a relative error of 2^-10: on matrix_kmeans.c's data (points up to ~500 from the origin, two clusters
 * 40 apart) that moved up to 0.4% of the points per iteration in a CPU model of the truncation; with the split, none.
 * The points are read as TF32: exact for coordinates of at most 11 significant bits (the example's integers);
 * other data keep a relative error below 2^-10 per coordinate.  The function kmeans_step_tf32 then takes, per
 * point, the centroid of least |c|^2 + G (|c|^2 in double) and rechecks the near ties: every centroid whose score
 * lies within the error bounds of its own and the best one's (the points' truncation, the split's remainder, the
 * fp32 sums; computed per point) gets its distance in fp64 exactly as kmeans_step computes it, and the least of
 * those wins, ties to the lower index.  The fp64 step's choice is always among them, so the assignments are the
 * fp64 step's, and the clusters are summed as there (integer coordinates: exact sums, the same centroids bit for
 * bit).
 *
 * Tolerance (checked by matrix_kmeans.c and the matrix_knn_gpu suite per iteration against kmeans_cpu from the
 * same centroids): the cluster sizes differ by at most 0.1% of the points in total, and every centroid
 * coordinate by at most 1e-3 of the data's coordinate range; by the recheck both differences are expected to be
 * 0 (the programs print them).  The gemm is small here (k = 5 centroids of 8
 * coordinates: n x 5 x 8, far below a tensor core's tile); the path is there to show the precision choice and
 * its tolerance, not for speed.
 */
#ifndef PARRAY_EXAMPLE_MATRIX_KMEANS_TC_H
#define PARRAY_EXAMPLE_MATRIX_KMEANS_TC_H

#include <math.h>
#include <stdio.h>

#include "matrix_kmeans.h"
#include "matrix_tf32.h"
#include <parray/gputile.h>

/* As km_sane, and the scores: one float per (point, centroid). */
static inline int64_t km_tc_sane(const pa_arg *args, int nargs, void *ret, void *ctx)
{
    return km_sane(args, nargs, ret, ctx) &&
           args[2].count == pa_matrix_nrows(args[0].ptr) * pa_matrix_nrows(args[1].ptr);
}

/* A centroid's TF32 score |c|^2 + G and the bound m on its error against |c|^2 - 2 x.c: twice the points' TF32
 * truncation (e) and the split's remainder, and the fp32 sums of the gemms ((2d + 8) 2^-22 of sum |x_j c_j|). */
#define KMEANS_TC_SCORE \
    "            double cn = 0, e = 0, s = 0, xn = 0;\n" \
    "            for (int j = 0; j < d; j++) {\n" \
    "                const double cj = C[(long)j * k + c];\n" \
    "                const float xj = X[(long)j * n + i];\n" \
    "                const float xt = __uint_as_float(__float_as_uint(xj) & ~0x1fffu);\n" \
    "                cn = fma(cj, cj, cn);\n" \
    "                xn = fma((double)xj, (double)xj, xn);\n" \
    "                e += fabs((double)xj - (double)xt) * fabs(cj);\n" \
    "                s += fabs((double)xj) * fabs(cj);\n" \
    "            }\n" \
    "            const double score = cn + (double)g[c];   /* |x - c|^2 - |x|^2 */\n" \
    "            const double m = 2 * e + (2.0 * d + 8) * 0x1p-22 * s + 0x1p-40 * (cn + xn);\n"

/* The nearest centroid by the TF32 scores; then every centroid whose score is within the two error bounds of the
 * best one's gets its distance in fp64, computed as matrix_kmeans.h's kernel does, and the least of those wins
 * (ties to the lower index).  The fp64 kernel's choice is always among them, so the assignment is its own. */
#define KMEANS_ASSIGN_TF32 \
    "#plcuda_begin\n" \
    "#plcuda_num_threads km_points\n" \
    "    const int n = arg1->height, d = arg1->width, k = arg2->height;\n" \
    "    const long i = get_global_id();\n" \
    "    if (i < n) {\n" \
    "        const float *X = (const float *)pa_matrix_values(arg1);\n" \
    "        const double *C = (const double *)pa_matrix_values(arg2);\n" \
    "        const float *g = arg3 + i * k;   /* -2 x.c for each centroid, by the tensor cores */\n" \
    "        double tops = 0, topm = 0;\n" \
    "        for (int c = 0; c < k; c++) {\n" \
    KMEANS_TC_SCORE \
    "            if (c == 0 || score < tops) { tops = score; topm = m; }\n" \
    "        }\n" \
    "        int best = -1;\n" \
    "        double bestd = 0;\n" \
    "        for (int c = 0; c < k; c++) {\n" \
    KMEANS_TC_SCORE \
    "            if (score > tops + topm + m) continue;   /* cannot be nearer than the TF32 best */\n" \
    "            double dist = 0;\n" \
    "            for (int j = 0; j < d; j++) {\n" \
    "                double x = __dadd_rn((double)X[(long)j * n + i], -C[(long)j * k + c]);\n" \
    "                dist = __dadd_rn(dist, __dmul_rn(x, x));\n" \
    "            }\n" \
    "            if (best < 0 || dist < bestd) { best = c; bestd = dist; }\n" \
    "        }\n"

static const char kmeans_tc_source[] = KMEANS_HEAD KMEANS_ASSIGN_TF32 KMEANS_TAIL;

/* The TF32 step's function and its types and buffers for the last sizes it ran. */
typedef struct kmeans_tc {
    pa_kernel *k;
    pa_scope *scope;
    const pa_type *xa, *cb, *hb, *g;   /* X as [n][d]; C^T [d][k] in dmem and on the host; G [n][k] */
    int64_t n, d, nc;
    float *scores, *hi, *lo;           /* dmem */
    float *hhi, *hlo;                  /* host */
} kmeans_tc;

static inline int kmeans_tc_init(kmeans_tc *t)
{
    static const pa_kernel_func funcs[] = {{"km_points", km_points, NULL},   {"km_cells", km_cells, NULL},
                                           {"km_results", km_results, NULL}, {"km_work", km_work, NULL},
                                           {"km_sane", km_tc_sane, NULL}};
    memset(t, 0, sizeof *t);
    return pa_kernel_create("kmeans_step_tf32", "matrix double (matrix float, matrix double, float[])",
                            kmeans_tc_source, funcs, 5, &t->k);
}

static inline void kmeans_tc_release(kmeans_tc *t)
{
    if (t->scores)
        pa_destroy(t->g, t->scores);
    if (t->hi)
        pa_destroy(t->cb, t->hi);
    if (t->lo)
        pa_destroy(t->cb, t->lo);
    if (t->hhi)
        pa_destroy(t->hb, t->hhi);
    if (t->hlo)
        pa_destroy(t->hb, t->hlo);
    pa_scope_destroy(t->scope);
    t->scope = NULL;
    t->scores = t->hi = t->lo = t->hhi = t->hlo = NULL;
    t->n = t->d = t->nc = 0;
}

static inline void kmeans_tc_free(kmeans_tc *t)
{
    kmeans_tc_release(t);
    pa_kernel_destroy(t->k);
    t->k = NULL;
}

static inline int kmeans_tc_prepare(kmeans_tc *t, int64_t n, int64_t d, int64_t nc)
{
    char text[512];
    if (t->scope != NULL && t->n == n && t->d == d && t->nc == nc)
        return PA_OK;
    kmeans_tc_release(t);
    snprintf(text, sizeof text,
             "parray dmem float [%lld][%lld] XS; parray dmem float [#XS_1][#XS_0] XA;"   /* X (n x d) as stored */
             "parray dmem float [%lld][%lld] CB; parray paged float [%lld][%lld] HB;"
             "parray dmem float [%lld][%lld] G;",
             (long long)d, (long long)n, (long long)d, (long long)nc, (long long)d, (long long)nc, (long long)n,
             (long long)nc);
    int st = pa_scope_create(NULL, &t->scope);
    if (st == PA_OK)
        st = pa_declare_text(t->scope, text);
    if (st != PA_OK)
        return st;
    t->xa = pa_type_get(t->scope, "XA");
    t->cb = pa_type_get(t->scope, "CB");
    t->hb = pa_type_get(t->scope, "HB");
    t->g = pa_type_get(t->scope, "G");
    if (!t->xa || !t->cb || !t->hb || !t->g)
        return PA_ERR_INVAL;
    t->scores = pa_create(t->g);
    t->hi = pa_create(t->cb);
    t->lo = pa_create(t->cb);
    t->hhi = pa_create(t->hb);
    t->hlo = pa_create(t->hb);
    if (!t->scores || !t->hi || !t->lo || !t->hhi || !t->hlo)
        return PA_ERR_NOMEM;
    t->n = n;
    t->d = d;
    t->nc = nc;
    return PA_OK;
}

/*
 * One Lloyd iteration with TF32 scores: data a dmem float matrix (n x d), cent a host double matrix (k x d or
 * k x (d + 1)).  \return PA_OK and *out (a host matrix); PA_ERR_MTT or PA_ERR_INVAL (message on stderr); the
 * errors of pa_gemm_dmem_async, pa_copy and pa_kernel_call.
 */
static inline int kmeans_tc_step(kmeans_tc *t, const pa_matrix *data, const pa_matrix *cent, pa_matrix **out)
{
    pa_matrix dh;
    *out = NULL;
    if (pa_matrix_header(data, &dh) != PA_OK || strcmp(pa_matrix_mtt(data), "dmem") != 0 ||
        dh.elm != PA_MATRIX_FLOAT || strcmp(pa_matrix_mtt(cent), "dmem") == 0 || cent->elm != PA_MATRIX_DOUBLE ||
        (cent->width != dh.width && cent->width != dh.width + 1) || cent->height < 1) {
        fprintf(stderr, "kmeans_tc_step: the data must be a dmem float matrix and the centroids a host double one "
                "of its width (or one more)\n");
        return PA_ERR_INVAL;
    }
    const int64_t n = dh.height, d = dh.width, nc = cent->height;
    int st = kmeans_tc_prepare(t, n, d, nc);
    if (st != PA_OK)
        return st;
    const double *C = pa_matrix_data((pa_matrix *)cent);
    for (int64_t e = 0; e < d * nc; e++) {   /* C(c, j) at j k + c: C^T's [d][k] row-major, element for element */
        t->hhi[e] = mx_tf32_truncate((float)C[e]);
        t->hlo[e] = (float)(C[e] - (double)t->hhi[e]);
    }
    const float *X = pa_matrix_data((pa_matrix *)data);
    pa_gemm_config cfg = {0};
    cfg.compute = PA_GEMM_TF32;
    if ((st = pa_copy(t->cb, t->hi, t->hb, t->hhi)) != PA_OK || (st = pa_copy(t->cb, t->lo, t->hb, t->hlo)) != PA_OK)
        return st;
    /* both gemms on the default stream, in order; the call below waits for them */
    if ((st = pa_gemm_dmem_async(t->g, t->scores, t->xa, X, t->cb, t->hi, -2.0, 0.0, &cfg, NULL, NULL)) != PA_OK ||
        (st = pa_gemm_dmem_async(t->g, t->scores, t->xa, X, t->cb, t->lo, -2.0, 1.0, &cfg, NULL, NULL)) != PA_OK)
        return st;
    pa_arg args[] = {PA_ARG(data), PA_ARG(cent), PA_ARG_N(t->scores, n * nc)};
    return pa_kernel_call(t->k, args, 3, out);
}

/* How far a step's result is from the reference's (both k x (d + 1), sizes last), for the header's tolerance. */
typedef struct kmeans_agreement {
    double moved;       /* half the sum of the size differences: points assigned differently, at least */
    double worst;       /* the largest centroid coordinate difference */
} kmeans_agreement;

/* \return 1 when got is within the tolerance of ref: moved <= 0.001 n, worst <= 1e-3 range. */
static inline int kmeans_check_tolerance(const pa_matrix *ref, const pa_matrix *got, int64_t n, double range,
                                  kmeans_agreement *a)
{
    const int64_t k = ref->height, w = ref->width;
    const double *R = pa_matrix_data((pa_matrix *)ref), *G = pa_matrix_data((pa_matrix *)got);
    *a = (kmeans_agreement){0, 0};
    if (got->height != k || got->width != w)
        return 0;
    for (int64_t c = 0; c < k; c++) {
        a->moved += fabs(R[(w - 1) * k + c] - G[(w - 1) * k + c]) / 2;
        for (int64_t j = 0; j < w - 1; j++) {
            double diff = fabs(R[j * k + c] - G[j * k + c]);
            a->worst = diff > a->worst || diff != diff ? diff : a->worst;
        }
    }
    return a->moved <= 0.001 * (double)n && a->worst <= 1e-3 * range;
}

#endif
