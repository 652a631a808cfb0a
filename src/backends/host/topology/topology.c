/*
 * parray — the binding policy of pthd arrays (PA_BIND, pa_threads_set_binding).  The placement itself is hwloc's
 * (topology_hwloc.c), or refused in a build without hwloc (topology_none.c); src/meson.build builds one of them.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "thread_internal.h"

static _Atomic int binding = -2;   /* -2: not read from PA_BIND yet */

pa_bind pa_threads_get_binding(void)
{
    int b = atomic_load_explicit(&binding, memory_order_relaxed);
    if (b == -2) {
        static const char *const words[] = {"none", "compact", "spread"};
        static const pa_bind policies[] = {PA_BIND_NONE, PA_BIND_COMPACT, PA_BIND_SPREAD};
        static atomic_int warned;
        b = policies[pa__env_choice("PA_BIND", words, 3, 0, &warned)];
        if (b != PA_BIND_NONE && !pa__hwloc_available()) {
            fprintf(stderr, "parray: warning: PA_BIND=%s needs hwloc, which this build does not have; using the "
                    "default (none)\n", words[b == PA_BIND_COMPACT ? 1 : 2]);
            b = PA_BIND_NONE;
        }
        atomic_store_explicit(&binding, b, memory_order_relaxed);
    }
    return (pa_bind)b;
}

int pa_threads_set_binding(pa_bind policy)
{
    if (policy != PA_BIND_NONE && policy != PA_BIND_COMPACT && policy != PA_BIND_SPREAD)
        return pa__err(PA_ERR_INVAL, "pa_threads_set_binding: unknown policy %d (PA_BIND_NONE, PA_BIND_COMPACT or "
                       "PA_BIND_SPREAD)", (int)policy);
    if (policy != PA_BIND_NONE && !pa__hwloc_available())
        return pa__err(PA_ERR_NODEV, "pa_threads_set_binding(%s): binding needs hwloc, which this build does not have",
                       policy == PA_BIND_COMPACT ? "compact" : "spread");
    atomic_store_explicit(&binding, (int)policy, memory_order_relaxed);
    return PA_OK;
}
