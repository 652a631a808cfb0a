/* parray tests — shared helpers: running a Check suite, a seeded random generator, status assertions. */
#ifndef PARRAY_TESTUTIL_H
#define PARRAY_TESTUTIL_H

#include <check.h>
#include <stdint.h>

#include "parray/parray.h"

/** Runs a suite (CK_NORMAL) and returns the process exit status: 0 when every test passed. */
int pa_test_run(Suite *s);

/** A small seeded generator (splitmix64), so that failures can be replayed from the printed seed. */
typedef struct pa_rng { uint64_t s; } pa_rng;
uint64_t pa_rng_next(pa_rng *r);
/** Uniform in [lo, hi]. */
int64_t pa_rng_range(pa_rng *r, int64_t lo, int64_t hi);
/** The seed from PA_TEST_SEED (test_seed.h: a fixed default when unset, the clock's with "random"); printed to
 *  stderr either way. */
uint64_t pa_test_seed(const char *what);

/**
 * 1 when a GPU is usable, asked in a child process: Check runs each test in a forked child, and a CUDA context
 * made in this process before the fork would be unusable there (cudaErrorInitializationError).
 */
int pa_test_gpu_present(void);
/**
 * For a GPU suite's main(): 1 after printing "SUITE: skipped: no usable GPU ..." when none is usable (main then
 * returns 77, meson's skip), 0 when one is.
 */
int pa_test_skip_without_gpu(const char *suite);
/**
 * 1 when this library has the backend called name built in or registered (switched on or not), or was built
 * with the optional library name ("numa", "hwloc", "nvtx", "openmp"), 0 when not:
 * asked of the library at run time, so that a test follows the library it runs against, not the configuration
 * it was compiled with.
 */
int pa_test_built(const char *name);
/** 1 when the kernel has NUMA system calls (what libnuma's numa_available() >= 0 says), without libnuma. */
int pa_test_numa_machine(void);
/** The highest NUMA node online (/sys/devices/system/node/online), 0 when it cannot be read. */
int pa_test_numa_max_node(void);
/** The number of usable GPUs, asked in a child process as pa_test_gpu_present does (0 without the backend). */
int pa_test_gpu_count(void);

/**
 * For a source that makes two suites, one for machines with GPUs and one for machines without (tests/meson.build
 * passes "gpu" or "nogpu" as the program's argument): 1 when the argument asks for the GPU member, 0 for the
 * other.  Where the member asked for cannot check anything on this machine it prints why and exits 77
 * (skipped), so that neither member passes without asserting: `what` names the suite in that line.
 */
int pa_test_member(int argc, char **argv, const char *what);

/**
 * A Check fixture for suites that compile kernels: a fresh temporary directory as PA_KERNEL_CACHE
 * (pa_test_cache_dir names it), removed with its contents by the teardown.
 */
void pa_test_cache_setup(void);
void pa_test_cache_teardown(void);
const char *pa_test_cache_dir(void);

/** The strategy the planner chooses for st -> dt (pa_copy_query's name, the one explain prints), into out. */
void pa_test_strategy_of(const pa_type *dt, const pa_type *st, char *out, size_t len);

/** One past the largest element offset of t (its buffer's length in elements from offset 0). */
int64_t pa_test_extent(const pa_type *t);

/**
 * Moves n elements between host memory and an array of t's memory type (any: dmem through a contiguous
 * pa_copy, host memory by memcpy), to the array when to_arr.  Types are declared in scope s.
 */
void pa_test_flat_copy(pa_scope *s, const pa_type *t, void *arr, unsigned char *host, int64_t n, int to_arr);

/**
 * What a copy dt <- st between two arrays (any memory types) must leave: pa_test_pair_fill fills the source
 * array's whole extent with random bytes, poisons the destination's with 0xA5, and works out from the reference
 * walk what every byte of the destination's extent must hold after the copy; pa_test_pair_diff reads the
 * destination back and returns the first byte that differs (got[i] against want[i]), or -1.
 */
typedef struct pa_test_pair {
    unsigned char *src, *want, *got;   /* host images: the source's extent, the destination's (twice) */
    int64_t dbytes;
} pa_test_pair;
void pa_test_pair_fill(pa_test_pair *c, pa_scope *s, pa_rng *rng, const pa_type *dt, void *dst, const pa_type *st,
                       void *src);
int64_t pa_test_pair_diff(pa_test_pair *c, pa_scope *s, const pa_type *dt, void *dst);
void pa_test_pair_free(pa_test_pair *c);

/** Asserts that a status is PA_OK and prints pa_last_error() when it is not. */
#define PA_CK_OK(expr)                                                                                   \
    do {                                                                                                 \
        int pa__st = (expr);                                                                             \
        ck_assert_msg(pa__st == PA_OK, "%s returned %s: %s", #expr, pa_status_name(pa__st),            \
                      pa_last_error());                                                                  \
    } while (0)

/** Asserts that a status equals an expected error code and that a message was set. */
#define PA_CK_ERR(expr, code)                                                                            \
    do {                                                                                                 \
        pa_error_clear();                                                                                \
        int pa__st = (expr);                                                                             \
        ck_assert_msg(pa__st == (code), "%s returned %s, expected %s (%s)", #expr,                      \
                      pa_status_name(pa__st), pa_status_name(code), pa_last_error());                   \
        ck_assert_msg(pa_last_error()[0] != '\0', "%s set no message", #expr);                          \
    } while (0)

#endif
