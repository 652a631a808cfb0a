/*
 * parray — the all-to-all between pthd threads whose arrays are on different GPUs, over NCCL
 * (copy_exchange_gpu.c): the hook copy_exchange.c hands such an exchange to before its pulls.  Included only by
 * copy_exchange.c, thread_launch.c and the tests.
 */
#ifndef PARRAY_COPY_EXCHANGE_GPU_H
#define PARRAY_COPY_EXCHANGE_GPU_H

#include "backends.h"
#include "thread_internal.h"

/**
 * The NCCL route of the all-to-all between threads (collective, as pa__pthd_exchange): taken (*taken 1, the
 * copy done or failed on every thread alike) when both sides are dmem, NCCL is usable, every thread's arrays are
 * on its current GPU, no two threads share a GPU and the route is predicted cheaper than the peer pulls
 * (PA_PTHD_ROUTE=nccl|peer names one).  Otherwise *taken is 0 on every thread, nothing was moved, and the
 * pulls run.  \return PA_OK or an error (when taken).
 */
int pa__pthd_exchange_gpu(const pa__dist_split *d, const pa__dist_split *s, size_t elm, const pa_ctx *ctx,
                          void *dst, const void *src, const char *names, uint64_t dser, uint64_t sser, int *taken);
/** The route the calling thread's last such copy took (or would take), as "; route: ..." for the explanation.
 *  \return as snprintf. */
int pa__pthd_exchange_gpu_explain(const pa__dist_split *d, const pa__dist_split *s, size_t elm, const pa_ctx *ctx,
                                  char *buf, size_t len, uint64_t dser, uint64_t sser);
/** For tests: the device collectives to use instead of the backends' (NULL: the backends' again); while set,
 *  host-memory all-to-alls take the route too (the devices are those ops->current says). */
void pa__pthd_exchange_gpu_test(const pa__devcomm_ops *ops);
/** Frees a launch's shared state of the route (l->xgpu), giving its communicators back.  NULL is ignored. */
void pa__pthd_exchange_gpu_end(void *xgpu);

#endif
