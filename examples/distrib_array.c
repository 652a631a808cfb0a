/*
 * distrib_array — the manual's listing 40: a distributed type's offsets "on" its thread and memory types.
 *
 * DATA's column dimension refers to a thread array PTHD of 4 threads and its row dimension to a device array
 * DMEM of 4096 floats, so element 4098 lives on thread 1 at local offset 2.  Offsets only: nothing is
 * allocated, so no GPU is needed.
 */
#include <stdio.h>
#include <stdlib.h>

#include <parray/parray.h>

int main(void)
{
    pa_scope *scope = NULL;
    if (pa_scope_create(NULL, &scope) != PA_OK ||
        pa_declare_text(scope, "PTHD = pthd [4]\nDMEM = dmem float [4096]\nDATA = [#PTHD][#DMEM]") != PA_OK) {
        fprintf(stderr, "distrib_array: %s\n", pa_last_error());
        return 1;
    }
    const pa_type *data = pa_type_get(scope, "DATA");
    printf("%lld %lld\n", (long long)pa_offset_on(data, PA_ON_THREAD, 4098),
           (long long)pa_offset_on(data, PA_ON_LOCAL, 4098));
    pa_scope_destroy(scope);
    return 0;
}
