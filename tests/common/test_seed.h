/*
 * parray tests — the seed of the random tests, in one place (header-only, so that the MPI suites, which do not
 * link testutil.c, read it the same way).
 *
 * PA_TEST_SEED unset: a fixed default, so that CI runs the same cases every time and a failure replays as it is;
 * PA_TEST_SEED=random: a seed from the clock (a new case each run); PA_TEST_SEED=N: that seed.  Any other value
 * is a one-line warning and the default.  The caller prints the seed either way.
 */
#ifndef PARRAY_TEST_SEED_H
#define PARRAY_TEST_SEED_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PA_TEST_DEFAULT_SEED 20261125u

static inline uint64_t pa_test_seed_value(void)
{
    const char *env = getenv("PA_TEST_SEED");
    char *end;
    if (!env)
        return PA_TEST_DEFAULT_SEED;
    if (strcmp(env, "random") == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
    }
    errno = 0;
    unsigned long long v = strtoull(env, &end, 0);
    if (env[0] >= '0' && env[0] <= '9' && *end == '\0' && errno == 0)
        return v;
    fprintf(stderr, "warning: PA_TEST_SEED='%s' is not an unsigned integer or 'random'; using the default (%u)\n",
            env, PA_TEST_DEFAULT_SEED);
    return PA_TEST_DEFAULT_SEED;
}

#endif
