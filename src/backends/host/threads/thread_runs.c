/*
 * parray — walking a compiled layout in runs: the longest stretches of consecutive flat indices whose offsets
 * advance by one stride (the innermost mode of the coalesced layout).  map and tile hand whole runs to their
 * inner loops, so a contiguous type costs one offset evaluation per run, not per element.
 */
#include <string.h>

#include "mem_internal.h"
#include "thread_internal.h"

/* The run starting at flat index k: its offset, stride and the number of indices left in it. */
static int64_t run_at(const pa__layout *l, int64_t k, int64_t *off, int64_t *stride)
{
    *off = pa__layout_offset(l, k);
    if (l->nmodes == 0) {
        *stride = 0;
        return 1;
    }
    const pa__mode *in = &l->modes[l->nmodes - 1];
    if (in->table != NULL) {
        *stride = 0;
        return 1;
    }
    *stride = in->stride;
    return in->size - k % in->size;
}

void pa__runs1(const pa__layout *l, char *base, size_t elm, int64_t k0, int64_t k1, pa_run_fn run, void *arg)
{
    for (int64_t k = k0; k < k1;) {
        int64_t off, stride;
        int64_t len = run_at(l, k, &off, &stride);
        if (len > k1 - k)
            len = k1 - k;
        run(base + off * (int64_t)elm, stride, k, len, arg);
        k += len;
    }
}

void pa__runs2(const pa__layout *l1, int64_t a0, const pa__layout *l2, int64_t b0, int64_t n, pa__run2_fn run,
               void *arg)
{
    for (int64_t i = 0; i < n;) {
        int64_t o1, s1, o2, s2;
        int64_t len1 = run_at(l1, a0 + i, &o1, &s1);
        int64_t len2 = run_at(l2, b0 + i, &o2, &s2);
        int64_t len = len1 < len2 ? len1 : len2;
        if (len > n - i)
            len = n - i;
        run(a0 + i, len, o1, s1, o2, s2, arg);
        i += len;
    }
}

int pa__check_host_type(const pa_type *t, const char *what)
{
    const char *mtt = pa_mtt(t);
    pa__mtt_kind kind = pa__mtt_kind_of(mtt);
    if (kind == PA__MTT_THREAD)
        return pa__err(PA_ERR_MTT, "%s over %s: %s is a thread type; use pa_for to start a thread array", what,
                       pa_type_name(t), mtt);
    if (kind == PA__MTT_MEMORY) {
        const pa__mem_ops *ops = pa__mem_find(mtt);
        if (ops == NULL || !ops->host_accessible)
            return pa__err(PA_ERR_NODEV, "%s over %s: %s memory cannot be mapped on the CPU%s%s", what,
                           pa_type_name(t), mtt, pa__mem_missing(mtt) ? ": " : "",
                           pa__mem_missing(mtt) ? pa__mem_missing(mtt)
                           : strcmp(mtt, "dmem") == 0 ? " (pa_cuda_map runs CUDA source over dmem arrays)" : "");
    }
    if (pa_elm_size(t) == 0)
        return pa__err(PA_ERR_ELM, "%s over %s: the type has no element type (declare e.g. \"paged float [n]\")",
                       what, pa_type_name(t));
    return PA_OK;
}
