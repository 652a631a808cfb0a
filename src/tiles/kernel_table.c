/*
 * parray — the table of compiled gemm kernels (kernel_table.h).
 */
#include <stdio.h>
#include <string.h>

#include "kernel_table.h"

void *pa__kt_find(pa__kernel_table *t, const char *key, void *extra, size_t extra_bytes)
{
    void *fn = NULL;
    pthread_mutex_lock(&t->lock);
    for (int i = 0; i < t->n && fn == NULL; i++)
        if (strcmp(t->e[i].key, key) == 0) {
            fn = t->e[i].fn;
            if (extra)
                memcpy(extra, t->e[i].extra, extra_bytes);
        }
    pthread_mutex_unlock(&t->lock);
    return fn;
}

void pa__kt_keep(pa__kernel_table *t, const char *key, void *fn, const void *extra, size_t extra_bytes)
{
    pthread_mutex_lock(&t->lock);
    struct pa__kt_entry *e = &t->e[t->next];
    snprintf(e->key, sizeof e->key, "%s", key);
    e->fn = fn;
    memset(e->extra, 0, sizeof e->extra);
    if (extra)
        memcpy(e->extra, extra, extra_bytes < sizeof e->extra ? extra_bytes : sizeof e->extra);
    t->next = (t->next + 1) % PA__KT_ENTRIES;
    t->n = t->n < PA__KT_ENTRIES ? t->n + 1 : PA__KT_ENTRIES;
    pthread_mutex_unlock(&t->lock);
}
