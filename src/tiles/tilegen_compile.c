/*
 * parray — compiling generated tile source with the kernels that use it (gputile.h): the generated text, a
 * #line that numbers the kernels' lines from 1 under the caller's name (so NVRTC's log points into the user's
 * source), then the kernels, through the run-time compiler and its caches; a loaded kernel that spills to
 * local memory gets a warning on stderr.  The compiler is the backend interface's compile service
 * (src/core/backends/backends.h), so the tiles name no backend.  Built with the CUDA backend only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "tiles_internal.h"

static char *joined(const pa_tilegen *g, const char *name, const char *kernels, const char *what)
{
    const char *gen = pa_tilegen_source(g);
    size_t len = strlen(gen) + strlen(kernels) + strlen(name) + 64;
    char *src = malloc(len);
    if (src == NULL) {
        pa__err(PA_ERR_NOMEM, "%s(%s): %zu bytes of source", what, name, len);
        return NULL;
    }
    snprintf(src, len, "%s\n#line 1 \"%s\"\n%s\n", gen, name, kernels);
    return src;
}

int pa_tilegen_compile(const pa_tilegen *g, const char *name, const char *kernels, int arch)
{
    if (g == NULL || name == NULL || kernels == NULL)
        return pa__err(PA_ERR_INVAL, "pa_tilegen_compile: NULL %s", !g ? "generator" : !name ? "name" : "kernels");
    if (arch < 0)
        return pa__err(PA_ERR_INVAL, "pa_tilegen_compile(%s): architecture %d", name, arch);
    char *src = joined(g, name, kernels, "pa_tilegen_compile");
    if (src == NULL)
        return PA_ERR_NOMEM;
    int st = pa__backends_compile("pa_tilegen_compile", name, src, arch);
    free(src);
    return st;
}

int pa_tilegen_function(const pa_tilegen *g, const char *name, const char *kernels, const char *entry,
                        pa_cuda_function *out)
{
    if (g == NULL || name == NULL || kernels == NULL || entry == NULL || out == NULL)
        return pa__err(PA_ERR_INVAL, "pa_tilegen_function: NULL argument");
    char *src = joined(g, name, kernels, "pa_tilegen_function");
    if (src == NULL)
        return PA_ERR_NOMEM;
    int st = pa_cuda_compile(name, src, entry, out);
    free(src);
    pa_cuda_fninfo fi;
    if (st == PA_OK && pa_cuda_function_info(*out, 1, 0, &fi) == PA_OK && fi.local_bytes > 0)
        fprintf(stderr, "parray: warning: %s: kernel %s uses %d bytes of local memory per thread (an rmem type or "
                "other registers spilled)\n", name, entry, fi.local_bytes);
    return st;
}
