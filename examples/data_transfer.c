/*
 * data_transfer — the manual's listing 15: a copy between host memory and device memory whose column
 * dimensions are transposed, so that each contiguous unit is one row of SIZE doubles.
 *
 *     HOST = paged double [[16][16]][SIZE]
 *     DEV  = dmem double [[#HOST_0_1][#HOST_0_0]][#HOST_1]
 *     copy HOST(host) to DEV(dev)
 *
 * The bandwidth line of the listing goes to standard error (it changes from run to run); standard output
 * says what was copied and that the round trip came back element for element.  Without a GPU the program
 * exits 77.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <parray/parray.h>
#include <parray/cuda.h>

#define SIZE 4096

static void fail(const char *what)
{
    fprintf(stderr, "data_transfer: %s: %s\n", what, pa_last_error());
    exit(1);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(void)
{
    if (pa_cuda_device_count() < 1) {
        fprintf(stderr, "data_transfer: skipped: %s\n", pa_last_error());
        return 77;
    }
    pa_scope *s;
    if (pa_scope_create(NULL, &s) != PA_OK || pa_cuda_set_device(0) != PA_OK ||
        pa_declare(s, "HOST", "paged double [[16][16]][4096]") != PA_OK ||
        pa_declare(s, "DEV", "dmem double [[#HOST_0_1][#HOST_0_0]][#HOST_1]") != PA_OK)
        fail("declare");
    const pa_type *HOST = pa_type_get(s, "HOST"), *DEV = pa_type_get(s, "DEV");
    double *host = pa_create(HOST), *back = pa_create(HOST), *dev = pa_create(DEV);
    if (!host || !back || !dev)
        fail("create");
    for (int64_t i = 0; i < pa_size(HOST); i++)
        host[i] = (double)i, back[i] = -1.0;
    double t0 = now();
    if (pa_copy(DEV, dev, HOST, host) != PA_OK)
        fail("copy HOST to DEV");
    double sec = now() - t0, gb = (double)pa_size(HOST) * sizeof(double) / (1024.0 * 1024 * 1024);
    fprintf(stderr, "%.3f sec %.3fGB %.3f GB/s\n", sec, gb, gb / sec);
    if (pa_copy(HOST, back, DEV, dev) != PA_OK)
        fail("copy DEV to HOST");
    int64_t bad = 0;
    for (int64_t i = 0; i < pa_size(HOST); i++)
        bad += back[i] != host[i];
    /* DEV's element k is HOST's element k: the (i, j) row of the host lands at row (j, i) on the device. */
    double probe;
    const pa_type *one = pa_type_parse(s, "dmem double [1]"), *h1 = pa_type_parse(s, "paged double [1]");
    if (pa_copy(h1, &probe, one, dev + pa_offset(DEV, (int64_t)(3 * 16 + 5) * SIZE)) != PA_OK)
        fail("probe");
    printf("HOST %lld doubles, rows of %d contiguous on both sides\n", (long long)pa_size(HOST), SIZE);
    printf("HOST row (3,5) starts at DEV row %lld: %s\n", (long long)(pa_offset(DEV, (3 * 16 + 5) * SIZE) / SIZE),
           probe == host[(3 * 16 + 5) * SIZE] ? "ok" : "WRONG");
    printf("round trip: %lld elements differ\n", (long long)bad);
    pa_destroy(HOST, host), pa_destroy(HOST, back), pa_destroy(DEV, dev);
    pa_scope_destroy(s);
    return bad != 0;
}
