/*
 * parray — parallel regions (PARRAY's parallel { ... }).
 *
 * A region is a per-thread stack entry listing the launches started in it.  pa_for inside a region starts its
 * threads and returns; pa_parallel_end joins them in launch order and returns the first failure, so the
 * waiting code of every for in the region runs together at its end, as the manual describes.
 */
#include <stdio.h>
#include <stdlib.h>

#include "thread_region.h"

struct pa__region {
    pa__launch *head, *tail;
    pa__region *outer;
};

static _Thread_local pa__region *tl_region;

pa__region *pa__region_current(void)
{
    return tl_region;
}

void pa__region_add(pa__region *r, pa__launch *l)
{
    l->next = NULL;
    if (r->tail)
        r->tail->next = l;
    else
        r->head = l;
    r->tail = l;
}

int pa_parallel_begin(void)
{
    pa__region *r = calloc(1, sizeof *r);
    if (r == NULL)
        return pa__err(PA_ERR_NOMEM, "pa_parallel_begin: cannot allocate a region");
    r->outer = tl_region;
    tl_region = r;
    return PA_OK;
}

int pa_parallel_end(void)
{
    pa__region *r = tl_region;
    int status = PA_OK;
    char first[512] = "";
    if (r == NULL)
        return pa__err(PA_ERR_INVAL, "pa_parallel_end without pa_parallel_begin on this thread");
    tl_region = r->outer;
    for (pa__launch *l = r->head, *next; l != NULL; l = next) {
        next = l->next;
        int st = pa__launch_wait(l);
        if (status == PA_OK && st != PA_OK) {
            status = st;
            snprintf(first, sizeof first, "%s", pa_last_error());
        }
        pa__launch_free(l);
    }
    free(r);
    if (status != PA_OK)
        return pa__err(status, "pa_parallel_end: %s", first);
    return PA_OK;
}

int pa__region_leftover(void)
{
    int n = 0;
    while (tl_region != NULL) {
        pa_parallel_end();
        n++;
    }
    if (n == 0)
        return PA_OK;
    return pa__err(PA_ERR_INVAL, "a thread returned with %d parallel region%s still open; its arrays were joined "
                   "when it returned", n, n == 1 ? "" : "s");
}
