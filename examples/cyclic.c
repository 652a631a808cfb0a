/*
 * cyclic — the manual's listings 11 and 12.
 *
 * G displaces its index by 3 and then refers to a plain dimension of size 10, which wraps the index
 * modulo 10: the offsets are shifted three places to the right cyclically.  G has no memory or element
 * type; only its offsets are used.
 */
#include <stdio.h>
#include <stdlib.h>

#include <parray/parray.h>

int main(void)
{
    pa_scope *scope = NULL;
    const pa_type *G = NULL;
    if (pa_scope_create(NULL, &scope) != PA_OK || pa_declare(scope, "G", "[10 # disp(3) # [10]]") != PA_OK ||
        (G = pa_type_get(scope, "G")) == NULL) {
        fprintf(stderr, "cyclic: %s\n", pa_last_error());
        return 1;
    }

    for (int i = 0; i < 10; i++)
        printf("%sG[%d]=%d", i > 0 ? " " : "", i, (int)pa_offset(G, i));
    printf("\n");

    pa_scope_destroy(scope);
    return 0;
}
