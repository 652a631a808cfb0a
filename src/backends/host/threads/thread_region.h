/*
 * parray — parallel regions (thread_parallel.c): the launches a thread started between pa_parallel_begin and
 * pa_parallel_end.
 */
#ifndef PARRAY_THREAD_REGION_H
#define PARRAY_THREAD_REGION_H

#include "thread_internal.h"

typedef struct pa__region pa__region;

/** The calling thread's innermost open region, or NULL. */
pa__region *pa__region_current(void);
/** Adds a started launch to a region; the region joins and frees it at its end. */
void pa__region_add(pa__region *r, pa__launch *l);
/**
 * Called when a thread's callback returns: closes regions the callback left open (joining their arrays) and
 * reports that as an error.  \return PA_OK when none was left open.
 */
int pa__region_leftover(void);

#endif
