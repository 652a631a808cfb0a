/*
 * parray — the shape of a thread array, read from its thread type's dimension tree: used by every backend that
 * runs thread arrays (CPU threads, CUDA kernels, MPI process arrays).
 */
#ifndef PARRAY_TSHAPE_H
#define PARRAY_TSHAPE_H

#include <stdint.h>

#include "types.h"

/* ---- shapes of thread arrays (src/core/layout/tshape.c) ---------------------------------------------------------- */

#define PA__MAX_TNODES 64
#define PA__MAX_TPATH 24

/* A dimension of the thread type: its path, size, and the leaves under it (contiguous in row-major order). */
typedef struct pa__tnode {
    char path[PA__MAX_TPATH];   /* "" for the root, "0", "0_1" ... */
    int64_t size;
    int64_t inner;              /* product of the sizes of the leaves after this node's last leaf */
} pa__tnode;

typedef struct pa__tshape {
    int64_t n;                  /* threads */
    int nnodes;
    pa__tnode nodes[PA__MAX_TNODES];
    int nleaves;
    int64_t leaf_size[PA__MAX_TNODES];   /* row-major, the last leaf fastest */
} pa__tshape;

/** The shape of a thread type's dimension tree.  \return PA_OK or an error naming the type. */
int pa__tshape_of(const pa_type *t, pa__tshape *out);
/** Copies a shape's counted nodes and leaves (not the unused rest of its arrays). */
void pa__tshape_copy(pa__tshape *dst, const pa__tshape *src);
/** A flat shape of n threads. */
void pa__tshape_flat(int64_t n, pa__tshape *out);
/** The node of a path, or -1. */
int pa__tshape_find(const pa__tshape *s, const char *path);
/** The id of thread tid along node i (PARRAY's tid_path). */
int64_t pa__tshape_tid(const pa__tshape *s, int i, int64_t tid);
/** The barrier group of thread tid for node i: its indices outside the node, in [0, n / size(node)). */
int64_t pa__tshape_group(const pa__tshape *s, int i, int64_t tid);

#endif
