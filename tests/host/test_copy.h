/* The host_copy suite's parts: test_copy.c (hand-made layouts, and main) and test_copy_types.c (real types). */
#ifndef PARRAY_TEST_COPY_H
#define PARRAY_TEST_COPY_H

#include "testutil.h"

/** The cases through real types: pa_copy, pa_copy_explain, pa_copy_set_threads, PA_PLAN_INFO, errors. */
TCase *pa_test_copy_types_tcase(void);

#endif
