/*
 * parray — the run-time compiler's disk cache: one file per compilation, named by its key, in
 * $PA_KERNEL_CACHE (or $XDG_CACHE_HOME/parray, or ~/.cache/parray).
 *
 * A file is a fixed header followed by the cubin.  The header carries a magic, a format version, both hashes
 * of the request's material, the cubin's size and its checksum; a file whose header, size, hashes, checksum or
 * ELF magic disagree is rejected (and later overwritten), never loaded.  Files are written to a temporary name
 * in the same directory and renamed into place, so readers see either no file or a whole one.  Nothing here
 * fails a compilation: a missing or unwritable directory only means no caching.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "rtc_internal.h"

#define MAGIC "PAKCUBIN"
#define FORMAT 1
#define MAX_FILE ((size_t)1 << 30)

typedef struct header {
    char magic[8];
    uint32_t format, header_size;
    uint64_t key, check;
    uint64_t size, sum;
} header;

int pa_cuda__rtc_cache_dir(char *buf, size_t len)
{
    const char *env = getenv("PA_KERNEL_CACHE"), *base;
    static atomic_int warned;
    int n;
    if (env && (!env[0] || strcmp(env, "off") == 0))
        n = -1;
    else if (env && (env = pa__env_dir("PA_KERNEL_CACHE", len - 32, &warned,
                                       "$XDG_CACHE_HOME/parray, else ~/.cache/parray")) != NULL)
        n = snprintf(buf, len, "%s", env);
    else if ((base = getenv("XDG_CACHE_HOME")) != NULL && base[0] == '/')
        n = snprintf(buf, len, "%s/parray", base);
    else if ((base = getenv("HOME")) != NULL && base[0])
        n = snprintf(buf, len, "%s/.cache/parray", base);
    else
        n = -1;
    return n > 0 && (size_t)n < len;
}

int pa_cuda__rtc_cache_path(const pa_cuda__rtc_key *k, char *buf, size_t len)
{
    char dir[900];
    if (!pa_cuda__rtc_cache_dir(dir, sizeof dir))
        return 0;
    int n = snprintf(buf, len, "%s/%016llx.pakc", dir, (unsigned long long)k->key);
    return n > 0 && (size_t)n < len;
}

static int reject(char *why, size_t len, const char *reason)
{
    if (why)
        snprintf(why, len, "%s", reason);
    return -1;
}

/* Checks a whole file's bytes; on success points *cubin into them. */
static int check_file(const pa_cuda__rtc_key *k, const unsigned char *buf, size_t n, char *why, size_t wl)
{
    header h;
    if (n < sizeof h)
        return reject(why, wl, "truncated header");
    memcpy(&h, buf, sizeof h);
    if (memcmp(h.magic, MAGIC, 8) != 0)
        return reject(why, wl, "bad magic");
    if (h.format != FORMAT || h.header_size != sizeof h)
        return reject(why, wl, "other format version");
    if (h.key != k->key || h.check != k->check)
        return reject(why, wl, "foreign key");
    if (h.size != n - sizeof h)
        return reject(why, wl, "truncated or padded cubin");
    if (h.sum != pa_cuda__fnv1a(PA_CUDA__FNV_BASIS, buf + sizeof h, (size_t)h.size))
        return reject(why, wl, "checksum mismatch");
    if (!pa_cuda__cubin_sane(buf + sizeof h, (size_t)h.size))
        return reject(why, wl, "not an ELF cubin");
    return 1;
}

static int read_all(int fd, unsigned char **out, size_t *n)
{
    struct stat sb;
    unsigned char *buf;
    size_t got = 0;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size <= 0 || (size_t)sb.st_size > MAX_FILE)
        return 0;
    if (!(buf = malloc((size_t)sb.st_size)))
        return 0;
    while (got < (size_t)sb.st_size) {
        ssize_t r = read(fd, buf + got, (size_t)sb.st_size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    *out = buf;
    *n = got;
    return 1;
}

int pa_cuda__rtc_disk_read(const pa_cuda__rtc_key *k, void **cubin, size_t *size, char *why, size_t whylen)
{
    char path[1024];
    unsigned char *buf = NULL, *bin = NULL;
    size_t n = 0;
    struct stat sb;
    int fd, res;
    if (!pa_cuda__rtc_cache_path(k, path, sizeof path) || stat(path, &sb) != 0)
        return 0;
    /* Nothing but a regular file is opened: a FIFO or a device at the path would block or act on open.  The
     * open does not block either (a FIFO put there since the stat), and read_all checks the file it got. */
    if (!S_ISREG(sb.st_mode))
        return reject(why, whylen, "not a regular file");
    if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)) < 0)
        return 0;
    res = read_all(fd, &buf, &n) ? check_file(k, buf, n, why, whylen) : reject(why, whylen, "unreadable");
    close(fd);
    if (res == 1) {
        size_t len = n - sizeof(header);
        if ((bin = malloc(len)) != NULL) {
            memcpy(bin, buf + sizeof(header), len);
            *cubin = bin;
            *size = len;
        } else {
            res = 0;
        }
    }
    free(buf);
    return res;
}

/* mkdir -p with mode 0700 for the parts that do not exist. */
static int make_dirs(const char *dir)
{
    char tmp[1024];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof tmp)
        return 0;
    memcpy(tmp, dir, n + 1);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
                return 0;
            *p = '/';
        }
    return mkdir(tmp, 0700) == 0 || errno == EEXIST;
}

static int write_all(int fd, const void *data, size_t n)
{
    const unsigned char *p = data;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return 0;
        p += w;
        n -= (size_t)w;
    }
    return 1;
}

int pa_cuda__rtc_disk_write(const pa_cuda__rtc_key *k, const void *cubin, size_t size)
{
    char dir[900], path[1024], tmp[1100];
    header h;
    int fd, ok;
    if (!pa_cuda__rtc_cache_dir(dir, sizeof dir) || !make_dirs(dir) ||
        !pa_cuda__rtc_cache_path(k, path, sizeof path))
        return 0;
    snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path);
    if ((fd = mkstemp(tmp)) < 0)
        return 0;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, MAGIC, 8);
    h.format = FORMAT;
    h.header_size = sizeof h;
    h.key = k->key;
    h.check = k->check;
    h.size = size;
    h.sum = pa_cuda__fnv1a(PA_CUDA__FNV_BASIS, cubin, size);
    ok = write_all(fd, &h, sizeof h) && write_all(fd, cubin, size);
    ok = close(fd) == 0 && ok;
    if (ok && rename(tmp, path) == 0)
        return 1;
    unlink(tmp);
    return 0;
}
