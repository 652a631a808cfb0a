/*
 * parray — NVRTC, loaded with dlopen on first use so that the library loads where it is absent, and the one
 * compilation step of the run-time compiler: CUDA C++ source to a cubin for one architecture.
 *
 * The library is looked up by its sonames (13, 12, unversioned) through the dynamic loader's path, then in the
 * toolkit that the library was built against (PA_CUDA_ROOT, recorded at configure time).  Only nvrtc.h's
 * types are used here; every function comes from dlsym.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nvrtc.h>

#include "internal.h"
#include "pa_config.h"
#include "rtc_internal.h"

static struct {
    nvrtcResult (*version)(int *, int *);
    nvrtcResult (*create)(nvrtcProgram *, const char *, const char *, int, const char *const *, const char *const *);
    nvrtcResult (*compile)(nvrtcProgram, int, const char *const *);
    nvrtcResult (*log_size)(nvrtcProgram, size_t *);
    nvrtcResult (*log)(nvrtcProgram, char *);
    nvrtcResult (*cubin_size)(nvrtcProgram, size_t *);
    nvrtcResult (*cubin)(nvrtcProgram, char *);
    nvrtcResult (*destroy)(nvrtcProgram *);
    const char *(*error_string)(nvrtcResult);
} nv;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_ok, nv_version;
static char load_why[768];

static void *open_nvrtc(void)
{
    static const char *const sonames[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
    static const char *const subdirs[] = {"lib64", "lib", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib"};
    char path[1024];
    void *h;
    for (size_t i = 0; i < sizeof sonames / sizeof *sonames; i++)
        if ((h = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL)) != NULL)
            return h;
    snprintf(load_why, sizeof load_why, "dlopen(libnvrtc.so.13, .so.12, .so): %s", dlerror());
    for (size_t d = 0; d < sizeof subdirs / sizeof *subdirs; d++)
        for (size_t i = 0; i < sizeof sonames / sizeof *sonames; i++) {
            snprintf(path, sizeof path, "%s/%s/%s", PA_CUDA_ROOT, subdirs[d], sonames[i]);
            if ((h = dlopen(path, RTLD_NOW | RTLD_LOCAL)) != NULL)
                return h;
        }
    size_t n = strlen(load_why);
    snprintf(load_why + n, sizeof load_why - n, "; nor under %s/{lib64,lib,targets/*/lib}", PA_CUDA_ROOT);
    return NULL;
}

#define PA__SYM(field, name)                                                                               \
    do {                                                                                                   \
        *(void **)&nv.field = dlsym(h, name);                                                              \
        if (!nv.field) {                                                                                   \
            snprintf(load_why, sizeof load_why, "libnvrtc has no symbol %s", name);                        \
            return;                                                                                        \
        }                                                                                                  \
    } while (0)

static void load(void)
{
    int major = 0, minor = 0;
    void *h = open_nvrtc();
    if (!h)
        return;
    PA__SYM(version, "nvrtcVersion");
    PA__SYM(create, "nvrtcCreateProgram");
    PA__SYM(compile, "nvrtcCompileProgram");
    PA__SYM(log_size, "nvrtcGetProgramLogSize");
    PA__SYM(log, "nvrtcGetProgramLog");
    PA__SYM(cubin_size, "nvrtcGetCUBINSize");
    PA__SYM(cubin, "nvrtcGetCUBIN");
    PA__SYM(destroy, "nvrtcDestroyProgram");
    PA__SYM(error_string, "nvrtcGetErrorString");
    if (nv.version(&major, &minor) != NVRTC_SUCCESS) {
        snprintf(load_why, sizeof load_why, "nvrtcVersion failed");
        return;
    }
    nv_version = major * 1000 + minor * 10;
    load_ok = 1;
}
#undef PA__SYM

int pa_cuda__nvrtc_load(void)
{
    pthread_once(&load_once, load);
    return load_ok ? PA_OK : pa__err(PA_ERR_NODEV, "NVRTC (the CUDA run-time compiler) is not usable: %s", load_why);
}

int pa_cuda__nvrtc_version(void)
{
    return nv_version;
}

const char *pa_cuda__rtc_include_env(void)
{
    static atomic_int warned;
    return pa__env_dir("PA_KERNEL_INCLUDE", 1024, &warned, "the source tree's and the installed headers only");
}

/*
 * The options every compilation gets: the architecture, C++17, and our device headers' directories:
 * $PA_KERNEL_INCLUDE first (for a relocated installation), then the source tree's and the installed include/
 * directories, then the toolkit's.
 */
static int std_options(int arch, char archopt[32], char incopt[1040], const char **out)
{
    int n = 0;
    const char *env = pa_cuda__rtc_include_env();
    /* PA__ARCH_SPECIFIC: sm_XYa, whose own instructions (wgmma, setmaxnreg) the plain target refuses */
    snprintf(archopt, 32, "--gpu-architecture=sm_%d%s", arch & ~PA__ARCH_SPECIFIC,
             arch & PA__ARCH_SPECIFIC ? "a" : "");
    out[n++] = archopt;
    out[n++] = "--std=c++17";
    if (env && env[0]) {
        snprintf(incopt, 1040, "-I%s", env);
        out[n++] = incopt;
    }
    out[n++] = "-I" PA_SOURCE_INCDIR;
    out[n++] = "-I" PA_INSTALL_INCDIR;
    out[n++] = "-I" PA_CUDA_ROOT "/include";
    return n;
}

/* Puts NVRTC's log into the error message: "<name>: NVRTC: <result>\n<log>". */
static int compile_failed(nvrtcProgram prog, const char *name, nvrtcResult r)
{
    size_t len = 0;
    char *log = NULL;
    if (nv.log_size(prog, &len) == NVRTC_SUCCESS && len > 0 && (log = malloc(len + 1)) != NULL &&
        nv.log(prog, log) == NVRTC_SUCCESS)
        log[len] = '\0';
    else if (log)
        log[0] = '\0';
    int st = pa__err(PA_ERR_COMPILE, "%s: NVRTC: %s\n%s", name, nv.error_string(r), log ? log : "");
    free(log);
    return st;
}

/*
 * One NVRTC compilation at a time.  NVRTC documents its API as thread-safe, but concurrent compiles gave
 * ThreadSanitizer reports inside libnvrtc (a race on its own mutex and heap, seen once in four CI runs of the
 * concurrent-compile test); a compile takes tens of milliseconds and is cached, so serialising them costs
 * little, and the caches' lookups stay concurrent.
 */
static pthread_mutex_t compile_lock = PTHREAD_MUTEX_INITIALIZER;

static int compile_locked(const char *name, const char *source, const char *const *opts, int nopts, int arch,
                          void **cubin, size_t *size);

int pa_cuda__nvrtc_compile(const char *name, const char *source, const char *const *opts, int nopts, int arch,
                           void **cubin, size_t *size)
{
    pthread_mutex_lock(&compile_lock);
    int st = compile_locked(name, source, opts, nopts, arch, cubin, size);
    pthread_mutex_unlock(&compile_lock);
    return st;
}

static int compile_locked(const char *name, const char *source, const char *const *opts, int nopts, int arch,
                          void **cubin, size_t *size)
{
    nvrtcProgram prog = NULL;
    const char **all = NULL;
    char archopt[32], incopt[1040], *bin = NULL;
    size_t len = 0;
    nvrtcResult r;
    int st = pa_cuda__nvrtc_load(), n;
    if (st != PA_OK)
        return st;
    if (!(all = malloc(sizeof *all * (size_t)(nopts + 8))))
        return pa__err(PA_ERR_NOMEM, "%s: out of memory for NVRTC options", name);
    n = std_options(arch, archopt, incopt, all);
    for (int i = 0; i < nopts; i++)
        all[n++] = opts[i];
    if ((r = nv.create(&prog, source, name, 0, NULL, NULL)) != NVRTC_SUCCESS) {
        st = pa__err(r == NVRTC_ERROR_OUT_OF_MEMORY ? PA_ERR_NOMEM : PA_ERR_SYS, "%s: nvrtcCreateProgram: %s",
                     name, nv.error_string(r));
        goto fail;
    }
    if ((r = nv.compile(prog, n, all)) != NVRTC_SUCCESS) {
        st = compile_failed(prog, name, r);
        goto fail;
    }
    if ((r = nv.cubin_size(prog, &len)) != NVRTC_SUCCESS || len == 0) {
        st = pa__err(PA_ERR_COMPILE, "%s: NVRTC produced no cubin for sm_%d%s (%s)", name, arch & ~PA__ARCH_SPECIFIC,
                     arch & PA__ARCH_SPECIFIC ? "a" : "", nv.error_string(r));
        goto fail;
    }
    if (!(bin = malloc(len))) {
        st = pa__err(PA_ERR_NOMEM, "%s: out of memory for a cubin of %zu bytes", name, len);
        goto fail;
    }
    if ((r = nv.cubin(prog, bin)) != NVRTC_SUCCESS) {
        st = pa__err(PA_ERR_SYS, "%s: nvrtcGetCUBIN: %s", name, nv.error_string(r));
        goto fail;
    }
    if (pa_cuda__rtc_wants_link(opts, nopts)) {   /* dynamic parallelism: link the device runtime in */
        void *linked;
        if ((st = pa_cuda__rtc_link_devrt(name, arch & ~PA__ARCH_SPECIFIC, bin, len, &linked, &len)) != PA_OK)
            goto fail;
        free(bin);
        bin = linked;
    }
    *cubin = bin;
    *size = len;
    bin = NULL;
    st = PA_OK;
fail:
    free(bin);
    if (prog)
        nv.destroy(&prog);
    free(all);
    return st;
}
