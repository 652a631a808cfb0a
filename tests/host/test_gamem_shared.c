/*
 * parray tests — gamem through the shared library, which cannot contain Debian's (non-position-independent)
 * Global Arrays: pa_create and pa_gamem_handle must refuse it with PA_ERR_MTT and say that gamem is in the
 * static library only (and leave the handle untouched).
 * Linked against libparray.so (public API only); built only when the Global Arrays backend is.
 */
#include <stdio.h>
#include <string.h>

#include "parray/parray.h"

int main(void)
{
    pa_scope *scope = NULL;
    int failed = 0;
    if (pa_scope_create(NULL, &scope) != PA_OK || pa_declare(scope, "G", "gamem int [4][6]") != PA_OK) {
        fprintf(stderr, "setup: %s\n", pa_last_error());
        return 1;
    }
    void *p = pa_create(pa_type_get(scope, "G"));
    const char *msg = pa_last_error();
    if (p != NULL || strncmp(msg, "ERR_MTT", 7) != 0 || strstr(msg, "static library only") == NULL) {
        fprintf(stderr, "pa_create(gamem) through the shared library: %p, \"%s\"\n", p, msg);
        failed = 1;
    }
    int handle = 12345, st = pa_gamem_handle(&handle, &handle);
    msg = pa_last_error();
    if (st != PA_ERR_MTT || handle != 12345 || strstr(msg, "static library only") == NULL) {
        fprintf(stderr, "pa_gamem_handle through the shared library: %d, handle %d, \"%s\"\n", st, handle, msg);
        failed = 1;
    }
    if (pa_mtt_available("gamem") != 0) {
        fprintf(stderr, "pa_mtt_available(gamem) is 1 in the shared library\n");
        failed = 1;
    }
    pa_scope_destroy(scope);
    return failed;
}
