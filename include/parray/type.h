/*
 * parray — array types: scopes, declarations, dimensions and queries.
 *
 * A type is a memory-or-thread type (mtt), an element type and a dimension tree.  Types are declared in a
 * scope, either as text in PARRAY's notation or through the builder API below, and every dimension of a type
 * is itself a type (A, A_0, A_0_1).  Type handles (const pa_type *) are owned by their scope: they stay valid
 * until the scope is destroyed and are never freed by the caller.
 *
 * Declaration syntax (docs/types.md has the full grammar):
 *     [<int p, ...>] [mtt] [element type] dimtree
 *     dimtree  := dim {dim}                 several siblings form an implicit root
 *     dim      := '[' chain ']'
 *     chain    := ['#'] item {'#' item}     the first item gives the size (and children)
 *     item     := expr | Name_path['<' expr {',' expr} '>'] | dim {dim} | disp(expr) | func(name)
 * Examples:  "paged float [[3][3]][2]",  "[[#A_0_1][#A_0_0]][#A_1]",
 *            "<int y, int x> paged int [[2 # disp(y) # DATA_0][4 # disp(x) # DATA_1]]",  "[10 # disp(3) # [10]]".
 *
 * Offsets are in elements, as in PARRAY.  Errors are reported as described in error.h.
 */
#ifndef PARRAY_TYPE_H
#define PARRAY_TYPE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pa_scope pa_scope;
typedef struct pa_type pa_type;

/** A user offset function for func(name): maps an index to an offset. */
typedef int64_t (*pa_offset_fn)(int64_t index, void *ctx);

/** The value pa_offset() and friends return on failure (with the error set). */
#define PA_BAD_OFFSET INT64_MIN

/* ---- scopes ------------------------------------------------------------------------------------------- */

/**
 * Creates a scope.  Names not found in a scope are looked up in its parent (may be NULL).  A parent must
 * outlive its children.
 * \return PA_OK, PA_ERR_INVAL (out is NULL) or PA_ERR_NOMEM.
 */
PA_API int pa_scope_create(pa_scope *parent, pa_scope **out);

/** Destroys a scope with every type handle it gave out.  NULL is ignored. */
PA_API void pa_scope_destroy(pa_scope *scope);

/**
 * Sets an integer variable usable in size and displacement expressions.  Types that use it see the value it
 * has when a handle is taken with pa_type_get(); handles taken earlier keep the value they were made with.
 * \return PA_OK, PA_ERR_INVAL (bad name) or PA_ERR_NOMEM.
 */
PA_API int pa_scope_set_int(pa_scope *scope, const char *name, int64_t value);

/** Reads an integer variable (searching parents).  \return PA_OK or PA_ERR_NAME. */
PA_API int pa_scope_get_int(const pa_scope *scope, const char *name, int64_t *out);

/** Registers a user offset function for func(name).  \return PA_OK, PA_ERR_INVAL, PA_ERR_EXISTS or PA_ERR_NOMEM. */
PA_API int pa_scope_def_func(pa_scope *scope, const char *name, pa_offset_fn fn, void *ctx);

/**
 * Registers an element type name of the given size in bytes (1..4096), e.g. a user struct.  Built in:
 * char, short, int, long, float, double, the unsigned and fixed-width integer types, float2/float4,
 * double2, int2/int4, and bytesN for N in 1..4096.
 * \return PA_OK, PA_ERR_INVAL, PA_ERR_EXISTS or PA_ERR_NOMEM.
 */
PA_API int pa_scope_def_elm(pa_scope *scope, const char *name, size_t size);

/* ---- declarations -------------------------------------------------------------------------------------- */

/**
 * Declares a named type from its textual declaration (PARRAY's "$parray {decl} name").  References inside
 * are resolved when a handle is taken, so the referred types must exist by then (they must be declared
 * before this one).  The name must be an identifier that does not end in '_' and a digit ("A_0" names a
 * dimension of A).
 * \return PA_OK, PA_ERR_PARSE (message: declaration, column, what was expected), PA_ERR_EXISTS,
 *         PA_ERR_NAME (a referenced type is not declared), PA_ERR_INVAL or PA_ERR_NOMEM.
 */
PA_API int pa_declare(pa_scope *scope, const char *name, const char *decl);

/**
 * Reads several statements, separated by newlines or ';' ('//' starts a comment):
 *     parray <decl> NAME        or    NAME = <decl>        declares a type
 *     var NAME = <expr>                                    sets an integer variable
 * \return PA_OK or the first statement's error (the message names the line).
 */
PA_API int pa_declare_text(pa_scope *scope, const char *text);

/**
 * Takes a handle to a declared type or one of its dimensions: "A", "A_0_1", "WINDOW<1,2>", "FROM_1<n*2>".
 * Parameters are bound by the <...> list (expressions over the scope's variables).
 * \return the handle, or NULL with the error set (PA_ERR_NAME, PA_ERR_DIM, PA_ERR_PARAM, PA_ERR_PARSE,
 *         PA_ERR_RANGE for sizes that are zero, negative or overflow).
 */
PA_API const pa_type *pa_type_get(pa_scope *scope, const char *ref);

/** Parses an anonymous type ("paged int [n][4]").  \return the handle or NULL (see pa_type_get). */
PA_API const pa_type *pa_type_parse(pa_scope *scope, const char *decl);

/**
 * A dimension of a type by its path relative to the type: "0", "0_1" ("" is the type itself).
 * \return the handle, or NULL with PA_ERR_DIM.
 */
PA_API const pa_type *pa_type_dim(const pa_type *type, const char *path);

/** The i-th sub-dimension.  \return the handle, or NULL with PA_ERR_DIM. */
PA_API const pa_type *pa_type_child(const pa_type *type, int i);

/** The root type a dimension belongs to (itself for a root). */
PA_API const pa_type *pa_type_root(const pa_type *type);

/**
 * Binds the parameters of a parameterised type: a bound one, one of its dimensions, or the unbound handle that
 * pa_type_get gives for the bare name of a type with parameters ("WINDOW").  Queries on an unbound handle
 * (size, offsets, layout, copies, ...) fail with PA_ERR_PARAM; its name, mtt, element type, pa_args and pa_vars
 * answer.  \return the handle, or NULL with PA_ERR_PARAM.
 */
PA_API const pa_type *pa_type_bind(const pa_type *type, int nargs, const int64_t *args);

/**
 * The manual's "T on<mtt>": a type with T's sizes, offsets and sub-tree in another memory or thread type
 * ("dmem", "pinned", ...), named "T on<dmem>"; T itself when it already has that mtt.  Reference text takes the
 * same form: pa_type_get(s, "WINDOW<1,2> on<dmem>"), and "#A on<dmem>" in declarations.
 * \return the handle (owned by T's scope), or NULL with PA_ERR_MTT (not an mtt name), PA_ERR_PARAM (T unbound)
 *         or PA_ERR_UNSUPPORTED (T is distributed).
 */
PA_API const pa_type *pa_type_on(const pa_type *type, const char *mtt);

/** The scope a type handle belongs to. */
PA_API pa_scope *pa_type_scope(const pa_type *type);

/* ---- builder: the same trees for programs that compute their types ----------------------------------- */

typedef struct pa_builder pa_builder;
typedef struct pa_dim pa_dim;   /* a dimension under construction, owned by its builder */

/**
 * Starts building a type of the given mtt and element type (either may be NULL: unspecified) in scope.  The
 * builder ends with pa_builder_finish (which frees it) or pa_builder_destroy.
 * \return PA_OK and *out; PA_ERR_INVAL (NULL scope or out), PA_ERR_MTT, PA_ERR_ELM or PA_ERR_NOMEM.
 */
PA_API int pa_builder_start(pa_scope *scope, const char *mtt, const char *elm, pa_builder **out);
/**
 * Deprecated: pa_builder_start returning the builder (NULL with the error set on failure); removed in the next
 * release.
 */
PA_API PA_DEPRECATED("use pa_builder_start (status and out-parameter)") pa_builder *pa_builder_create(pa_scope *scope,
    const char *mtt, const char *elm);
/** Frees a builder that was not finished.  NULL is ignored. */
PA_API void pa_builder_destroy(pa_builder *b);
/** A plain dimension of the given size (0 to 2^50; 0 makes the type empty).  \return the dimension or NULL
 *  (PA_ERR_RANGE for a size outside 0..2^50). */
PA_API pa_dim *pa_dim_size(pa_builder *b, int64_t size);
/** A dimension made of n sub-dimensions (row-major; the last is contiguous).  \return the dimension or NULL. */
PA_API pa_dim *pa_dim_tree(pa_builder *b, int n, pa_dim *const *children);
/** A pure reference to a type or dimension: its size, offsets and sub-tree.  \return the dimension or NULL. */
PA_API pa_dim *pa_dim_ref(pa_builder *b, const pa_type *target);
/** Appends "# target" to a dimension's chain.  \return PA_OK or an error. */
PA_API int pa_dim_then_ref(pa_dim *d, const pa_type *target);
/** Appends "# disp(e)".  \return PA_OK or an error. */
PA_API int pa_dim_then_disp(pa_dim *d, int64_t e);
/** Appends "# step(k)": the index is multiplied by k (negative for a reversal; see docs/types.md).
 *  \return PA_OK or an error. */
PA_API int pa_dim_then_step(pa_dim *d, int64_t k);
/** Appends "# func(f)".  \return PA_OK or an error. */
PA_API int pa_dim_then_func(pa_dim *d, pa_offset_fn fn, void *ctx);
/**
 * Finishes the type with the given root; names it when name is not NULL.  The builder is freed in every case.
 * \return the handle, or NULL with the error set.
 */
PA_API const pa_type *pa_builder_finish(pa_builder *b, pa_dim *root, const char *name);

/* ---- queries ------------------------------------------------------------------------------------------- */

/** Number of elements (PARRAY's size).  \return the size, or -1 for NULL. */
PA_API int64_t pa_size(const pa_type *type);
/** Number of sub-dimensions (PARRAY's ndim), 0 for a leaf.  \return the count, or -1 for NULL. */
PA_API int pa_ndim(const pa_type *type);
/** Element type name (PARRAY's elm); "void" when unspecified.  \return the name, or NULL for NULL. */
PA_API const char *pa_elm(const pa_type *type);
/** Element size in bytes, 0 when unspecified or for NULL. */
PA_API size_t pa_elm_size(const pa_type *type);
/** Memory or thread type name (PARRAY's mtt): "paged", "dmem", "pthd", ...; "any" when unspecified. */
PA_API const char *pa_mtt(const pa_type *type);
/**
 * Offset of flat index i (PARRAY's T[i]).  \return the offset, or PA_BAD_OFFSET with PA_ERR_RANGE when i is
 * outside [0, size) or PA_ERR_INVAL for NULL.
 */
PA_API int64_t pa_offset(const pa_type *type, int64_t i);
/**
 * Offset of an N-D index: n == 1 is the flat index, n == ndim indexes the sub-dimensions (A[i][j]), and n
 * equal to the number of leaf dimensions indexes every leaf (A[[i][j]][k]).
 * \return the offset, or PA_BAD_OFFSET (PA_ERR_RANGE, PA_ERR_DIM for another n).
 */
PA_API int64_t pa_offset_nd(const pa_type *type, int n, const int64_t *idx);
/** Number of leaf dimensions under the type (1 for a leaf). */
PA_API int pa_nleaves(const pa_type *type);
/**
 * Step of contiguity (PARRAY's stp): d when T[i] = T[0] + i*d for every i, else 0.  \return the step, or 0.
 */
PA_API int64_t pa_stp(const pa_type *type);
/** PARRAY's cnt: 1 when stp is 1, else 0. */
PA_API int pa_cnt(const pa_type *type);
/** Which part of a distributed type's offset pa_offset_on() returns (PARRAY's "on <_PA_THREADMT>"). */
typedef enum pa_on {
    PA_ON_THREAD = 0,   /**< the thread-type dimensions only: the process (or thread) id of the element */
    PA_ON_LOCAL = 1     /**< the memory dimensions only: the element's offset in that process's array */
} pa_on;

/**
 * Offset of flat index i of a distributed type "on" one of its MTTs (manual §5.5, listing 40): for
 * DATA = [#PTHD][#DMEM] with PTHD = pthd [4] and DMEM = dmem float [4096], index 4098 is on thread 1 at local
 * offset 2.  The index is decomposed row-major over the dimension tree down to the dimensions whose mtt is a
 * single thread or memory type; each of them adds its own offset to the part of its kind.  For a type that
 * is not distributed, PA_ON_LOCAL is pa_offset() and PA_ON_THREAD is 0 for a memory type (every element on
 * thread 0) and pa_offset() for a thread type.
 * \return the offset, or PA_BAD_OFFSET with PA_ERR_RANGE (i outside [0, size)), PA_ERR_INVAL (NULL, bad
 *         which) or PA_ERR_UNSUPPORTED (a displacement or func on a dimension that mixes both kinds).
 */
PA_API int64_t pa_offset_on(const pa_type *type, pa_on which, int64_t i);

/** Smallest and largest offset of the type (0 and -1 for an empty type).  \return PA_OK or an error:
 *  PA_ERR_UNSUPPORTED for a type the compiler refuses whose extent would need a walk of more than 2^26 dimension
 *  visits (a func type of billions of elements). */
PA_API int pa_extent(const pa_type *type, int64_t *min_off, int64_t *max_off);

/** Number of formal parameters of the type's declaration. */
PA_API int pa_nparams(const pa_type *type);
/** PARRAY's args: "int y, int x".  \return the length written (as snprintf), or a negative error. */
PA_API int pa_args(const pa_type *type, char *buf, size_t len);
/** PARRAY's vars: "y, x".  \return as pa_args. */
PA_API int pa_vars(const pa_type *type, char *buf, size_t len);
/** PARRAY's para: the bound values, "1, 2".  \return as pa_args. */
PA_API int pa_para(const pa_type *type, char *buf, size_t len);

/** The handle's name: "WINDOW_0<1,2>", or "(anonymous)_0" for anonymous types. */
PA_API const char *pa_type_name(const pa_type *type);
/** The canonical declaration of the type's dimension tree with values bound.  \return as pa_args. */
PA_API int pa_type_format(const pa_type *type, char *buf, size_t len);
/**
 * The compiled layout in the canonical size:stride form, outermost mode first, e.g. "(80,80):(100,1)+1010";
 * gathered modes show their stride as '*'.  \return as pa_args.
 */
PA_API int pa_layout_format(const pa_type *type, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
