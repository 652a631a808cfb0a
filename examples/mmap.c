/*
 * mmap — the manual's listing 16: swap the first two bytes of a file through an mmap array.
 *
 * HOST is an mmap array of two chars.  The manual sets the file with "$var mmap_file(fd)" before
 * "$create HOST(host)"; here the descriptor goes in pa_mem_opts.  Destroying the array writes the image
 * back, so the file itself changes.  Unlike the manual, which opens an existing "mmap.data", the program
 * makes its own small temporary file holding "ab", and reads the file again after pa_destroy to show that
 * the swap reached it.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <parray/parray.h>

/* Makes a temporary file holding "ab\n" and returns its descriptor (already unlinked), or -1. */
static int make_data_file(void)
{
    const char *dir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/parray-mmap-XXXXXX", dir != NULL && dir[0] != '\0' ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) {
        perror("mmap: mkstemp");
        return -1;
    }
    unlink(path);
    if (write(fd, "ab\n", 3) != 3) {
        perror("mmap: write");
        close(fd);
        return -1;
    }
    return fd;
}

int main(void)
{
    int fd = make_data_file();
    if (fd < 0)
        return 1;

    pa_scope *scope = NULL;
    const pa_type *HOST = NULL;
    if (pa_scope_create(NULL, &scope) != PA_OK || pa_declare(scope, "HOST", "mmap char [2]") != PA_OK ||
        (HOST = pa_type_get(scope, "HOST")) == NULL) {
        fprintf(stderr, "mmap: %s\n", pa_last_error());
        return 1;
    }

    pa_mem_opts opts;
    pa_mem_opts_init(&opts);
    opts.mmap_fd = fd;
    char *host = pa_create_opts(HOST, &opts);
    if (host == NULL) {
        fprintf(stderr, "mmap: pa_create: %s\n", pa_last_error());
        return 1;
    }

    char tmp = host[0];
    host[0] = host[1];
    host[1] = tmp;
    printf("mmap.data: %c %c\n", host[0], host[1]);

    if (pa_destroy(HOST, host) != PA_OK) {
        fprintf(stderr, "mmap: pa_destroy: %s\n", pa_last_error());
        return 1;
    }

    char back[3] = {0};
    if (pread(fd, back, 2, 0) != 2) {
        perror("mmap: pread");
        return 1;
    }
    printf("file after destroy: %s\n", back);

    close(fd);
    pa_scope_destroy(scope);
    return 0;
}
