/*
 * parray — what a thread asks of its context: tid (overall and per dimension path), size, self, its parent,
 * and sync over a dimension path.
 */
#include <stdlib.h>

#include "thread_internal.h"

int64_t pa_tid(const pa_ctx *ctx)
{
    return ctx ? ctx->tid : 0;
}

int64_t pa_ctx_size(const pa_ctx *ctx)
{
    return ctx ? ctx->ext ? ctx->ext->size : ctx->launch->shape.n : 1;
}

const pa_type *pa_self(const pa_ctx *ctx)
{
    return ctx ? ctx->ext ? ctx->ext->self : ctx->launch->self : NULL;
}

/* tid_path in another backend's array: from the shape of its thread type. */
static int64_t ext_tid_path(const pa_ctx *ctx, const char *path)
{
    pa__tshape shape;
    const pa_type *self = ctx->ext->self;
    if (!self || pa__tshape_of(self, &shape) != PA_OK)
        return path[0] ? pa__err(PA_ERR_DIM, "pa_tid_path(\"%s\"): the array's thread type is unknown", path), -1
                       : ctx->tid;
    int i = pa__tshape_find(&shape, path);
    if (i < 0)
        return pa__err(PA_ERR_DIM, "pa_tid_path(\"%s\"): thread type %s has no dimension %s_%s", path,
                       pa_type_name(self), pa_type_name(self), path), -1;
    return pa__tshape_tid(&shape, i, ctx->tid);
}

const pa_ctx *pa_ctx_parent(const pa_ctx *ctx)
{
    return ctx ? ctx->parent : NULL;
}

static int find_path(const pa_ctx *ctx, const char *path, const char *what)
{
    int i = pa__tshape_find(&ctx->launch->shape, path);
    if (i < 0) {
        const pa_type *self = ctx->launch->self;
        return pa__err(PA_ERR_DIM, "%s(\"%s\"): thread type %s has no dimension %s_%s (it has %d dimension%s "
                       "in all)", what, path, self ? pa_type_name(self) : "(internal)",
                       self ? pa_type_name(self) : "T", path, ctx->launch->shape.nnodes,
                       ctx->launch->shape.nnodes == 1 ? "" : "s");
    }
    return i;
}

/* sync in another backend's array: the group of this thread for the path, from its thread type's shape. */
static int ext_sync(pa_ctx *ctx, const char *path)
{
    pa__tshape shape;
    const pa_type *self = ctx->ext->self;
    if (!path[0])
        return ctx->ext->sync(ctx->ext, ctx->tid, -1, path);
    if (!self || pa__tshape_of(self, &shape) != PA_OK)
        return pa__err(PA_ERR_DIM, "pa_sync(\"%s\"): the array's thread type is unknown", path);
    int i = pa__tshape_find(&shape, path);
    if (i < 0)
        return pa__err(PA_ERR_DIM, "pa_sync(\"%s\"): thread type %s has no dimension %s_%s", path,
                       pa_type_name(self), pa_type_name(self), path);
    return ctx->ext->sync(ctx->ext, ctx->tid, pa__tshape_group(&shape, i, ctx->tid), path);
}

int64_t pa_tid_path(const pa_ctx *ctx, const char *path)
{
    if (ctx == NULL || path == NULL)
        return pa__err(PA_ERR_INVAL, "pa_tid_path: %s is NULL", ctx ? "path" : "ctx"), -1;
    if (ctx->ext)
        return ext_tid_path(ctx, path);
    int i = find_path(ctx, path, "pa_tid_path");
    if (i < 0)
        return -1;
    return pa__tshape_tid(&ctx->launch->shape, i, ctx->tid);
}

/* The barriers of node i, made by the first thread that syncs on it. */
static pa__barrier *node_barriers(pa__launch *l, int i)
{
    pa__barrier *b = atomic_load_explicit(&l->barriers[i], memory_order_acquire);
    if (b != NULL)
        return b;
    pthread_mutex_lock(&l->mu);
    b = atomic_load_explicit(&l->barriers[i], memory_order_relaxed);
    if (b == NULL) {
        int64_t need = l->shape.nodes[i].size;
        int64_t ngroups = l->shape.n / need;
        b = malloc((size_t)ngroups * sizeof *b);
        if (b != NULL) {
            for (int64_t g = 0; g < ngroups; g++)
                pa__barrier_init(&b[g], need);
            atomic_store_explicit(&l->barriers[i], b, memory_order_release);
        }
    }
    pthread_mutex_unlock(&l->mu);
    return b;
}

int pa_sync(pa_ctx *ctx, const char *path)
{
    if (ctx == NULL || path == NULL)
        return pa__err(PA_ERR_INVAL, "pa_sync: %s is NULL", ctx ? "path" : "ctx");
    if (ctx->ext)
        return ext_sync(ctx, path);
    int i = find_path(ctx, path, "pa_sync");
    if (i < 0)
        return i;
    pa__launch *l = ctx->launch;
    if (l->shape.nodes[i].size == 1)
        return PA_OK;
    pa__barrier *b = node_barriers(l, i);
    if (b == NULL)
        return pa__err(PA_ERR_NOMEM, "pa_sync(\"%s\"): cannot allocate the barriers of %lld groups", path,
                       (long long)(l->shape.n / l->shape.nodes[i].size));
    pa__barrier_wait(&b[pa__tshape_group(&l->shape, i, ctx->tid)]);
    return PA_OK;
}
