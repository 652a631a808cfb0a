/*
 * parray — the run-time compiler's memory cache and its keys.
 *
 * A request (source, options, architecture) is identified by two independent 64-bit hashes of its material,
 * which also holds NVRTC's version and the library's (whose device headers the source may include).  Images
 * live in a list under one mutex; compilation runs outside the lock, and when two threads compile the same
 * request at once, the first image inserted wins and the other is freed.  Images are never freed before exit:
 * the pointers handed out stay valid, as rtc.h promises.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_backend.h"
#include "internal.h"
#include "rtc_internal.h"

struct pa_cuda__image {
    pa_cuda__rtc_key key;
    int arch;
    size_t size;
    void *data;
    struct pa_cuda__image *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pa_cuda__image *index_head;     /* images found by their key */
static pa_cuda__image *retired;        /* forgotten by pa_cuda__rtc_forget, still valid */
static pa_cuda__rtc_stats stats;

uint64_t pa_cuda__fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* The second hash: FNV-1a from another basis, finished by splitmix64's mixer so that its bits are unrelated. */
static uint64_t finish(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void feed(pa_cuda__rtc_key *k, const void *data, size_t n)
{
    uint64_t len = n;
    k->key = pa_cuda__fnv1a(pa_cuda__fnv1a(k->key, &len, sizeof len), data, n);
    k->check = pa_cuda__fnv1a(pa_cuda__fnv1a(k->check, data, n), &len, sizeof len);
}

int pa_cuda__rtc_key_of(const char *source, const char *const *opts, int nopts, int arch, pa_cuda__rtc_key *out)
{
#define PA__STR2(x) #x
#define PA__STR(x) PA__STR2(x)
    static const char tag[] = "parray-rtc/1 " PA__STR(PA_VERSION_MAJOR) "." PA__STR(PA_VERSION_MINOR) "."
                              PA__STR(PA_VERSION_PATCH);
    int st = pa_cuda__nvrtc_load(), nv, vals[3];
    if (st != PA_OK)
        return st;
    nv = pa_cuda__nvrtc_version();
    pa_cuda__rtc_key k = {PA_CUDA__FNV_BASIS, 0x84222325cbf29ce4ull};
    feed(&k, tag, sizeof tag);
    feed(&k, source, strlen(source));
    for (int i = 0; i < nopts; i++)
        feed(&k, opts[i], strlen(opts[i]));
    /* The extra include directory changes what the source's #includes read. */
    const char *inc = pa_cuda__rtc_include_env();
    feed(&k, inc ? inc : "", inc ? strlen(inc) : 0);
    vals[0] = nopts;
    vals[1] = arch;
    vals[2] = nv;
    feed(&k, vals, sizeof vals);
    k.check = finish(k.check);
    *out = k;
    return PA_OK;
}

static pa_cuda__image *find(const pa_cuda__rtc_key *k, int arch)
{
    for (pa_cuda__image *i = index_head; i; i = i->next)
        if (i->key.key == k->key && i->key.check == k->check && i->arch == arch)
            return i;
    return NULL;
}

/* Inserts an image unless an equal one came first; returns the one in the cache.  Takes ownership of img. */
static pa_cuda__image *insert(pa_cuda__image *img)
{
    pthread_mutex_lock(&lock);
    pa_cuda__image *old = find(&img->key, img->arch);
    if (!old) {
        img->next = index_head;
        index_head = img;
    }
    pthread_mutex_unlock(&lock);
    if (old) {
        free(img->data);
        free(img);
        return old;
    }
    return img;
}

static void count(long *counter)
{
    pthread_mutex_lock(&lock);
    (*counter)++;
    pthread_mutex_unlock(&lock);
}

int pa_cuda__current_arch(const char *name, int *arch)
{
    int dev = 0, major = 0, minor = 0, st = pa_cuda__ready(name);
    cudaError_t e;
    if (st != PA_OK)
        return st;
    if ((e = cudaGetDevice(&dev)) != cudaSuccess ||
        (e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev)) != cudaSuccess ||
        (e = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev)) != cudaSuccess)
        return pa_cuda__fail(e, "%s: the current GPU's compute capability", name);
    *arch = major * 10 + minor;
    return PA_OK;
}

/* The image for a key from disk or NVRTC (the memory cache missed). */
static int produce(const char *name, const char *source, const char *const *opts, int nopts, int arch,
                   const pa_cuda__rtc_key *k, pa_cuda__image **out)
{
    pa_cuda__image *img = calloc(1, sizeof *img);
    int st, disk;
    if (!img)
        return pa__err(PA_ERR_NOMEM, "%s: out of memory", name);
    img->key = *k;
    img->arch = arch;
    disk = pa_cuda__rtc_disk_read(k, &img->data, &img->size, NULL, 0);
    if (disk == 1) {
        count(&stats.disk_hits);
    } else {
        if (disk < 0)
            count(&stats.disk_rejects);
        if ((st = pa_cuda__nvrtc_compile(name, source, opts, nopts, arch, &img->data, &img->size)) != PA_OK) {
            free(img);
            return st;
        }
        count(&stats.compiles);
        if (pa_cuda__rtc_disk_write(k, img->data, img->size))
            count(&stats.disk_writes);
    }
    *out = img;
    return PA_OK;
}

int pa_cuda__rtc_compile(const char *name, const char *source, const char *const *opts, int nopts, int arch,
                         const pa_cuda__image **out)
{
    pa_cuda__rtc_key k;
    pa_cuda__image *img;
    int st;
    if (!name || !source || !out || nopts < 0 || (nopts > 0 && !opts) || arch < 0)
        return pa__err(PA_ERR_INVAL, "pa_cuda__rtc_compile: NULL name, source or output, or bad options");
    /* arch 0 (or PA__ARCH_SPECIFIC alone): the current GPU's; the flag stays in arch, so in the key too */
    if ((arch & ~PA__ARCH_SPECIFIC) == 0) {
        int cur = 0;
        if ((st = pa_cuda__current_arch(name, &cur)) != PA_OK)
            return st;
        arch |= cur;
    }
    if ((st = pa_cuda__rtc_key_of(source, opts, nopts, arch, &k)) != PA_OK)
        return st;
    pthread_mutex_lock(&lock);
    img = find(&k, arch);
    if (img)
        stats.memory_hits++;
    pthread_mutex_unlock(&lock);
    if (!img) {
        if ((st = produce(name, source, opts, nopts, arch, &k, &img)) != PA_OK)
            return st;
        img = insert(img);
    }
    *out = img;
    return PA_OK;
}

const void *pa_cuda__image_data(const pa_cuda__image *img, size_t *size)
{
    if (size)
        *size = img->size;
    return img->data;
}

pa_cuda__rtc_key pa_cuda__image_key(const pa_cuda__image *img)
{
    return img->key;
}

void pa_cuda__rtc_get_stats(pa_cuda__rtc_stats *out)
{
    pthread_mutex_lock(&lock);
    *out = stats;
    pthread_mutex_unlock(&lock);
}

void pa_cuda__rtc_count_load(void)
{
    count(&stats.loads);
}

void pa_cuda__rtc_forget(void)
{
    pthread_mutex_lock(&lock);
    while (index_head) {
        pa_cuda__image *i = index_head;
        index_head = i->next;
        i->next = retired;
        retired = i;
    }
    pthread_mutex_unlock(&lock);
}

int pa_cuda__cubin_sane(const void *data, size_t size)
{
    const unsigned char *p = data;
    /* ELF magic, 64-bit class, little-endian. */
    return size >= 64 && p[0] == 0x7f && p[1] == 'E' && p[2] == 'L' && p[3] == 'F' && p[4] == 2 && p[5] == 1;
}
