/*
 * copy_fuzz — what the copy target's files share: the input read as choices, guarded buffers, the finding.
 */
#ifndef PARRAY_COPY_FUZZ_H
#define PARRAY_COPY_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include <parray/parray.h>

/* The input as a stream of choices (an exhausted input reads as zeros). */
typedef struct fz_input {
    const uint8_t *p;
    size_t n;
} fz_input;

/** The next byte of the input, or 0. */
unsigned fz_next(fz_input *in);
/** A choice in [lo, hi]. */
int64_t fz_pick(fz_input *in, int64_t lo, int64_t hi);
/** A buffer of bytes with guard bytes around it in builds without ASan (exact under ASan). */
unsigned char *fz_alloc(size_t bytes);
/** Frees such a buffer.  \return 0 when a guard byte changed. */
int fz_free(unsigned char *p, size_t bytes);
/** Reports a finding (the two types, the plan, the byte) and aborts. */
void fz_fail(const char *what, const pa_type *dt, const pa_type *st, int64_t byte) __attribute__((noreturn));
/** A copy between two types distributed over pthd threads, drawn from the input (copy_fuzz_dist.c). */
void fz_dist(fz_input *in);

#endif
