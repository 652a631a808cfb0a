/*
 * hello_arrays — the manual's listings 5 and 6.
 *
 * A is a paged n x n x m array of ints and B refers to A's dimensions in another order: its column
 * dimension is made of A_0_1 and A_0_0 (swapped) and its row dimension is A_1.  Copying A(a) to B(b)
 * therefore transposes the n x n matrix of m-element units.  With n = 3 and m = 2 the program prints
 * a[i] = i and the transposed b.
 */
#include <stdio.h>
#include <stdlib.h>

#include <parray/parray.h>

/* Prints the library's message for a failed call and leaves. */
static void fail(const char *what)
{
    fprintf(stderr, "hello_arrays: %s: %s\n", what, pa_last_error());
    exit(1);
}

int main(void)
{
    pa_scope *scope = NULL;
    if (pa_scope_create(NULL, &scope) != PA_OK)
        fail("pa_scope_create");

    /* The manual's main sets n and m at run time; scope variables play that part here. */
    if (pa_scope_set_int(scope, "n", 3) != PA_OK || pa_scope_set_int(scope, "m", 2) != PA_OK)
        fail("pa_scope_set_int");
    if (pa_declare(scope, "A", "paged int [[n][n]][m]") != PA_OK)
        fail("declaring A");
    if (pa_declare(scope, "B", "[[#A_0_1][#A_0_0]][#A_1]") != PA_OK)
        fail("declaring B");

    const pa_type *A = pa_type_get(scope, "A");
    const pa_type *B = pa_type_get(scope, "B");
    if (A == NULL || B == NULL)
        fail("pa_type_get");

    int *a = pa_create(A);
    int *b = pa_create(A);
    if (a == NULL || b == NULL)
        fail("pa_create");

    /* "for i in A(a): a[i] = i" sets every element at its offset to its flat index. */
    int64_t size = pa_size(A);
    for (int64_t i = 0; i < size; i++)
        a[pa_offset(A, i)] = (int)i;

    if (pa_copy(B, b, A, a) != PA_OK)
        fail("pa_copy");

    printf("Hello Array World\n");
    for (int64_t i = 0; i < size; i++) {
        int64_t k = pa_offset(A, i);
        printf("i=%d, a[i]=%d, b[i]=%d\n", (int)i, a[k], b[k]);
    }

    pa_destroy(A, a);
    pa_destroy(A, b);
    pa_scope_destroy(scope);
    return 0;
}
