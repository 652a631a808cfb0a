/*
 * parray — the reference semantics of offsets: evaluating an index by walking the dimension tree.
 *
 * Every dimension turns its index into a "regular" position: a leaf's position is its index; a dimension with
 * sub-dimensions adds its children's positions, each scaled by the product of the later siblings' sizes (row
 * major).  A dimension with a chain (# disp(e), # T, # func(f)) then transforms its position: disp adds e, a
 * reference to T evaluates T at the position modulo T's size, func calls the user's function.  When the chain
 * holds a reference or a func the result is final ("whenever there is a type reference the offset of that
 * dimension will be fixed"): it is added to the offset and no dimension above transforms it.  Otherwise the
 * result is still a regular position and travels up.  A pure reference (alias) evaluates exactly as its target.
 * Positions that reach the root untransformed are offsets themselves.
 *
 * This walk is the oracle for the compiled layouts (layout_compile.c) that the copy planner uses.
 */
#include "layout.h"
#include "type_internal.h"

#define DEFAULT_CAP (INT64_C(1) << 22)   /* 32 MiB of offsets; about 30 ms of visits */

int64_t pa__table_cap = DEFAULT_CAP, pa__walk_cap = DEFAULT_CAP;

void pa__layout_set_limits(int64_t table_cap, int64_t walk_cap)
{
    pa__table_cap = table_cap >= 1 ? table_cap : DEFAULT_CAP;
    pa__walk_cap = walk_cap >= 1 ? walk_cap : DEFAULT_CAP;
}

/* Visits the fast walk may still make on this thread (< 0: unlimited); see pa__walk_budget_begin. */
static _Thread_local int64_t walk_budget = -1;

int64_t pa__walk_budget_begin(int64_t visits)
{
    int64_t saved = walk_budget;
    walk_budget = saved >= 0 && saved < visits ? saved : visits;
    return saved;
}

int pa__walk_budget_spent(void)
{
    return walk_budget == 0;
}

int pa__walk_budget_end(int64_t saved)
{
    int spent = walk_budget == 0;
    /* A nested table spends its caller's budget; an outermost one leaves the walk unlimited again. */
    walk_budget = saved >= 0 ? walk_budget : -1;
    return spent ? PA_ERR_UNSUPPORTED : PA_OK;
}

typedef struct walkval {
    int64_t reg;      /* regular position in the dimension's own index units */
    int64_t fixed;    /* final offsets already determined */
    int touched;      /* 1 when some leaf below contributes a regular position */
    int bad;          /* 1 when a step overflowed 64 bits: the offset does not exist */
} walkval;

/* Checked steps of the walk: an overflow marks the value bad instead of wrapping (undefined in C). */
static inline int64_t add_ck(int64_t a, int64_t b, int *bad)
{
    int64_t r;
    *bad |= __builtin_add_overflow(a, b, &r);
    return r;
}

static inline int64_t mul_ck(int64_t a, int64_t b, int *bad)
{
    int64_t r;
    *bad |= __builtin_mul_overflow(a, b, &r);
    return r;
}

static int64_t node_offset(const pa_type *t, int64_t i, int fast);

/* fast: references are evaluated through their target's compiled layout (made once, memoized) instead of
 * walking the target again; the compiler uses it to fill tables, where nested references would otherwise
 * be walked once per entry at every level.  The oracle (fast = 0) never touches compiled layouts. */
static int64_t target_offset(const pa_type *t, int64_t x, int fast, int *bad)
{
    const pa__layout *l = fast && !t->inst->has_func ? pa__type_layout(t) : NULL;
    int64_t o = l ? pa__layout_offset(l, x) : node_offset(t, x, fast);
    *bad |= o == PA_BAD_OFFSET;
    return o;
}

static int64_t apply_chain(const pa_type *n, int64_t x, int fast, int *bad)
{
    for (int k = 0; k < n->nfn && !*bad; k++) {
        const pa__fn *f = &n->fn[k];
        switch (f->kind) {
        case PA__F_DISP: x = add_ck(x, f->disp, bad); break;
        case PA__F_STEP: x = mul_ck(x, f->disp, bad); break;
        case PA__F_REF: x = target_offset(f->target, pa__floor_mod(x, f->target->size), fast, bad); break;
        case PA__F_FUNC:
            x = f->fn(x, f->ctx);
            *bad |= x < -PA__MAX_OFFSET || x > PA__MAX_OFFSET;
            break;
        }
    }
    return x;
}

static walkval rec(const pa_type *n, int64_t j, int fast)
{
    walkval v = {0, 0, 0, 0};
    if (fast && walk_budget >= 0) {
        if (walk_budget == 0)
            return v;              /* the table being filled is refused; its values no longer matter */
        walk_budget--;
    }
    if (n->alias) {
        v.fixed = target_offset(n->alias, j, fast, &v.bad);
        return v;
    }
    if (n->nchild == 0) {
        v.reg = j;
        v.touched = 1;
    }
    for (int c = n->nchild - 1; c >= 0; c--) {
        const pa_type *ch = n->child[c];
        walkval w = rec(ch, j % ch->size, fast);
        j /= ch->size;
        v.bad |= w.bad;
        v.fixed = add_ck(v.fixed, w.fixed, &v.bad);
        if (w.touched) {
            v.reg = add_ck(v.reg, mul_ck(w.reg, ch->stride_in_parent, &v.bad), &v.bad);
            v.touched = 1;
        }
    }
    if (n->nfn && v.touched && !v.bad) {
        int64_t x = apply_chain(n, v.reg, fast, &v.bad);
        if (n->fixed) {
            v.fixed = add_ck(v.fixed, x, &v.bad);
            v.reg = 0;
            v.touched = 0;
        } else {
            v.reg = x;
        }
    }
    return v;
}

/* The offset, or PA_BAD_OFFSET when a step overflows 64 bits or the result lies outside
 * [-PA__MAX_OFFSET, PA__MAX_OFFSET] (then with PA_ERR_RANGE set, naming the type and the index). */
static int64_t node_offset(const pa_type *t, int64_t i, int fast)
{
    walkval v = rec(t, i, fast);
    int64_t reg = v.reg, off = v.fixed;
    if (v.touched && !v.bad) {
        /* The regular position travels up until a chain fixes it or it reaches the root. */
        const pa_type *n = t;
        for (; n->parent && !v.bad; n = n->parent) {
            const pa_type *p = n->parent;
            reg = mul_ck(reg, n->stride_in_parent, &v.bad);
            if (p->nfn && !v.bad) {
                reg = apply_chain(p, reg, fast, &v.bad);
                if (p->fixed)
                    break;
            }
        }
        off = add_ck(v.fixed, reg, &v.bad);
    }
    if (v.bad || off < -PA__MAX_OFFSET || off > PA__MAX_OFFSET) {
        pa__err(PA_ERR_RANGE, "%s: the offset of index %lld overflows (offsets must lie within +-2^62)", t->name,
                (long long)i);
        return PA_BAD_OFFSET;
    }
    return off;
}

int64_t pa__node_offset(const pa_type *t, int64_t i)
{
    return node_offset(t, i, 0);
}

int64_t pa__node_offset_fast(const pa_type *t, int64_t i)
{
    return node_offset(t, i, 1);
}

int64_t pa__offset_walk(const pa_type *t, int64_t i)
{
    return pa__node_offset(t, i);
}
