/*
 * parray — a scope's names, hashed: an open-addressing table from a name to what it names (a declaration, a
 * variable, an offset function, an element type).  Scopes never forget a name, so the table only grows; it
 * doubles when half full, which keeps a lookup at about one probe however many names a scope holds (the
 * linked lists it replaces made 20,000 declarations take seconds).
 */
#include <stdlib.h>
#include <string.h>

#include "type_internal.h"

/* FNV-1a: short identifiers, no need for more. */
static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

void *pa__names_get(const pa__names *h, const char *key)
{
    if (!h->cap)
        return NULL;
    for (size_t i = hash(key) & (h->cap - 1);; i = (i + 1) & (h->cap - 1)) {
        if (!h->slot[i].key)
            return NULL;
        if (strcmp(h->slot[i].key, key) == 0)
            return h->slot[i].val;
    }
}

static void place(pa__names *h, const char *key, void *val)
{
    size_t i = hash(key) & (h->cap - 1);
    while (h->slot[i].key)
        i = (i + 1) & (h->cap - 1);
    h->slot[i].key = key;
    h->slot[i].val = val;
    h->n++;
}

int pa__names_put(pa__names *h, const char *key, void *val)
{
    if (2 * (h->n + 1) > h->cap) {
        pa__names grown = {h->cap ? 2 * h->cap : 16, 0, NULL};
        if (!(grown.slot = calloc(grown.cap, sizeof *grown.slot)))
            return pa__err(PA_ERR_NOMEM, "no memory for the names of a scope");
        for (size_t i = 0; i < h->cap; i++)
            if (h->slot[i].key)
                place(&grown, h->slot[i].key, h->slot[i].val);
        free(h->slot);
        *h = grown;
    }
    place(h, key, val);
    return PA_OK;
}

void pa__names_free(pa__names *h)
{
    free(h->slot);
    memset(h, 0, sizeof *h);
}
