/*
 * parray — a matrix as a parray type (matrix.h: pa_matrix_type), and the window types every matrix operation
 * copies through (pa__matrix_view).
 *
 * A window of rows x cols elements of a column-major matrix of height ld, starting at element offset base
 * from the matrix pointer, is declared in PARRAY's notation from two helper types:
 *
 *     MvP = [cols][ld]                        MvP_0(j) = j * ld
 *     MvL = [base + rows]                     a plain run, so that disp(base) # MvL is the identity plus base
 *     by rows:     mtt elm [[rows # disp(base) # MvL][#MvP_0]]     flat index i * cols + j
 *     by columns:  mtt elm [[#MvP_0][rows # disp(base) # MvL]]     flat index j * rows + i
 *
 * so offset(i, j) = base + j * ld + i either way: the layout compiler sees two affine modes and a base, and the
 * copy planner handles matrix windows like any other windows (memcpy runs, cudaMemcpy2D, transposes).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "matrix_internal.h"

const pa_type *pa__matrix_view(pa_scope *scope, const char *mtt, int elm, int64_t rows, int64_t cols, int64_t ld,
                               int64_t base, pa__morder order)
{
    static atomic_ulong serial;
    char p[32], l[32], decl[256];
    const char *ename = pa_matrix_elm_name(elm);
    unsigned long id = atomic_fetch_add(&serial, 1);
    if (!ename || rows < 1 || cols < 1 || ld < rows || base < 0) {
        pa__err(PA_ERR_RANGE, "matrix window %lld x %lld (height %lld, base %lld, element type %d): an empty or "
                "bad window has no parray type", (long long)rows, (long long)cols, (long long)ld, (long long)base,
                elm);
        return NULL;
    }
    snprintf(p, sizeof p, "MvP%lu", id);
    snprintf(l, sizeof l, "MvL%lu", id);
    snprintf(decl, sizeof decl, "[%lld][%lld]", (long long)cols, (long long)ld);
    if (pa_declare(scope, p, decl) != PA_OK)
        return NULL;
    snprintf(decl, sizeof decl, "[%lld]", (long long)(base + rows));
    if (pa_declare(scope, l, decl) != PA_OK)
        return NULL;
    if (order == PA__BY_ROWS)
        snprintf(decl, sizeof decl, "%s %s [[%lld # disp(%lld) # %s][#%s_0]]", mtt ? mtt : "paged", ename,
                 (long long)rows, (long long)base, l, p);
    else
        snprintf(decl, sizeof decl, "%s %s [[#%s_0][%lld # disp(%lld) # %s]]", mtt ? mtt : "paged", ename, p,
                 (long long)rows, (long long)base, l);
    return pa_type_parse(scope, decl);
}

/* ---- the view cache (matrix_internal.h) -------------------------------------------------------------------- */

#define VIEW_SLOTS 64

typedef struct vkey {
    char mtt[32];
    int elm;
    pa__morder order;
    int64_t rows, cols, ld, base;
} vkey;

static pthread_mutex_t vlock = PTHREAD_MUTEX_INITIALIZER;
static pa_scope *vscope;   /* the cached views' scope, never destroyed while vusers > 0 */
static int vusers, vcount, vexit;
static struct {
    vkey k;
    const pa_type *t;
} vslot[VIEW_SLOTS];

static void views_at_exit(void)
{
    pthread_mutex_lock(&vlock);
    pa_scope_destroy(vscope);
    vscope = NULL;
    vcount = 0;
    pthread_mutex_unlock(&vlock);
}

void pa__matrix_views_begin(pa__mviews *v)
{
    v->own = NULL;
    pthread_mutex_lock(&vlock);
    if (vusers == 0 && vcount == VIEW_SLOTS) {
        pa_scope_destroy(vscope);
        vscope = NULL;
        vcount = 0;
    }
    vusers++;
    pthread_mutex_unlock(&vlock);
}

void pa__matrix_views_end(pa__mviews *v)
{
    pthread_mutex_lock(&vlock);
    vusers--;
    pthread_mutex_unlock(&vlock);
    pa_scope_destroy(v->own);
    v->own = NULL;
}

const pa_type *pa__matrix_view_get(pa__mviews *v, const char *mtt, int elm, int64_t rows, int64_t cols, int64_t ld,
                                   int64_t base, pa__morder order)
{
    vkey k;
    const pa_type *t = NULL;
    memset(&k, 0, sizeof k);   /* the keys are compared whole, padding included */
    k.elm = elm;
    k.order = order;
    k.rows = rows;
    k.cols = cols;
    k.ld = ld;
    k.base = base;
    int cacheable = strlen(mtt ? mtt : "paged") < sizeof k.mtt;
    if (cacheable) {
        strcpy(k.mtt, mtt ? mtt : "paged");
        pthread_mutex_lock(&vlock);
        for (int i = 0; i < vcount && !t; i++)
            if (memcmp(&vslot[i].k, &k, sizeof k) == 0)
                t = vslot[i].t;
        if (!t && vcount < VIEW_SLOTS) {
            if (!vscope && pa_scope_create(NULL, &vscope) == PA_OK && !vexit)
                vexit = atexit(views_at_exit) == 0;
            if (vscope && (t = pa__matrix_view(vscope, mtt, elm, rows, cols, ld, base, order))) {
                vslot[vcount].k = k;
                vslot[vcount++].t = t;
            }
            pthread_mutex_unlock(&vlock);
            return t;
        }
        pthread_mutex_unlock(&vlock);
        if (t)
            return t;
    }
    if (!v->own && pa_scope_create(NULL, &v->own) != PA_OK)
        return NULL;
    return pa__matrix_view(v->own, mtt, elm, rows, cols, ld, base, order);
}

const pa_type *pa_matrix_type_of(pa_scope *scope, const char *mtt, int elm, int64_t height, int64_t width)
{
    size_t esz = pa_matrix_elm_size(elm);
    if (!scope) {
        pa__err(PA_ERR_INVAL, "pa_matrix_type: NULL scope");
        return NULL;
    }
    if (!pa_matrix_rawsize(elm, height, width)) {
        pa__err(PA_ERR_INVAL, "pa_matrix_type(elm %d, %lld x %lld): unknown element type or bad dimensions", elm,
                (long long)height, (long long)width);
        return NULL;
    }
    if (height == 0 || width == 0) {
        pa__err(PA_ERR_RANGE, "pa_matrix_type: the matrix is empty (%lld x %lld) and parray types have no "
                "dimension of size 0", (long long)height, (long long)width);
        return NULL;
    }
    return pa__matrix_view(scope, mtt, elm, height, width, height, pa__matrix_base(esz), PA__BY_ROWS);
}

const pa_type *pa_matrix_type(pa_scope *scope, const pa_matrix *m)
{
    pa__mloc loc;
    pa_matrix h;
    if (!scope) {
        pa__err(PA_ERR_INVAL, "pa_matrix_type: NULL scope");
        return NULL;
    }
    if (pa__matrix_locate(m, &loc) != PA_OK || pa__matrix_read_header(m, &loc, &h) != PA_OK)
        return NULL;
    return pa_matrix_type_of(scope, loc.mtt, h.elm, h.height, h.width);
}
