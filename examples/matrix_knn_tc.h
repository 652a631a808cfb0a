/*
 * k-nearest-neighbour search with a choice of precision (examples/matrix_knn.c, bench/matrix.c,
 * tests/matrix/test_matrix_knn_gpu.c): knn_search_run answers as matrix_knn.h's function does (an nq x k matrix of
 * int, the data rows' indices, nearest first, ties to the lower index), by the path the caller asks for, and says
 * which ran.
 *
 *   MX_FP32  matrix_knn.h's PL/CUDA function: fp32 FMAs, the default.
 *   MX_TF32  the tensor cores, when the caller allows TF32: the scores G = -2 Q X^T by pa_gemm_dmem_async with
 *            pa_gemm_config.compute = PA_GEMM_TF32 over the matrices' own column-major data (Q's rows as a
 *            transposed window [qb][d] of its [d][nq] storage, X as its [d][n] storage, G row-major [qb][n]: one
 *            query's scores contiguous), then knn_select, a PL/CUDA function: prep the data rows' squared norms
 *            |x|^2 (fp32), main a block of 128 threads per query ranking |x|^2 + G by insertion (each thread its
 *            best CAND = min(2k, 32)), the block's lists merged in a tree in shared memory, and those CAND
 *            candidates re-ranked by their fp32 distances |q - x|^2 (a thread each), the best k kept.  Queries go
 *            in batches whose scores fit score_bytes of device memory (1 GiB by default), the buffer kept for the
 *            next call of the same sizes.
 *
 * Tolerance of MX_TF32 (the tensor cores read each operand truncated to TF32, a relative error below 2^-10, and
 * accumulate in fp32): a score |x|^2 - 2 q.x is off by at most 2^-8 |q| |x|, so every neighbour returned for q
 * has an exact distance within
 *
 *     d(q, x_i) <= d_k(q) + 2^-7 (|q|^2 + max(|x_i|^2, |x_k|^2))
 *
 * of the k-th exact distance d_k(q) (x_k its point; the bound 2^-8 |q| (|x_i| + |x_k|) with a factor 2 for the
 * fp32 sums), and the neighbours found agree with the fp32 path's: recall (the fraction of the fp32 path's
 * neighbours found) >= 0.99 on data spread like the examples' (uniform coordinates, 16-32 dimensions).  Without
 * the re-ranking, the TF32 scores alone gave 0.995-1.0 on a CPU model of the truncation at 4096 points but 0.987
 * on the H200 at 262144 points (cuBLAS TF32 + top-k: 0.986): nearer neighbours are closer together than the
 * scores' error; the fp32 re-ranking of twice k candidates keeps only the TF32 ranking's coarse cut.  Coordinates with at most 11 significant bits (integers up to 2048
 * in magnitude, as in matrix_knn.c and bench/matrix) are exact in TF32: the results are then the fp32 path's, bit
 * for bit.  knn_check_tolerance checks both on the host.
 */
#ifndef PARRAY_EXAMPLE_MATRIX_KNN_TC_H
#define PARRAY_EXAMPLE_MATRIX_KNN_TC_H

#include <math.h>

#include "matrix_knn.h"
#include "matrix_tf32.h"
#include <parray/gputile.h>

static inline int64_t kts_rows(const pa_arg *args, int nargs, void *ret, void *ctx)
{
    return pa_matrix_nrows(args[0].ptr);
}

/* The batch's queries: the scores' count over the data rows. */
static inline int64_t kts_queries(const pa_arg *args)
{
    int64_t n = pa_matrix_nrows(args[0].ptr);
    return n > 0 && args[1].count % n == 0 ? args[1].count / n : -1;
}

static inline int64_t kts_main_threads(const pa_arg *args, int nargs, void *ret, void *ctx)
{
    int64_t qb = kts_queries(args);
    return qb < 0 ? -1 : qb * 128;
}

static inline int64_t kts_results(const pa_arg *args, int nargs, void *ret, void *ctx)
{
    const knn_shape *s = ctx;
    int64_t qb = kts_queries(args);
    return qb < 0 ? -1 : (int64_t)pa_matrix_rawsize(PA_MATRIX_INT, qb, s->topk);
}

static inline int64_t kts_work(const pa_arg *args, int nargs, void *ret, void *ctx)
{
    return pa_matrix_nrows(args[0].ptr) * 4;   /* the squared norms */
}

/* Float data of width dim with at least k rows, and scores for a whole number of queries. */
static inline int64_t kts_sane(const pa_arg *args, int nargs, void *ret, void *ctx)
{
    const knn_shape *s = ctx;
    pa_matrix d;
    if (pa_matrix_header(args[0].ptr, &d) != PA_OK)
        return 0;
    pa_matrix qm;
    if (nargs < 4 || pa_matrix_header(args[2].ptr, &qm) != PA_OK)
        return 0;
    int q0 = *(const int *)args[3].ptr;
    return d.elm == PA_MATRIX_FLOAT && d.width == s->dim && d.height >= s->topk && kts_queries(args) > 0 &&
           qm.elm == PA_MATRIX_FLOAT && qm.width == s->dim && q0 >= 0 && q0 + kts_queries(args) <= qm.height;
}

static const char knn_select_body[] =
    "#plcuda_include \"matrix\"\n"
    "#plcuda_results_bufsz kts_results\n"
    "#plcuda_working_bufsz kts_work\n"
    "#plcuda_sanity_check kts_sane\n"
    "#plcuda_decl\n"
    "#define THREADS 128\n"
    "#define CAND (2 * TOPK < 32 ? 2 * TOPK : 32)\n"   /* candidates by TF32 score, re-ranked in fp32 */
    "static __device__ __forceinline__ bool better(float d, int i, float bd, int bi)\n"
    "{\n"
    "    return d < bd || (d == bd && i < bi);\n"
    "}\n"
    "template <int L> static __device__ __forceinline__ void insert(float *bd, int *bi, float d, int i)\n"
    "{\n"
    "#pragma unroll\n"
    "    for (int r = 0; r < L; r++)\n"
    "        if (better(d, i, bd[r], bi[r])) {\n"
    "            float td = bd[r]; int ti = bi[r];\n"
    "            bd[r] = d; bi[r] = i; d = td; i = ti;\n"
    "        }\n"
    "}\n"
    "#plcuda_prep\n"
    "#plcuda_num_threads kts_rows\n"
    "    const int n = arg1->height;\n"
    "    const long i = get_global_id();\n"
    "    if (i < n) {\n"
    "        const float *X = (const float *)pa_matrix_values(arg1);\n"
    "        float s = 0.0f;\n"
    "#pragma unroll\n"
    "        for (int j = 0; j < DIM; j++) s = fmaf(X[(long)j * n + i], X[(long)j * n + i], s);\n"
    "        ((float *)workbuf)[i] = s;\n"
    "    }\n"
    "#plcuda_begin\n"
    "#plcuda_num_threads kts_main_threads\n"
    "#plcuda_kernel_blocksz 128\n"
    "    __shared__ float sd[THREADS * CAND];\n"
    "    __shared__ int si[THREADS * CAND];\n"
    "    const long n = arg1->height, qb = arg2_len / n, q = blockIdx.x;\n"
    "    const float *g = arg2 + q * n, *xn = (const float *)workbuf;\n"
    "    pa_matrix *res = (pa_matrix *)results;\n"
    "    if (q == 0 && threadIdx.x == 0) {\n"
    "        pa_matrix_init(res, PA_MATRIX_INT, (int)qb, TOPK);\n"
    "        retval->value = res;\n"
    "    }\n"
    "    float bd[CAND];\n"
    "    int bi[CAND];\n"
    "#pragma unroll\n"
    "    for (int r = 0; r < CAND; r++) { bd[r] = 3.4e38f; bi[r] = 0x7fffffff; }\n"
    "    /* the scan keeps a thread's best TOPK (the cheap list); the merge below keeps the block's best CAND of\n"
    "     * the union of those lists, the candidates for the fp32 re-ranking */\n"
    "    /* |q - x|^2 - |q|^2 = |x|^2 - 2 q.x; a thread's rows come in increasing order, so < keeps ties low */\n"
    "    for (long i = threadIdx.x; i < n; i += THREADS) {\n"
    "        float d = xn[i] + g[i];\n"
    "        if (d < bd[TOPK - 1]) insert<TOPK>(bd, bi, d, (int)i);\n"
    "    }\n"
    "    /* the lists merged in a tree: thread t takes t + s's, whose sorted entries stop helping at the first miss */\n"
    "    for (int s = THREADS / 2; s > 0; s >>= 1) {\n"
    "        if (threadIdx.x >= s && threadIdx.x < 2 * s) {\n"
    "#pragma unroll\n"
    "            for (int r = 0; r < CAND; r++) { sd[threadIdx.x * CAND + r] = bd[r]; si[threadIdx.x * CAND + r] = bi[r]; }\n"
    "        }\n"
    "        __syncthreads();\n"
    "        if (threadIdx.x < s)\n"
    "            for (int r = 0; r < CAND; r++) {\n"
    "                float d = sd[(threadIdx.x + s) * CAND + r];\n"
    "                int i = si[(threadIdx.x + s) * CAND + r];\n"
    "                if (!better(d, i, bd[CAND - 1], bi[CAND - 1])) break;\n"
    "                insert<CAND>(bd, bi, d, i);\n"
    "            }\n"
    "        __syncthreads();\n"
    "    }\n"
    "    /* the CAND best by TF32 score re-ranked by their fp32 distances |q - x|^2: a thread per candidate, its\n"
    "     * rank among the others (ties to the lower index), the first TOPK written in order */\n"
    "    if (threadIdx.x == 0)\n"
    "        for (int r = 0; r < CAND; r++) { sd[r] = bd[r]; si[r] = bi[r]; }\n"
    "    __syncthreads();\n"
    "    const long nq = arg3->height, qg = (long)arg4 + q;\n"
    "    const float *X = (const float *)pa_matrix_values(arg1), *Qv = (const float *)pa_matrix_values(arg3);\n"
    "    float e = 3.4e38f;\n"
    "    int ei = 0x7fffffff;\n"
    "    if (threadIdx.x < CAND && si[threadIdx.x] < n) {\n"
    "        ei = si[threadIdx.x];\n"
    "        e = 0.0f;\n"
    "#pragma unroll\n"
    "        for (int j = 0; j < DIM; j++) { float t = X[(long)j * n + ei] - Qv[(long)j * nq + qg]; e = fmaf(t, t, e); }\n"
    "    }\n"
    "    __syncthreads();\n"
    "    if (threadIdx.x < CAND) { sd[threadIdx.x] = e; si[threadIdx.x] = ei; }\n"
    "    __syncthreads();\n"
    "    if (threadIdx.x < CAND) {\n"
    "        int rank = 0;\n"
    "        for (int u = 0; u < CAND; u++) rank += better(sd[u], si[u], e, ei);\n"
    "        if (rank < TOPK) ((int *)pa_matrix_values(res))[(long)rank * qb + q] = ei;\n"
    "    }\n"
    "#plcuda_end\n";

/* Registers knn_select_<dim>_<topk> (TOPK at most 32: a block's lists fill 32 KiB of shared memory). */
static inline int knn_select_register(const knn_shape *s, pa_kernel **out)
{
    char name[64], defs[96], *src;
    const pa_kernel_func funcs[] = {{"kts_rows", kts_rows, (void *)s},
                                    {"kts_main_threads", kts_main_threads, (void *)s},
                                    {"kts_results", kts_results, (void *)s},
                                    {"kts_work", kts_work, (void *)s},
                                    {"kts_sane", kts_sane, (void *)s}};
    if (s->topk < 1 || s->topk > 32 || s->dim < 1) {
        fprintf(stderr, "knn_select: k = %d, dim = %d; k must be 1..32 and dim positive\n", s->topk, s->dim);
        return PA_ERR_RANGE;
    }
    int nd = snprintf(defs, sizeof defs, "#define DIM %d\n#define TOPK %d\n", s->dim, s->topk);
    if (!(src = malloc(sizeof knn_select_body + (size_t)nd)))
        return PA_ERR_NOMEM;
    const char *decl = strstr(knn_select_body, "#plcuda_decl\n") + strlen("#plcuda_decl\n");
    size_t head = (size_t)(decl - knn_select_body);
    memcpy(src, knn_select_body, head);
    memcpy(src + head, defs, (size_t)nd);
    strcpy(src + head + (size_t)nd, decl);
    snprintf(name, sizeof name, "knn_select_%d_%d", s->dim, s->topk);
    int st = pa_kernel_create(name, "matrix int (matrix float, float[], matrix float, int)", src, funcs, 5, out);
    free(src);
    return st;
}

/* Both paths of one (dim, k), and the TF32 path's types and score buffer for the last sizes it ran. */
typedef struct knn_search {
    knn_shape shape;       /* dim, topk, and the fp32 function's chunks */
    pa_kernel *fp32, *select;
    size_t score_bytes;    /* device memory for the scores of a batch of queries */
    pa_scope *scope;
    const pa_type *xt, *qa, *g, *ql, *gl;   /* X's [d][n]; a batch's Q [qb][d] and G [qb][n]; the last batch's */
    int64_t n, nq, qb;
    float *scores;
} knn_search;

/* \return PA_OK and *s ready (s must not move while in use); pa_kernel_create's errors. */
static inline int knn_search_init(knn_search *s, int dim, int topk, int chunks)
{
    memset(s, 0, sizeof *s);
    s->shape = (knn_shape){dim, topk, chunks};
    s->score_bytes = (size_t)1 << 30;
    int st = knn_register(&s->shape, &s->fp32);
    if (st == PA_OK)
        st = knn_select_register(&s->shape, &s->select);
    return st;
}

static inline void knn_search_release(knn_search *s)
{
    if (s->scores)
        pa_destroy(s->g, s->scores);
    pa_scope_destroy(s->scope);
    s->scope = NULL;
    s->scores = NULL;
    s->n = s->nq = s->qb = 0;
}

static inline void knn_search_free(knn_search *s)
{
    knn_search_release(s);
    pa_kernel_destroy(s->fp32);
    pa_kernel_destroy(s->select);
    s->fp32 = s->select = NULL;
}

/* The types of n data rows and nq queries, and the score buffer of a batch. */
static inline int knn_search_prepare(knn_search *s, int64_t n, int64_t nq)
{
    char text[640];
    const int d = s->shape.dim;
    if (s->scope != NULL && s->n == n && s->nq == nq)
        return PA_OK;
    knn_search_release(s);
    int64_t qb = (int64_t)(s->score_bytes / (4 * (size_t)n));
    qb = qb < 1 ? 1 : qb > nq ? nq : qb;
    int64_t last = nq % qb ? nq % qb : qb;
    snprintf(text, sizeof text,
             "parray dmem float [%d][%lld] XT;"                                         /* X (n x d) as stored */
             "parray dmem float [%d][%lld] QS;"                                         /* Q (nq x d) as stored */
             "parray dmem float [%lld # QS_1][#QS_0] QA; parray dmem float [%lld][%lld] G;"
             "parray dmem float [%lld # QS_1][#QS_0] QL; parray dmem float [%lld][%lld] GL;",
             d, (long long)n, d, (long long)nq, (long long)qb, (long long)qb, (long long)n, (long long)last,
             (long long)last, (long long)n);
    int st = pa_scope_create(NULL, &s->scope);
    if (st == PA_OK)
        st = pa_declare_text(s->scope, text);
    if (st != PA_OK)
        return st;
    s->xt = pa_type_get(s->scope, "XT");
    s->qa = pa_type_get(s->scope, "QA");
    s->g = pa_type_get(s->scope, "G");
    s->ql = pa_type_get(s->scope, "QL");
    s->gl = pa_type_get(s->scope, "GL");
    if (!s->xt || !s->qa || !s->g || !s->ql || !s->gl)
        return PA_ERR_INVAL;
    if (!(s->scores = pa_create(s->g)))
        return PA_ERR_NOMEM;
    s->n = n;
    s->nq = nq;
    s->qb = qb;
    return PA_OK;
}

/* The TF32 path: batches of queries, each a gemm into the scores and a knn_select call into *out (host). */
static inline int knn_search_tf32(knn_search *s, const pa_matrix *data, const pa_matrix *query, pa_matrix **out)
{
    pa_matrix dh, qh;
    const int k = s->shape.topk;
    if (pa_matrix_header(data, &dh) != PA_OK || pa_matrix_header(query, &qh) != PA_OK)
        return PA_ERR_INVAL;
    if (strcmp(pa_matrix_mtt(data), "dmem") != 0 || strcmp(pa_matrix_mtt(query), "dmem") != 0) {
        fprintf(stderr, "knn_search: the TF32 path takes dmem matrices (data %s, query %s)\n", pa_matrix_mtt(data),
                pa_matrix_mtt(query));
        return PA_ERR_MTT;
    }
    if (dh.elm != PA_MATRIX_FLOAT || qh.elm != PA_MATRIX_FLOAT || dh.width != s->shape.dim ||
        qh.width != s->shape.dim || dh.height < k || qh.height < 1) {
        fprintf(stderr, "knn_search: data %d x %d and queries %d x %d; both float, %d wide, at least %d data rows\n",
                dh.height, dh.width, qh.height, qh.width, s->shape.dim, k);
        return PA_ERR_INVAL;
    }
    int st = knn_search_prepare(s, dh.height, qh.height);
    pa_matrix *res = NULL;
    if (st == PA_OK)
        st = pa_matrix_create_in(NULL, PA_MATRIX_INT, qh.height, k, &res);
    const float *X = pa_matrix_data((pa_matrix *)data), *Q = pa_matrix_data((pa_matrix *)query);
    pa_gemm_config cfg = {0};
    cfg.compute = PA_GEMM_TF32;
    for (int64_t q0 = 0; st == PA_OK && q0 < s->nq; q0 += s->qb) {
        int64_t cnt = s->nq - q0 < s->qb ? s->nq - q0 : s->qb;
        const pa_type *A = cnt == s->qb ? s->qa : s->ql, *G = cnt == s->qb ? s->g : s->gl;
        /* G = -2 Q[q0 ..] X^T on the default stream; the call below waits for it (its stream is a blocking one) */
        st = pa_gemm_dmem_async(G, s->scores, A, Q + q0, s->xt, X, -2.0, 0.0, &cfg, NULL, NULL);
        pa_matrix *part = NULL;
        int first = (int)q0;
        pa_arg args[] = {PA_ARG(data), PA_ARG_N(s->scores, cnt * s->n), PA_ARG(query), PA_ARG(&first)};
        if (st == PA_OK)
            st = pa_kernel_call(s->select, args, 4, &part);
        if (st == PA_OK) {
            const int *src = pa_matrix_data(part);
            int *dst = pa_matrix_data(res);
            for (int r = 0; r < k; r++)
                memcpy(dst + (int64_t)r * s->nq + q0, src + (int64_t)r * cnt, sizeof(int) * (size_t)cnt);
        }
        pa_matrix_destroy(part);
    }
    if (st != PA_OK) {
        pa_matrix_destroy(res);
        return st;
    }
    *out = res;
    return PA_OK;
}

/*
 * The k nearest data rows of every query by the precision asked for (MX_TF32 only where the caller allows it), the
 * precision that ran in *used.  data and query float matrices of width dim (dmem for MX_TF32).
 * \return PA_OK and *out (a host matrix: pa_matrix_destroy); the errors of pa_kernel_call and pa_gemm_dmem_async;
 *         PA_ERR_MTT or PA_ERR_INVAL (with a message on stderr) for matrices the TF32 path cannot take.
 */
static inline int knn_search_run(knn_search *s, const pa_matrix *data, const pa_matrix *query, mx_precision want,
                          pa_matrix **out, mx_precision *used)
{
    *out = NULL;
    *used = want == MX_TF32 ? MX_TF32 : MX_FP32;
    if (*used == MX_TF32)
        return knn_search_tf32(s, data, query, out);
    pa_arg args[] = {PA_ARG(data), PA_ARG(query)};
    return pa_kernel_call(s->fp32, args, 2, out);
}

/* What knn_check_tolerance found. */
typedef struct knn_agreement {
    double recall;          /* the fraction of the reference's neighbours found */
    double worst_excess;    /* max over returned neighbours of (d(q, x_i) - d_k(q)) / d_k(q), exact distances */
    long outside;           /* neighbours beyond the tolerance bound (the header's) */
    long first_q, first_r;  /* the first of them (query, rank), -1 when none */
    long mismatched_q;      /* the first query whose neighbour set differs from the reference's, -1 when none */
} knn_agreement;

static inline double knn_dist(const float *X, int64_t n, const float *Q, int64_t nq, int64_t q, int64_t i, int d)
{
    double s = 0;
    for (int j = 0; j < d; j++) {
        double t = (double)Q[(int64_t)j * nq + q] - (double)X[(int64_t)j * n + i];
        s += t * t;
    }
    return s;
}

static inline double knn_norm2(const float *M, int64_t rows, int64_t i, int d)
{
    double s = 0;
    for (int j = 0; j < d; j++)
        s += (double)M[(int64_t)j * rows + i] * (double)M[(int64_t)j * rows + i];
    return s;
}

/*
 * Checks got (nq x k indices) against ref (the same search at fp32, e.g. knn_cpu's) for host matrices data (n x d)
 * and query (nq x d): recall, and every returned neighbour within the header's bound of the reference's k-th
 * distance.  \return 1 when recall >= 0.99 and no neighbour lies outside the bound (or is not a data row).
 */
static inline int knn_check_tolerance(const pa_matrix *data, const pa_matrix *query, const pa_matrix *ref,
                               const pa_matrix *got, knn_agreement *a)
{
    const int64_t n = data->height, nq = query->height, k = ref->width;
    const int d = data->width;
    const float *X = pa_matrix_data((pa_matrix *)data), *Q = pa_matrix_data((pa_matrix *)query);
    const int *R = pa_matrix_data((pa_matrix *)ref), *G = pa_matrix_data((pa_matrix *)got);
    long found = 0;
    *a = (knn_agreement){0, 0, 0, -1, -1, -1};
    for (int64_t q = 0; q < nq; q++) {
        int64_t xk = R[(k - 1) * nq + q];
        double dk = knn_dist(X, n, Q, nq, q, xk, d), qn = knn_norm2(Q, nq, q, d), kn = knn_norm2(X, n, xk, d);
        int same = 1;
        for (int64_t r = 0; r < k; r++) {
            int64_t i = G[r * nq + q];
            int hit = 0;
            for (int64_t t = 0; t < k; t++)
                hit |= R[t * nq + q] == i;
            found += hit;
            same &= hit;
            double bound = -1, excess = 0;
            if (i >= 0 && i < n) {
                double di = knn_dist(X, n, Q, nq, q, i, d), in = knn_norm2(X, n, i, d);
                bound = dk + ldexp(1.0, -7) * (qn + (in > kn ? in : kn));
                excess = di - dk;
                if (dk > 0 && excess / dk > a->worst_excess)
                    a->worst_excess = excess / dk;
                if (di <= bound)
                    continue;
            }
            if (a->outside++ == 0) {
                a->first_q = (long)q;
                a->first_r = (long)r;
            }
        }
        if (!same && a->mismatched_q < 0)
            a->mismatched_q = (long)q;
    }
    a->recall = (double)found / (double)(nq * k);
    return a->recall >= 0.99 && a->outside == 0;
}

#endif
