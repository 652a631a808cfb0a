/*
 * parray — the type model's internal structures: declarations (parsed syntax), instances (dimension trees
 * with every size, displacement and reference resolved) and scopes.
 */
#ifndef PARRAY_TYPE_INTERNAL_H
#define PARRAY_TYPE_INTERNAL_H

#include "types.h"

#define PA__MAX_CHILDREN 10     /* the manual: at most 10 sub-dimensions per dimension */
#define PA__MAX_DEPTH 32        /* nesting of brackets and of references */
#define PA__MAX_NODES 4096      /* nodes in one instance, inherited sub-trees included */
#define PA__MAX_SIZE (INT64_C(1) << 50)
/* Every offset a type gives lies within +-PA__MAX_OFFSET: sums of a few of them never overflow 64 bits, and
 * PA_BAD_OFFSET (INT64_MIN) is never a real offset. */
#define PA__MAX_OFFSET (INT64_C(1) << 62)

/* ---- lexer (lexer.c) ---- */

typedef enum { PA__T_EOF, PA__T_IDENT, PA__T_NUM, PA__T_PUNCT } pa__tkind;
typedef struct pa__lexer {
    const char *src;
    size_t pos;
    pa__tkind kind;             /* the current token */
    char punct;
    char ident[128];
    int64_t num;
    int col;                    /* 1-based column of the current token */
    int err;
} pa__lexer;

void pa__lex_init(pa__lexer *lx, const char *src);
int pa__lex_next(pa__lexer *lx);
int pa__lex_is(const pa__lexer *lx, char punct);
/** Peeks at the next non-blank character after the current token. */
char pa__lex_peekc(const pa__lexer *lx);
int pa__syntax(const pa__lexer *lx, const char *expected);

/* ---- expressions (expr.c) ---- */

typedef enum { PA__X_NUM, PA__X_VAR, PA__X_SIZE, PA__X_NEG, PA__X_ADD, PA__X_SUB, PA__X_MUL, PA__X_DIV,
               PA__X_MOD } pa__xkind;

typedef struct pa__expr {
    pa__xkind kind;
    int64_t num;
    char *name;                 /* VAR: variable or parameter; SIZE: type reference text */
    struct pa__expr *a, *b;
    int col;
} pa__expr;

struct pa__inst;
/* What names in an expression resolve to while an instance is being made. */
typedef struct pa__env {
    pa_scope *scope;
    const struct pa__decl *decl;  /* its parameters */
    const int64_t *args;
    const char *text;           /* the declaration text, for messages */
    int uses_vars;              /* set when a scope variable was read */
} pa__env;

int pa__parse_expr(pa__lexer *lx, pa__expr **out);
void pa__expr_free(pa__expr *e);
int pa__expr_eval(const pa__expr *e, pa__env *env, int64_t *out);
int pa__expr_format(const pa__expr *e, char *buf, size_t len);

/* ---- declarations (parser.c) ---- */

typedef enum { PA__I_EXPR, PA__I_REF, PA__I_DIMS, PA__I_DISP, PA__I_FUNC, PA__I_STEP } pa__ikind;

struct pa__adim;
typedef struct pa__item {
    pa__ikind kind;
    pa__expr *expr;             /* EXPR: size; DISP: displacement; STEP: factor */
    char *ref;                  /* REF: "A_0_1" */
    pa__expr **args;            /* REF: <...> */
    int nargs;
    const pa_type *target;      /* REF made by the builder */
    struct pa__adim **dims;     /* DIMS */
    int ndims;
    char *func;                 /* FUNC by name */
    pa_offset_fn fn;            /* FUNC made by the builder */
    void *fn_ctx;
    char *on;                   /* REF: "T on<mtt>", the memory or thread type asked for, else NULL */
    int col;
} pa__item;

typedef struct pa__adim {
    pa__item *items;
    int nitems;
    int col;
} pa__adim;

typedef struct pa__decl {
    char *name;                 /* NULL when anonymous */
    char *text;
    int nparams;
    char **pnames, **ptypes;
    char *mtt;                  /* NULL when unspecified */
    char *elm;
    size_t elm_size;
    pa__adim *root;
    pa_scope *scope;
    struct pa__inst *insts;     /* instances made from it (a list) */
    struct pa__inst *unbound;   /* the handle of its bare name when it has parameters (pa_type_get "T") */
    struct pa__decl *next;      /* in its scope */
} pa__decl;

int pa__parse_decl(pa_scope *scope, const char *text, pa__decl **out);
/** Reads "on <mtt>" when it stands at the lexer (else nothing); *on gets a copy of the mtt name. */
int pa__parse_on(pa__lexer *lx, char **on);
void pa__decl_free(pa__decl *d);
void pa__adim_free(pa__adim *d);

/* ---- instances (instance.c) ---- */

typedef enum { PA__F_DISP, PA__F_REF, PA__F_FUNC, PA__F_STEP } pa__fkind;
typedef struct pa__fn {
    pa__fkind kind;
    int64_t disp;               /* DISP: added to the index; STEP: the index is multiplied by it */
    const pa_type *target;
    pa_offset_fn fn;
    void *ctx;
    const char *fname;          /* FUNC: the name it was declared with, or NULL */
} pa__fn;

/* A live type node's mark; a node whose scope was destroyed has 0 there (src/core/types/type_nodes.c). */
#define PA__TYPE_LIVE 0x7479706550415241ull

struct pa_type {
    uint64_t live;              /* PA__TYPE_LIVE while its scope lives: stale handles are told apart */
    struct pa__inst *inst;
    struct pa_type *parent;
    struct pa_type **child;
    int nchild;
    int index;                  /* position among its siblings */
    int64_t size;
    int64_t stride_in_parent;   /* product of the later siblings' sizes */
    pa__fn *fn;                 /* the chain after the size */
    int nfn;
    int fixed;                  /* the chain holds a reference or func: offsets are final */
    const pa_type *alias;       /* a pure reference: evaluates exactly as its target */
    int on;                     /* made by on<mtt>: an alias of the same dimension in another mtt */
    const char *mtt;
    const char *elm;
    size_t elm_size;
    int nleaves;
    char *name;
    struct pa__layout *layout;  /* compiled on first use (layout.c) */
    int layout_status;          /* the error of a compilation that failed, kept so it is not retried */
    /* What the layers above keep on a node, each with the function that frees it, set with it by the layer
     * that made it: the node frees them without calling up into those layers by name. */
    struct pa__dist_split *dist;  /* the split into process and local layouts, made on first use (dist.c) */
    void (*dist_free)(struct pa__dist_split *d);
    struct pa__pieces *pieces;  /* piecewise-affine form, made on first use when needed (layout_pieces.c) */
    void (*pieces_free)(struct pa__pieces *p);
    int pieces_done;            /* 1 once pieces was asked for (NULL then: none) */
    int walk_extent_done;       /* pa_extent of a refused type without pieces: walked once (1), or refused as
                                 * too costly a walk (2: PA_ERR_UNSUPPORTED at every call, not walked again) */
    int64_t walk_lo, walk_hi;
    int64_t **tables;           /* gather tables owned by this node's layout */
    int ntables;
    struct pa_type *next_alloc; /* every node of an instance, for freeing */
    uint64_t serial;            /* unique in the process (pa__type_serial) */
};

typedef struct pa__inst {
    pa__decl *decl;             /* NULL for a builder type */
    int64_t *args;
    int nargs;
    pa_type *root;
    pa_type *nodes;             /* all nodes */
    int nnodes;
    int uses_vars;
    int has_func;               /* a func is reachable: offsets are asked of the user on demand */
    int unbound;                /* a parameterised type's bare name: only pa_type_bind and names answer */
    uint64_t var_gen;           /* the scope's variable generation it was made with */
    struct pa__inst *next;      /* in its decl (or the scope's list of builder/anonymous instances) */
} pa__inst;

/** The instance of a declaration for the given arguments and the scope's current variables. */
/** Invalidates instances that read scope variables (called when any variable is set). */
void pa__bump_var_generation(void);
int pa__inst_get(pa__decl *d, const int64_t *args, int nargs, pa__inst **out);
void pa__inst_free(pa__inst *in);
/** Resolves "Name_0_1" to a declaration and a path (digits), searching the scope and its parents. */
int pa__split_ref(pa_scope *s, const char *ref, pa__decl **d, int *path, int *depth);
/**
 * The one rule for dimension paths (pa_type_dim, pa_tid_path, pa_sync, pa_dev_node, "A_0_1" in references):
 * "" (the type itself) or digits joined by single '_' ("0", "0_1").  \return the number of digits (written to
 * idx), or -1 for anything else ("_0", "0_", "_", "01", more than max levels).
 */
int pa__dim_path(const char *path, int *idx, int max);
/** Follows a path of child indices from a node.  NULL with PA_ERR_DIM when a step does not exist. */
const pa_type *pa__node_path(const pa_type *t, const int *path, int depth, const char *what);
/** The unbound handle of a declaration with parameters (made once, kept with the declaration). */
int pa__inst_unbound(pa__decl *d, pa__inst **out);
/** T on<mtt>: the same offsets, sizes and sub-tree in another memory or thread type (query.c). */
const pa_type *pa__type_on(const pa_type *t, const char *mtt);
/** Makes an instance of a declaration tree built in memory (builder); takes ownership of d. */
int pa__inst_from_decl(pa__decl *d, pa__inst **out);

/* ---- type nodes (type_nodes.c) ---- */

/** A zeroed node from the pool, marked live.  NULL when out of memory. */
pa_type *pa__node_alloc(void);
/** Marks a node dead and returns it to the pool (its own allocations must be freed already). */
void pa__node_release(pa_type *n);

/* ---- scopes (scope.c, name_index.c) ---- */

/* A hash table from a name to what it names; the key is owned by the value (name_index.c). */
typedef struct pa__names {
    size_t cap, n;
    struct { const char *key; void *val; } *slot;
} pa__names;

/** What key names, or NULL. */
void *pa__names_get(const pa__names *h, const char *key);
/** Adds a name that is not there yet.  \return PA_OK or PA_ERR_NOMEM (nothing added). */
int pa__names_put(pa__names *h, const char *key, void *val);
void pa__names_free(pa__names *h);

struct pa_scope {
    pa_scope *parent;
    pthread_mutex_t lock;       /* recursive: guards everything below, and lazy layouts */
    struct pa__var { char *name; int64_t value; struct pa__var *next; } *vars;
    struct pa__func { char *name; pa_offset_fn fn; void *ctx; struct pa__func *next; } *funcs;
    struct pa__elm { char *name; size_t size; struct pa__elm *next; } *elms;
    pa__decl *decls;
    pa__decl *anon;             /* anonymous and builder declarations */
    pa__names decl_names, var_names, func_names, elm_names;   /* the four lists above, by name */
};

/** Adds a named declaration to a scope (its name must be new there).  \return PA_OK or PA_ERR_NOMEM. */
int pa__scope_add_decl(pa_scope *s, pa__decl *d);

void pa__scope_lock(pa_scope *s);
void pa__scope_unlock(pa_scope *s);
pa__decl *pa__scope_find_decl(pa_scope *s, const char *name);
int pa__scope_find_func(pa_scope *s, const char *name, pa_offset_fn *fn, void **ctx);
/** Size of an element type name (built in or registered), or 0 when unknown. */
size_t pa__scope_elm_size(pa_scope *s, const char *name);
/** A valid type or variable name: an identifier not ending in "_<digit>". */
int pa__valid_name(const char *name);
char *pa__strdup(const char *s);
int64_t pa__floor_mod(int64_t a, int64_t m);

#endif
