/*
 * parray — the mmap memory type: an array that is the image of a file (PARRAY's mmap_file, mmap_offset,
 * mmap_prot, mmap_flag and mmap_base become pa_mem_opts fields), or anonymous memory when no file is given.
 *
 * The file is never extended: a file shorter than the mapping would turn stores past its end into SIGBUS,
 * so pa_create refuses it.  Destroying a shared file mapping writes it back with msync(MS_SYNC) before
 * munmap, as PARRAY's destroy does; the descriptor itself stays the caller's and may be closed at any time.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mem_internal.h"

/* The cookie of a shared file mapping points here: destroy must msync it first. */
static char msync_marker;

static int mmap_available(void)
{
    return 1;
}

/* Fills in the flags when the caller left them 0, and checks that they agree with the descriptor. */
static int mmap_flags_for(int fd, int flags, int *out)
{
    if (fd == -1) {
        /* fd -1 means anonymous memory, whatever else the flags say. */
        *out = flags == 0 ? MAP_PRIVATE | MAP_ANONYMOUS : flags | MAP_ANONYMOUS;
        return PA_OK;
    }
    if (flags & MAP_ANONYMOUS)
        return pa__err(PA_ERR_INVAL, "mmap: MAP_ANONYMOUS given together with file descriptor %d; "
                                     "use mmap_fd = -1 for anonymous memory", fd);
    *out = flags == 0 ? MAP_SHARED : flags;
    return PA_OK;
}

/* Checks that a regular file holds offset + bytes bytes; other files (devices) have no meaningful size. */
static int mmap_check_file(int fd, off_t offset, size_t bytes)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return pa__err(PA_ERR_SYS, "mmap: fstat(fd %d) failed: %s", fd, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return PA_OK;
    if (bytes > (size_t)(INT64_MAX - (int64_t)offset))
        return pa__err(PA_ERR_RANGE, "mmap: offset %lld + %zu bytes overflows a file offset", (long long)offset,
                       bytes);
    if ((int64_t)st.st_size < (int64_t)offset + (int64_t)bytes)
        return pa__err(PA_ERR_RANGE,
                       "mmap: file (fd %d) has %lld bytes, but the array needs %lld (offset %lld + %zu bytes); "
                       "the file is not extended, resize it first",
                       fd, (long long)st.st_size, (long long)offset + (long long)bytes, (long long)offset, bytes);
    return PA_OK;
}

static int mmap_alloc(size_t bytes, const pa_mem_opts *opts, void **out, void **cookie)
{
    long page = sysconf(_SC_PAGESIZE);
    int flags = 0, rc;
    void *p;

    if (opts->mmap_fd < -1)
        return pa__err(PA_ERR_INVAL, "mmap: file descriptor %d is negative (use -1 for anonymous memory)",
                       opts->mmap_fd);
    if (opts->mmap_offset < 0 || opts->mmap_offset % page != 0)
        return pa__err(PA_ERR_INVAL, "mmap: offset %lld is not a non-negative multiple of the page size %ld",
                       (long long)opts->mmap_offset, page);
    if (opts->mmap_fd == -1 && opts->mmap_offset != 0)
        return pa__err(PA_ERR_INVAL, "mmap: offset %lld given for anonymous memory (mmap_fd is -1)",
                       (long long)opts->mmap_offset);
    rc = mmap_flags_for(opts->mmap_fd, opts->mmap_flags, &flags);
    if (rc != PA_OK)
        return rc;
    if (opts->mmap_fd >= 0) {
        rc = mmap_check_file(opts->mmap_fd, opts->mmap_offset, bytes);
        if (rc != PA_OK)
            return rc;
    }

    p = mmap(opts->mmap_addr, bytes, opts->mmap_prot, flags, opts->mmap_fd, opts->mmap_offset);
    if (p == MAP_FAILED) {
        int e = errno;
        if (e == ENOMEM)
            return pa__err(PA_ERR_NOMEM, "mmap: cannot map %zu bytes: %s", bytes, strerror(e));
        return pa__err(PA_ERR_SYS, "mmap(%zu bytes, fd %d, offset %lld) failed: %s", bytes, opts->mmap_fd,
                       (long long)opts->mmap_offset, strerror(e));
    }
    *out = p;
    *cookie = opts->mmap_fd >= 0 && (flags & MAP_SHARED) ? &msync_marker : NULL;
    return PA_OK;
}

static int mmap_free(void *ptr, size_t bytes, void *cookie)
{
    int sync_errno = 0;

    /* The mapping is released even when the write-back fails, so that the address space is not leaked. */
    if (cookie == &msync_marker && msync(ptr, bytes, MS_SYNC) != 0)
        sync_errno = errno;
    if (munmap(ptr, bytes) != 0) {
        int e = errno;
        return pa__err(PA_ERR_SYS, "munmap(%p, %zu bytes) failed: %s%s%s", ptr, bytes, strerror(e),
                       sync_errno ? "; msync before it failed too: " : "", sync_errno ? strerror(sync_errno) : "");
    }
    if (sync_errno)
        return pa__err(PA_ERR_SYS, "msync(%p, %zu bytes, MS_SYNC) failed: %s; the mapping was released",
                       ptr, bytes, strerror(sync_errno));
    return PA_OK;
}

const pa__mem_ops pa__mem_mmap_ops = {
    .name = "mmap",
    .host_accessible = 1,
    .available = mmap_available,
    .alloc = mmap_alloc,
    .free = mmap_free,
};
