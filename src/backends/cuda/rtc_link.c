/*
 * parray — linking relocatable device code with CUDA's device runtime (libcudadevrt.a), for kernels that launch
 * kernels (dynamic parallelism: the PL/CUDA library "dynpara", PG-Strom's "cuda_dynpara.h").
 *
 * NVRTC compiles such source with -rdc=true to a relocatable cubin, which needs the device runtime linked in
 * before the driver can load it.  nvJitLink does that without a GPU or a CUDA context (so it works on the
 * machines without a GPU that compile kernels for the tests), and it is loaded with dlopen on first use like
 * NVRTC: by its sonames, then from the toolkit the library was built against (PA_CUDA_ROOT), where
 * libcudadevrt.a is also looked up ($PA_CUDADEVRT names another one).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "pa_config.h"
#include "rtc_internal.h"

typedef struct nvJitLink *jl_handle;
enum { JL_INPUT_CUBIN = 1, JL_INPUT_LIBRARY = 6 };   /* nvJitLinkInputType */

static struct {
    int (*create)(jl_handle *, uint32_t, const char **);
    int (*add_data)(jl_handle, int, const void *, size_t, const char *);
    int (*add_file)(jl_handle, int, const char *);
    int (*complete)(jl_handle);
    int (*cubin_size)(jl_handle, size_t *);
    int (*cubin)(jl_handle, void *);
    int (*log_size)(jl_handle, size_t *);
    int (*log)(jl_handle, char *);
    int (*destroy)(jl_handle *);
} jl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_ok;
static char load_why[1200], devrt_path[1024];

static void *open_jitlink(void)
{
    static const char *const sonames[] = {"libnvJitLink.so.13", "libnvJitLink.so.12", "libnvJitLink.so"};
    char path[1100];
    void *h;
    for (size_t i = 0; i < sizeof sonames / sizeof *sonames; i++)
        if ((h = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL)) != NULL)
            return h;
    for (size_t i = 0; i < sizeof sonames / sizeof *sonames; i++) {
        snprintf(path, sizeof path, "%s/lib64/%s", PA_CUDA_ROOT, sonames[i]);
        if ((h = dlopen(path, RTLD_NOW | RTLD_LOCAL)) != NULL)
            return h;
    }
    snprintf(load_why, sizeof load_why, "nvJitLink (libnvJitLink.so.13, .12) was not found, nor under %s/lib64",
             PA_CUDA_ROOT);
    return NULL;
}

#define PA__SYM(field, name)                                                                               \
    do {                                                                                                   \
        *(void **)&jl.field = dlsym(h, name);                                                              \
        if (!jl.field) {                                                                                   \
            snprintf(load_why, sizeof load_why, "libnvJitLink has no symbol %s", name);                    \
            return;                                                                                        \
        }                                                                                                  \
    } while (0)

static void load(void)
{
    const char *env = getenv("PA_CUDADEVRT");
    void *h = open_jitlink();
    if (!h)
        return;
    PA__SYM(create, "nvJitLinkCreate");
    PA__SYM(add_data, "nvJitLinkAddData");
    PA__SYM(add_file, "nvJitLinkAddFile");
    PA__SYM(complete, "nvJitLinkComplete");
    PA__SYM(cubin_size, "nvJitLinkGetLinkedCubinSize");
    PA__SYM(cubin, "nvJitLinkGetLinkedCubin");
    PA__SYM(log_size, "nvJitLinkGetErrorLogSize");
    PA__SYM(log, "nvJitLinkGetErrorLog");
    PA__SYM(destroy, "nvJitLinkDestroy");
    if (env && env[0])
        snprintf(devrt_path, sizeof devrt_path, "%s", env);
    else
        snprintf(devrt_path, sizeof devrt_path, "%s/lib64/libcudadevrt.a", PA_CUDA_ROOT);
    if (access(devrt_path, R_OK) != 0) {
        snprintf(load_why, sizeof load_why, "the device runtime %s cannot be read (set $PA_CUDADEVRT)", devrt_path);
        return;
    }
    load_ok = 1;
}
#undef PA__SYM

int pa_cuda__rtc_wants_link(const char *const *opts, int nopts)
{
    for (int i = 0; i < nopts; i++)
        if (strcmp(opts[i], "-rdc=true") == 0 || strcmp(opts[i], "--relocatable-device-code=true") == 0)
            return 1;
    return 0;
}

int pa_cuda__rtc_link_devrt(const char *name, int arch, const void *cubin, size_t size, void **out, size_t *outsize)
{
    jl_handle h = NULL;
    char archopt[32], *log = NULL, *bin = NULL;
    const char *opts[1] = {archopt};
    size_t len = 0;
    int st, r;
    pthread_once(&load_once, load);
    if (!load_ok)
        return pa__err(PA_ERR_NODEV, "%s: linking the CUDA device runtime for dynamic parallelism: %s", name, load_why);
    snprintf(archopt, sizeof archopt, "-arch=sm_%d", arch);
    if ((r = jl.create(&h, 1, opts)) != 0) {
        st = pa__err(PA_ERR_SYS, "%s: nvJitLinkCreate failed (%d)", name, r);
        goto done;
    }
    if ((r = jl.add_data(h, JL_INPUT_CUBIN, cubin, size, name)) != 0 ||
        (r = jl.add_file(h, JL_INPUT_LIBRARY, devrt_path)) != 0 || (r = jl.complete(h)) != 0) {
        if (jl.log_size(h, &len) == 0 && len > 0 && (log = malloc(len + 1)) && jl.log(h, log) == 0)
            log[len] = '\0';
        else if (log)
            log[0] = '\0';
        st = pa__err(PA_ERR_COMPILE, "%s: linking with %s (nvJitLink error %d)\n%s", name, devrt_path, r,
                     log ? log : "");
        goto done;
    }
    if ((r = jl.cubin_size(h, &len)) != 0 || len == 0 || !(bin = malloc(len)) || jl.cubin(h, bin) != 0) {
        st = bin || r != 0 ? pa__err(PA_ERR_SYS, "%s: nvJitLink gave no linked cubin (%d)", name, r)
                           : pa__err(PA_ERR_NOMEM, "%s: a linked cubin of %zu bytes", name, len);
        goto done;
    }
    *out = bin;
    *outsize = len;
    bin = NULL;
    st = PA_OK;
done:
    free(bin);
    free(log);
    if (h)
        jl.destroy(&h);
    return st;
}
