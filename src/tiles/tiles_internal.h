/*
 * parray — GPU tiles, inside the library: the plan of a cooperative copy between two static layouts, the text
 * builder the generators write into, and the emitters that gputile.h's calls and the tiled gemm share.
 *
 * A copy plan is what the generated copy function does, as data, so that a test without a GPU can check every
 * (thread, step, element) of it against the reference walk: the two layouts are split at each other's mode
 * boundaries (joint modes, as the copy planner does), the modes are ordered so that the "primary" side (the
 * dmem side, whose accesses must coalesce) has its smallest stride innermost, a vector of v elements is taken
 * along that innermost mode where it is contiguous, and units of v elements are dealt to the nt threads
 * round-robin: thread tid moves units tid, tid + nt, tid + 2 nt, ...  Where the layouts cannot be split at
 * each other's boundaries the plan is "generic": one element per unit, each side's offset from its own layout.
 */
#ifndef PARRAY_TILES_INTERNAL_H
#define PARRAY_TILES_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"
#include "parray/gputile.h"

/* Which memory a side of a copy is in, for the plan's choices. */
typedef enum pa__tmem { PA__TMEM_DMEM, PA__TMEM_SMEM, PA__TMEM_RMEM } pa__tmem;

#define PA__TMAX_JOINT 64
#define PA__TMAX_PRED 8

/** A joint mode of a copy: its size, both strides (elements) and its weight in the flat index. */
typedef struct pa__tjmode {
    int64_t size, dstride, sstride, kweight;
} pa__tjmode;

/** The plan of a cooperative copy dst[D(k)] = src[S(k)] over nt threads (see the top of this file). */
typedef struct pa__tcopy {
    const pa__layout *dl, *sl;    /* the two layouts (bases included in offsets) */
    pa__tmem dmem, smem;          /* the memories of dst and src */
    size_t elm;                   /* bytes per element */
    int nt;                       /* threads */
    int generic;                  /* 1: no joint split; element k's offsets from each layout */
    int nj;                       /* joint modes, outermost first in the order units are dealt */
    pa__tjmode j[PA__TMAX_JOINT];
    int v;                        /* elements per unit (along j[nj-1]) */
    int dvec, svec;               /* 1: that side moves a unit as one v*elm-byte vector */
    int64_t units, per_thread;    /* units = total / v; per_thread = ceil(units / nt) */
    int primary;                  /* 0: dst, 1: src: the side ordered for coalescing */
    int bank_ways;                /* shared-memory wavefronts per request of warp 0 (1 = conflict-free); 0 none */
    /* predicated forms: the top-level dimensions (sizes, flat weights) of the side whose edges are checked */
    int npred;
    int64_t pred_size[PA__TMAX_PRED], pred_weight[PA__TMAX_PRED];
} pa__tcopy;

/**
 * Plans a copy between two affine layouts of the same size.  The predicated forms check the npred top-level
 * dimensions of sizes pred_size (row-major over the flat index; npred 0: none).  \return PA_OK; PA_ERR_SIZE (sizes differ); PA_ERR_UNSUPPORTED (a
 * gathered layout, too many joint modes); PA_ERR_PARAM (an rmem side with more than one thread); what names
 * the copy in messages.
 */
int pa__tcopy_plan(const pa__layout *dl, pa__tmem dm, const pa__layout *sl, pa__tmem sm, size_t elm, int nt,
                   int npred, const int64_t *pred_size, const char *what, pa__tcopy *out);
/**
 * As pa__tcopy_plan with units of at most max_vec_bytes (a unit is never smaller than one element): 4 gives
 * single-float units dealt along the dmem side's contiguous mode, which is what an asynchronous copy into a
 * shared layout that cannot take vectors wants (each warp request then reads whole sectors).
 */
int pa__tcopy_plan_v(const pa__layout *dl, pa__tmem dm, const pa__layout *sl, pa__tmem sm, size_t elm, int nt,
                     int npred, const int64_t *pred_size, int max_vec_bytes, const char *what, pa__tcopy *out);

/** The top-level dimension sizes of t into size (at most PA__TMAX_PRED).  \return their count or an error. */
int pa__tpred_dims(const pa_type *t, int64_t *size, const char *what);

/**
 * The elements thread tid moves at step j (0 <= j < per_thread): for each of the unit's v elements e its flat
 * index, dst and src offsets (bases included).  \return the number of elements (0 past the last unit).
 */
int pa__tcopy_unit(const pa__tcopy *c, int tid, int64_t j, int64_t *k, int64_t *doff, int64_t *soff);

/**
 * Splits layout l at tile size t along its flat index: when the offsets of every complete or final partial
 * tile are those of tile 0 shifted (off(r*t + i) = off(r*t) + off(i) - off(0)), fills *tile with the layout
 * of [0, min(t, size)) and returns 1; else 0.
 */
int pa__tile_divide(const pa__layout *l, int64_t t, pa__layout *tile);

/* ---- text ------------------------------------------------------------------------------------------------ */

/** A growing string; on allocation failure it keeps failing (st) and the caller reports once. */
typedef struct pa__tbuf {
    char *s;
    size_t len, cap;
    int st;
} pa__tbuf;

void pa__tbuf_put(pa__tbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pa__tbuf_free(pa__tbuf *b);

/** The C++ element type declaration "typedef ... NAME;" for a type's element (a struct of bytes if unknown). */
void pa__elm_cuda_decl(const pa_type *t, const char *name, char *buf, size_t len);

/**
 * Emits a static layout struct NAME for layout l (gputile.h lists its members): elm_decl declares elm_t, elm is
 * its size, comment follows the name, extra (may be NULL) is placed before the closing brace.
 */
void pa__temit_layout(pa__tbuf *b, const char *name, const pa__layout *l, const char *elm_decl, size_t elm,
                      const char *comment, const char *extra);
/** Emits "static PA_TD it fn(it k) { return <offset of k through l>; }". */
void pa__temit_offset_fn(pa__tbuf *b, const char *fn, const pa__layout *l, const char *it);

/** Emits the copy struct NAME of plan c (load, store, copy and their predicated forms). */
void pa__temit_copy(pa__tbuf *b, const char *name, const pa__tcopy *c, const char *elm_t, const char *comment);

/* ---- the generator's internals, for the gemm ---------------------------------------------------------- */

/** Appends text to a generator's source. */
int pa__tilegen_put(pa_tilegen *g, const char *text);
/** Adds a copy between two layouts (as pa_tilegen_copy, for layouts that are not types of their own). */
int pa__tilegen_copy_layouts(pa_tilegen *g, const char *name, const pa__layout *dl, pa__tmem dm,
                             const pa__layout *sl, pa__tmem sm, const pa_type *elm_type, int nt, int npred,
                             const int64_t *pred_size, const char *comment);
/** As pa__tilegen_copy_layouts with units of at most max_vec_bytes (pa__tcopy_plan_v). */
int pa__tilegen_copy_layouts_v(pa_tilegen *g, const char *name, const pa__layout *dl, pa__tmem dm,
                               const pa__layout *sl, pa__tmem sm, const pa_type *elm_type, int nt, int npred,
                               const int64_t *pred_size, int max_vec_bytes, const char *comment);

/** The gemm's default stages (pa_gemm_config.stages 0). */
#define PA__GEMM_DEFAULT_STAGES 1
/** The parts a thread's t rows (or columns) of results lie in, for elements of esz bytes: t*esz/16 when that is
 * 2 or more (each part one 16-byte vector of the shared tile), else 2. */
int pa__gemm_parts(int t, size_t esz);
/** The gemm's kernel shape: config or the default for esz-byte elements, checked.  \return PA_OK or PA_ERR_PARAM. */
int pa__gemm_config(const pa_gemm_config *in, size_t esz, pa_gemm_config *out, const char *what);
/**
 * The gemm kernel's source for C = A B (gemm_source.c), entry "pa_gemm_kernel"; info (may be NULL) gets the
 * shape and which operands take the fast tile path.  aligned 1: the kernel may assume a and b 16-byte aligned
 * (the tile loads then move vectors without a run-time check where every tile's origin allows).  \return PA_OK and *source (the caller frees it) or an error.
 */
int pa__gemm_generate(const pa_type *C, const pa_type *A, const pa_type *B, const pa_gemm_config *config,
                      int aligned, char **source, pa_gemm_info *info);

/**
 * The source of pa_tile_dmem's kernel (tile_dmem.c; entry "pa_tile_kernel") for tiles of inner between src_o and
 * dst_o, mode PA_ITILE/PA_OTILE/PA_IOTILE, the user's source and function, an argument of words 8-byte words,
 * nt threads per block.  \return PA_OK and *out (the caller frees it); PA_ERR_NODEV without the CUDA backend.
 */
int pa__tile_dmem_source(const pa_type *src_o, const pa_type *dst_o, const pa_type *inner, int mode,
                         const char *source, const char *fn, size_t words, int nt, char **out);

/** The memory of a type for the tiles: dmem, smem, rmem; -1 with PA_ERR_MTT set for any other. */
int pa__tmem_of(const pa_type *t, const char *what);

/* ---- tensor-core fragments (mma_fragment.c) ------------------------------------------------------------ */

/** A fragment type's plan: its lane and register layouts, the vector of its load, ldmatrix, wavefronts. */
typedef struct pa__tfrag {
    int shape, op;
    int elems, words;          /* elements per lane; 32-bit registers per lane */
    size_t elm;
    pa__layout lane, reg;      /* dimension 0 (32 lanes) and 1 (register elements) of the fragment type */
    pa__tcopy copy;            /* the planner's copy of dimension 1 into a thread's registers */
    int v;                     /* elements per access of the load (1: elements) */
    int ldmatrix, trans;       /* matrices per ldmatrix (0: none) and its .trans form */
    int bank_ways;             /* shared-memory wavefronts of the warp's worst request (per matrix for ldmatrix) */
} pa__tfrag;

/** Plans the load of fragment type frag (pa_mma_fragment's) of operand op of shape.  \return PA_OK or an error. */
int pa__tfrag_plan(const pa_type *frag, int shape, int op, const char *what, pa__tfrag *out);
/** The offset in the tile of element e of lane's registers. */
int64_t pa__tfrag_off(const pa__tfrag *f, int lane, int e);
/** The offset of the row lane gives ldmatrix (f->ldmatrix set). */
int64_t pa__tfrag_ldm_off(const pa__tfrag *f, int lane);
/** The generator's (row, col) in the operand tile of element e of lane.  \return 1, or 0 for bad arguments. */
int pa__mma_coord(int shape, int op, int lane, int e, int *row, int *col);
/** Adds text under a new name with the info pa_tilegen_copy_info_of returns for it. */
int pa__tilegen_add_named(pa_tilegen *g, const char *name, const pa_tilegen_copy_info *info, const char *text,
                          const char *what);

/* ---- the gemm's shared pieces (gemm_source.c) and the tensor-core gemm (gemm_mma.c) ------------------------ */

/** The layout of a [t0][t1] tile of a matrix type (base 0), when its dimensions cut into shifted copies.  \return 1 or 0. */
int pa__gemm_tile2(const pa_type *X, int64_t t0, int64_t t1, pa__layout *out);
/** The stride of a dimension whose layout is one affine mode (1 for a single element), else 0. */
int64_t pa__gemm_single_stride(const pa_type *d);
/** 1 when every [t0][t1] tile of X starts at an offset that is a multiple of v. */
int pa__gemm_origins_aligned(const pa_type *X, int64_t t0, int64_t t1, int v);
/** Emits the tile loader struct nm (load/store, or async) of operand X (gemm_source.c's loader). */
void pa__gemm_loader(pa__tbuf *b, const char *nm, const char *X, int is_a, int fast, int async, int full,
                     int aligned, const char *sview, const char *rows, const char *cols, int units);
/** The tensor-core shape pa_gemm_dmem takes for operand A and config: PA_MMA_* or 0 (the fp32/fp64 kernel). */
int pa__gemm_mma_shape(const pa_type *A, const pa_gemm_config *config);
/** The tensor-core kernel shape: config (bm 0: the default) checked.  \return PA_OK or PA_ERR_PARAM. */
int pa__gemm_mma_config(const pa_gemm_config *in, int shape, pa_gemm_config *out, const char *what);
/* The i-th default shape of mma shape `shape` (fastest first; the last never spills): 1 and *out, 0 past the
 * list. */
int pa__gemm_mma_default(int shape, int i, pa_gemm_config *out);
/** The tensor-core kernel's source (entry "pa_gemm_kernel"), as pa__gemm_generate. */
int pa__gemm_mma_generate(const pa_type *C, const pa_type *A, const pa_type *B, const pa_gemm_config *config,
                          int shape, int aligned, char **source, pa_gemm_info *info);

/* ---- the Hopper gemm (gemm_wgmma.c: plan and source; gemm_wgmma_run.c: running it) ----------------------- */

/* How an operand reaches the wgmma kernel (gemm_wgmma.c's top comment). */
/* PA__WG_MNREG: a TF32 B with N contiguous, read by the copy engine as it is and given to wgmma from registers (the
 * kernel then computes C^T = B^T A^T: B's tile is the A operand, A's the B operand). */
enum { PA__WG_KMAJOR = 1, PA__WG_MNMAJOR = 2, PA__WG_COPY = 3, PA__WG_MNREG = 4 };

/** An operand seen as [rows][K]: element (r, k) at base + r * srow + k * sk (elements), and its form. */
typedef struct pa__wgmma_op {
    int64_t rows, k, base, srow, sk;
    int form;
} pa__wgmma_op;

/** The wgmma kernel's plan for three types. */
typedef struct pa__wgmma_plan {
    int shape, esz;
    int64_t m, n, k;
    int bm, bn, bk, ks, stages, threads, smem_bytes;   /* bm x bn: the block's tile of the product it computes
                                                        (C, or C^T when b.form is PA__WG_MNREG) */
    pa__wgmma_op a, b;
    int64_t kp;        /* the row length (elements) of a copied operand's scratch: K rounded up to 16 bytes */
    int c_pairs;       /* 1: C's columns are contiguous in aligned pairs (8-byte stores when c is 8-byte aligned) */
} pa__wgmma_plan;

/**
 * Plans the wgmma gemm for C = A B with mma shape `shape`; kmajor_only: copy an N-contiguous B into K-major
 * scratch instead of reading it with the transpose bit or into registers.  \return 1 and *out, or 0 with the
 * reason in why (the types are not for this kernel; nothing is set as an error).
 */
int pa__gemm_wgmma_plan(const pa_type *C, const pa_type *A, const pa_type *B, int shape, int kmajor_only,
                        pa__wgmma_plan *out, char *why, size_t whylen);
/** The kernel's source for plan p (entry "pa_gemm_wgmma"); c_pairs: 8-byte stores of C.  \return PA_OK or an error. */
int pa__gemm_wgmma_generate(const pa__wgmma_plan *p, const pa_type *C, int c_pairs, char **source);
/** The source of the copy of operand o into K-major scratch with rows kp elements apart (entry "pa_wgmma_kmajor"). */
char *pa__gemm_wgmma_copy_source(const pa__wgmma_op *o, int64_t kp, size_t esz);
/** pa_gemm_dmem_async's wgmma strategy (gemm_wgmma_run.c): PA_OK when it ran (queued), 1 when it does not apply
 *  (the caller takes mma.sync), or an error of the launch. */
int pa__gemm_wgmma_run(const pa_type *C, void *c, const pa_type *A, const void *a, const pa_type *B, const void *b,
                       double alpha, double beta, int shape, void *stream, pa_gemm_info *info);

#endif
