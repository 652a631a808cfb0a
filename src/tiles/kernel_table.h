/*
 * parray — the compiled gemm kernels kept per process (gemm_run.c's mma.sync and SIMT kernels, gemm_wgmma_run.c's
 * Hopper kernels and its copy kernels): a small table from a key (the layouts, shape, element type and GPU that
 * decide the generated source) to the kernel and a few bytes its maker wants back (its resources), so that a
 * repeated call costs a key, a lookup and a launch.  When full, the oldest entry is overwritten (kernels are
 * never unloaded: a pointer handed out stays valid).  Thread-safe.  Built with the CUDA backend only.
 */
#ifndef PARRAY_KERNEL_TABLE_H
#define PARRAY_KERNEL_TABLE_H

#include <pthread.h>
#include <stddef.h>

#define PA__KT_ENTRIES 32
#define PA__KT_KEY 1536       /* bytes of a key, its terminating zero included */
#define PA__KT_EXTRA 256      /* bytes kept with a kernel */

typedef struct pa__kernel_table {
    pthread_mutex_t lock;
    int n, next;
    struct pa__kt_entry {
        char key[PA__KT_KEY];
        void *fn;
        _Alignas(max_align_t) unsigned char extra[PA__KT_EXTRA];
    } e[PA__KT_ENTRIES];
} pa__kernel_table;

#define PA__KERNEL_TABLE_INIT {.lock = PTHREAD_MUTEX_INITIALIZER}

/** The kernel kept under key (and its extra bytes copied into extra, when not NULL), or NULL. */
void *pa__kt_find(pa__kernel_table *t, const char *key, void *extra, size_t extra_bytes);
/** Keeps fn under key with extra_bytes (at most PA__KT_EXTRA) of extra (NULL: zeros). */
void pa__kt_keep(pa__kernel_table *t, const char *key, void *fn, const void *extra, size_t extra_bytes);

#endif
