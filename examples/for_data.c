/*
 * for_data — the manual's listing 19: for over a data type (a map).
 *
 * A is paged int [4]; pa_map runs the element function over every element of a through A's offsets, on
 * pool threads, so the printing order is nondeterministic (listing 20); the test compares sorted lines.
 */
#include <stdio.h>
#include <stdlib.h>

#include <parray/parray.h>

static void fail(const char *what)
{
    fprintf(stderr, "for_data: %s: %s\n", what, pa_last_error());
    exit(1);
}

/* for k A(a) { a[k] = k + 1; } */
static void set(void *elem, int64_t k, void *arg)
{
    *(int *)elem = (int)k + 1;
}

/* for k A(a) { printf("a[%d]=%d\n", k, a[k]); } */
static void show(void *elem, int64_t k, void *arg)
{
    printf("a[%d]=%d\n", (int)k, *(int *)elem);
}

int main(void)
{
    pa_scope *scope = NULL;
    if (pa_scope_create(NULL, &scope) != PA_OK || pa_declare(scope, "A", "paged int [4]") != PA_OK)
        fail("declare A");
    const pa_type *A = pa_type_get(scope, "A");
    int *a = pa_create(A);
    if (a == NULL)
        fail("pa_create");
    if (pa_map(A, a, set, NULL) != PA_OK || pa_map(A, a, show, NULL) != PA_OK)
        fail("pa_map");
    pa_destroy(A, a);
    pa_scope_destroy(scope);
    return 0;
}
