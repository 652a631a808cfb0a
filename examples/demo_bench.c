/*
 * demo — output helpers, checks and timed copies (see demo.c).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "demo_util.h"

void demo_section(const char *title)
{
    printf("\n== %s ==\n", title);
}

void demo_check(int ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("  %-6s ", ok ? "ok" : "FAILED");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    if (!ok)
        demo_failures++;
}

void demo_die(const char *what)
{
    fflush(stdout);
    fprintf(stderr, "demo: %s failed: %s\n", what, pa_last_error());
    exit(1);
}

const pa_type *demo_get(pa_scope *scope, const char *ref)
{
    const pa_type *t = pa_type_get(scope, ref);
    if (t == NULL)
        demo_die(ref);
    return t;
}

void demo_set(pa_scope *scope, const char *name, int64_t value)
{
    if (pa_scope_set_int(scope, name, value) != PA_OK)
        demo_die(name);
}

uint32_t demo_verify_transpose(int64_t dst_index, const int64_t *shape)
{
    int64_t n = shape[0], i = dst_index % n, j = dst_index / n;
    return (uint32_t)(i * n + j);
}

uint32_t demo_verify_window(int64_t dst_index, const int64_t *shape)
{
    int64_t big = shape[0], w = shape[1], d = shape[2];
    return (uint32_t)((dst_index / w + d) * big + dst_index % w + d);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One timed operation: a pa_copy between two types, or (when the types are NULL) a memcpy of bytes. */
struct job {
    const pa_type *dst_t, *src_t;
    void *dst;
    const void *src;
    size_t bytes;
};

static double median_seconds(const demo_options *opt, const struct job *job)
{
    double t[16];
    int runs = opt->runs < 16 ? opt->runs : 16;
    for (int r = -1; r < runs; r++) {   /* run -1 warms the caches and the plan cache up */
        double t0 = now();
        if (job->dst_t == NULL)
            memcpy(job->dst, job->src, job->bytes);
        else if (pa_copy(job->dst_t, job->dst, job->src_t, job->src) != PA_OK)
            demo_die("pa_copy");
        if (r >= 0)
            t[r] = now() - t0;
    }
    qsort(t, (size_t)runs, sizeof t[0], cmp_double);
    return t[runs / 2];
}

static void print_row(const char *what, size_t bytes, double sec)
{
    printf("    %-26s %8.1f MiB %10.3f ms %8.2f GB/s\n", what, (double)bytes / (1 << 20), sec * 1e3,
           (double)bytes / sec * 1e-9);
}

/* Copies once into a poisoned destination and compares every element.  \return the number of mismatches. */
static int64_t copy_and_verify(const pa_type *dst_t, uint32_t *dst, const pa_type *src_t, const uint32_t *src,
                               demo_expect_fn expect, const int64_t *shape)
{
    memset(dst, 0xff, pa_alloc_bytes(dst_t));
    int rc = pa_copy(dst_t, dst, src_t, src);
    if (rc != PA_OK) {
        demo_check(0, "pa_copy(%s, %s): %s: %s", pa_type_name(dst_t), pa_type_name(src_t), pa_status_name(rc),
                   pa_last_error());
        return -1;
    }
    int64_t bad = 0, size = pa_size(dst_t);
    for (int64_t k = 0; k < size; k++) {
        if (dst[k] != expect(k, shape) && bad++ == 0)
            printf("    first wrong element: dst[%lld] = %u, expected %u\n", (long long)k, (unsigned)dst[k],
                   (unsigned)expect(k, shape));
    }
    return bad;
}

void demo_bench_pair(const demo_options *opt, const pa_type *dst_t, const pa_type *src_t, const char *label,
                     demo_expect_fn expect, const int64_t *shape)
{
    char decl[256], plan[512];
    if (pa_elm_size(dst_t) != 4 || pa_elm_size(src_t) != 4)
        demo_die("demo_bench_pair: 4-byte elements");
    if (pa_type_format(src_t, decl, sizeof decl) < 0 || pa_copy_explain(dst_t, src_t, plan, sizeof plan) < 0)
        demo_die(label);
    printf("\n  %s, where %s = %s\n    plan: %s\n", label, pa_type_name(src_t), decl, plan);

    uint32_t *src = pa_create(src_t), *dst = pa_create(dst_t);
    if (src == NULL || dst == NULL)
        demo_die("pa_create");
    size_t src_elems = pa_alloc_bytes(src_t) / 4, bytes = (size_t)pa_size(dst_t) * 4;
    for (size_t k = 0; k < src_elems; k++)
        src[k] = (uint32_t)k;

    int64_t bad = copy_and_verify(dst_t, dst, src_t, src, expect, shape);
    if (bad >= 0)
        demo_check(bad == 0, "every element checked: %lld of %lld wrong", (long long)bad,
                   (long long)pa_size(dst_t));
    if (bad == 0) {
        struct job copy = {dst_t, src_t, dst, src, bytes}, mem = {NULL, NULL, dst, src, bytes};
        print_row("pa_copy, default threads", bytes, median_seconds(opt, &copy));
        pa_copy_set_threads(1);
        print_row("pa_copy, one thread", bytes, median_seconds(opt, &copy));
        pa_copy_set_threads(0);
        print_row("memcpy of the same bytes", bytes, median_seconds(opt, &mem));
    }
    pa_destroy(src_t, src);
    pa_destroy(dst_t, dst);
}
