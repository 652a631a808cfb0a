#include <stdio.h>
#include <parray/parray.h>

int main(void)
{
    pa_scope *s;
    pa_scope_create(NULL, &s);
    pa_declare(s, "A", "paged float [[3][3]]");        /* a 3x3 matrix, row-major */
    pa_declare(s, "T", "paged float [[#A_1][#A_0]]");  /* the same offsets, columns first */
    const pa_type *A = pa_type_get(s, "A"), *T = pa_type_get(s, "T");
    float *a = pa_create(A), *t = pa_create(T);
    for (int k = 0; k < 9; k++)
        a[k] = (float)k;
    pa_copy(T, t, A, a);                               /* t[T(k)] = a[A(k)]: t is a transposed */
    for (int k = 0; k < 9; k++)
        printf("%g%c", t[k], k % 3 == 2 ? '\n' : ' ');
    pa_destroy(A, a);
    pa_destroy(T, t);
    pa_scope_destroy(s);
    return 0;
}
