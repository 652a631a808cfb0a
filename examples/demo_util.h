/*
 * demo — helpers shared by the demo's files: output, checks and the timed copies.
 */
#ifndef PARRAY_DEMO_UTIL_H
#define PARRAY_DEMO_UTIL_H

#include <stdint.h>

#include <parray/parray.h>

typedef struct demo_options {
    int quick;   /* small arrays, few runs */
    int runs;    /* timed repetitions; the median is reported */
} demo_options;

/* The number of checks that failed so far; the exit status is 0 only when it stays 0. */
extern int demo_failures;

/* Prints a section header. */
void demo_section(const char *title);

/* Prints "ok" or "FAILED" before the formatted description of a check, and counts failures. */
void demo_check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints what failed with the library's last error message and exits with status 1. */
void demo_die(const char *what) __attribute__((noreturn));

/* pa_type_get that dies on failure. */
const pa_type *demo_get(pa_scope *scope, const char *ref);

/* pa_scope_set_int that dies on failure. */
void demo_set(pa_scope *scope, const char *name, int64_t value);

/* The value a verified copy must leave at a destination index, for 4-byte elements filled with their index. */
typedef uint32_t (*demo_expect_fn)(int64_t dst_index, const int64_t *shape);

/* dst_index = i + j*n of XT holds X(i, j) = i*n + j (shape: n). */
uint32_t demo_verify_transpose(int64_t dst_index, const int64_t *shape);

/* dst_index = i*W + j of PLAIN holds DATA(i + D, j + D) (shape: N, W, D). */
uint32_t demo_verify_window(int64_t dst_index, const int64_t *shape);

/*
 * Creates arrays of both types (4-byte elements), fills the source with each element's index and poisons the
 * destination, copies once and checks every destination element with expect, then prints the copy plan and
 * the median time and bandwidth of pa_copy (default threads, then one thread) and of memcpy of the same bytes.
 */
void demo_bench_pair(const demo_options *opt, const pa_type *dst_t, const pa_type *src_t, const char *label,
                     demo_expect_fn expect, const int64_t *shape);

/* The GPU section (demo_cuda.c): run when pinned and dmem memory are usable. */
void demo_bandwidth_cuda(pa_scope *scope, const demo_options *opt);

#endif
