/*
 * parray — NCCL loaded at run time.
 *
 * libparray links no NCCL: a machine without it loads the library and runs every other route.  The first
 * distributed copy that could take the NCCL route (or `parray info`) loads libnccl.so.2 from, in order:
 * PA_NCCL_LIBRARY (a file), the directory meson found NCCL in at build time, and the loader's search path.
 * A library older than the headers we were built with is refused (its calls may differ).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nccl_backend.h"
#include "pa_config.h"

static pa_nccl__lib lib;
static const char *load_why;
static char why_buf[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void *try_open(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h)
        snprintf(lib.path, sizeof lib.path, "%s", path);
    return h;
}

#define RESOLVE(field, name)                                                                                      \
    do {                                                                                                          \
        *(void **)&lib.field = dlsym(h, name);                                                                   \
        if (!lib.field) {                                                                                         \
            snprintf(why_buf, sizeof why_buf, "%s has no %s (NCCL too old?)", lib.path, name);                  \
            load_why = why_buf;                                                                                   \
            return;                                                                                               \
        }                                                                                                         \
    } while (0)

static void load(void)
{
    void *h = NULL;
    const char *env = getenv("PA_NCCL_LIBRARY");
    if (env && *env && !(h = try_open(env))) {
        snprintf(why_buf, sizeof why_buf, "PA_NCCL_LIBRARY=%s cannot be loaded: %s", env, dlerror());
        load_why = why_buf;
        return;
    }
#ifdef PA_NCCL_LIBDIR
    if (!h && *PA_NCCL_LIBDIR) {
        char path[200];
        snprintf(path, sizeof path, "%.180s/libnccl.so.2", PA_NCCL_LIBDIR);
        h = try_open(path);
    }
#endif
    if (!h && !(h = try_open("libnccl.so.2"))) {
        snprintf(why_buf, sizeof why_buf, "libnccl.so.2 is not found (set PA_NCCL_LIBRARY, or install NCCL, e.g. "
                 "`pip install nvidia-nccl-cu13`): %s", dlerror());
        load_why = why_buf;
        return;
    }
    RESOLVE(get_version, "ncclGetVersion");
    RESOLVE(get_unique_id, "ncclGetUniqueId");
    RESOLVE(comm_init_rank, "ncclCommInitRank");
    RESOLVE(comm_destroy, "ncclCommDestroy");
    RESOLVE(comm_abort, "ncclCommAbort");
    RESOLVE(group_start, "ncclGroupStart");
    RESOLVE(group_end, "ncclGroupEnd");
    RESOLVE(send, "ncclSend");
    RESOLVE(recv, "ncclRecv");
    RESOLVE(error_string, "ncclGetErrorString");
    RESOLVE(last_error, "ncclGetLastError");
    if (lib.get_version(&lib.version) != ncclSuccess || lib.version < 21800) {
        snprintf(why_buf, sizeof why_buf, "%s is NCCL %d; parray needs 2.18 or later", lib.path, lib.version);
        load_why = why_buf;
        lib.get_version = NULL;
    }
}

const pa_nccl__lib *pa_nccl__load(const char **why)
{
    pthread_once(&once, load);
    if (load_why || !lib.get_version) {
        if (why)
            *why = load_why ? load_why : "NCCL could not be loaded";
        return NULL;
    }
    return &lib;
}

int pa_nccl__probe(char *why, size_t len)
{
    const char *reason;
    const pa_nccl__lib *l = pa_nccl__load(&reason);
    if (!l) {
        snprintf(why, len, "%s", reason);
        return 0;
    }
    snprintf(why, len, "NCCL %d.%d.%d from %s", l->version / 10000, l->version / 100 % 100, l->version % 100,
             l->path);
    return 1;
}

int pa_nccl__fail(ncclResult_t r, ncclComm_t comm, const char *what)
{
    const char *detail = lib.last_error ? lib.last_error(comm) : NULL;
    return pa__err(PA_ERR_SYS, "NCCL: %s failed: %s%s%s", what, lib.error_string ? lib.error_string(r) : "error",
                   detail && *detail ? ": " : "", detail && *detail ? detail : "");
}

int pa_nccl__cuda_fail(cudaError_t e, const char *what)
{
    int nodev = e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver;
    return pa__err(nodev ? PA_ERR_NODEV : PA_ERR_SYS, "NCCL route: %s failed: %s (%s)", what, cudaGetErrorString(e),
                   cudaGetErrorName(e));
}
