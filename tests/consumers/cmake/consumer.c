/*
 * The CMake consumer's program (tests/consumers/cmake): transposes a 3x3 matrix with pa_copy, prints it as the
 * README's example does, and checks that the library, its headers and parrayConfig.cmake agree on the version
 * and that the gamem backend is linked in exactly when the program was linked with parray::gamem.
 */
#include <stdio.h>
#include <string.h>

#include <parray/parray.h>

int main(void)
{
    pa_scope *s = NULL;
    float *a = NULL, *t = NULL;
    const pa_type *A, *T;
    int rc = 1;

    if (strcmp(pa_version(NULL, NULL, NULL), PA_VERSION_STRING) != 0 || strcmp(pa_version(NULL, NULL, NULL), CONSUMER_CMAKE_VERSION) != 0) {
        fprintf(stderr, "consumer: library %s, headers %s, parrayConfig.cmake %s\n", pa_version(NULL, NULL, NULL),
                PA_VERSION_STRING, CONSUMER_CMAKE_VERSION);
        return 1;
    }
    if (pa_backend_on("gamem") != CONSUMER_WANT_GAMEM) {
        fprintf(stderr, "consumer: gamem is %s, expected %s\n", pa_backend_on("gamem") == 1 ? "on" : "off",
                CONSUMER_WANT_GAMEM ? "on" : "off");
        return 1;
    }
    if (pa_scope_create(NULL, &s) != PA_OK || pa_declare(s, "A", "paged float [[3][3]]") != PA_OK ||
        pa_declare(s, "T", "paged float [[#A_1][#A_0]]") != PA_OK)
        goto fail;
    A = pa_type_get(s, "A");
    T = pa_type_get(s, "T");
    a = pa_create(A);
    t = pa_create(T);
    if (a == NULL || t == NULL)
        goto fail;
    for (int k = 0; k < 9; k++)
        a[k] = (float)k;
    if (pa_copy(T, t, A, a) != PA_OK)
        goto fail;
    for (int k = 0; k < 9; k++)
        printf("%g%c", t[k], k % 3 == 2 ? '\n' : ' ');
    rc = 0;
fail:
    if (rc != 0)
        fprintf(stderr, "consumer: %s\n", pa_last_error());
    if (a != NULL)
        pa_destroy(A, a);
    if (t != NULL)
        pa_destroy(T, t);
    pa_scope_destroy(s);
    return rc;
}
