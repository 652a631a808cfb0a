/*
 * parray — reading the files the library is given by name (SSB .tbl and column files, the cost file, matrix
 * CSV files) without being made to hang or to grow without bound.
 *
 * A name may lead to a FIFO, a terminal or a device such as /dev/zero: opening a FIFO for reading blocks until a
 * writer comes, and reading /dev/zero never ends.  So the file is opened with O_NONBLOCK (an open that cannot
 * block), then fstat'ed through the descriptor (no race with a rename between a stat and the open), and anything
 * but a regular file is refused before a byte is read.  A regular file is read up to the size fstat gave, so a
 * file that grows while it is read cannot make the buffer grow with it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"

static const char *kind_of(mode_t m)
{
    return S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
         : S_ISDIR(m) ? "a directory" : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

int pa__open_regular(const char *what, const char *path, size_t max, int *fd_out, size_t *size)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        int err = errno;
        int rc = pa__err(PA_ERR_SYS, "%s: cannot open %s: %s", what, path, strerror(err));
        errno = err;
        return rc;
    }
    if (fstat(fd, &st) != 0) {
        int rc = pa__err(PA_ERR_SYS, "%s: %s: %s", what, path, strerror(errno));
        close(fd);
        return rc;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        int rc = pa__err(PA_ERR_INVAL, "%s: %s is %s, not a regular file (refused: reading it could block or never "
                         "end)", what, path, kind_of(st.st_mode));
        errno = EINVAL;   /* after the message, which may touch errno: callers tell this from ENOENT */
        return rc;
    }
    if (st.st_size < 0 || (max > 0 && (uint64_t)st.st_size > max) || (uint64_t)st.st_size >= SIZE_MAX) {
        close(fd);
        int rc = pa__err(PA_ERR_SIZE, "%s: %s has %lld bytes, more than the %zu this file may hold", what, path,
                         (long long)st.st_size, max);
        errno = EFBIG;
        return rc;
    }
    *fd_out = fd;
    *size = (size_t)st.st_size;
    return PA_OK;
}

int pa__read_regular(const char *what, const char *path, size_t max, char **out, size_t *len)
{
    int fd = -1;
    size_t size = 0, got = 0;
    int rc = pa__open_regular(what, path, max, &fd, &size);
    if (rc != PA_OK)
        return rc;
    char *buf = malloc(size + 1);
    if (!buf) {
        close(fd);
        return pa__err(PA_ERR_NOMEM, "%s: %s: %zu bytes", what, path, size);
    }
    while (got < size) {
        ssize_t n = read(fd, buf + got, size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = pa__err(PA_ERR_SYS, "%s: reading %s: %s", what, path, n < 0 ? strerror(errno) : "the file shrank");
            free(buf);
            close(fd);
            return rc;
        }
        got += (size_t)n;
    }
    close(fd);
    buf[got] = '\0';
    *out = buf;
    *len = got;
    return PA_OK;
}
