/*
 * bench/gemm_source — prints the tiled gemm's generated CUDA source (pa_gemm_dmem_source) for n x n row-major
 * float matrices (-t: A stored transposed), so that the compiler's resource report can be read without a GPU:
 *
 *     gemm_source [-t] [n [bm bn bk tm tn threads [lanes_n [min_blocks [stages]]]]] > g.cu &&
 *         nvcc -arch=sm_90 -cubin -Xptxas -v -I include g.cu
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parray/parray.h"
#include <parray/gputile.h>

int main(int argc, char **argv)
{
    int at = argc > 1 && strcmp(argv[1], "-t") == 0;
    if (at) {
        argv++;
        argc--;
    }
    int n = argc > 1 ? atoi(argv[1]) : 4096;
    pa_gemm_config c, *cfg = NULL;
    if (argc > 7) {
        c = (pa_gemm_config){atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), atoi(argv[5]), atoi(argv[6]), atoi(argv[7]),
                             argc > 8 ? atoi(argv[8]) : 0, argc > 9 ? atoi(argv[9]) : 0, argc > 10 ? atoi(argv[10]) : 0, 0};
        cfg = &c;
    }
    pa_scope *s;
    char d[512];
    snprintf(d, sizeof d, "parray dmem float [%d][%d] A; parray dmem float [%d][%d] B; parray dmem float [%d][%d] C;"
             "parray dmem float [#A_1][#A_0] AT;", n, n, n, n, n, n);
    if (pa_scope_create(NULL, &s) != PA_OK || pa_declare_text(s, d) != PA_OK) {
        fprintf(stderr, "gemm_source: %s\n", pa_last_error());
        return 1;
    }
    char *src = pa_gemm_dmem_source(pa_type_get(s, "C"), pa_type_get(s, at ? "AT" : "A"), pa_type_get(s, "B"), cfg);
    if (src == NULL) {
        fprintf(stderr, "gemm_source: %s\n", pa_last_error());
        return 1;
    }
    fputs(src, stdout);
    free(src);
    pa_scope_destroy(s);
    return 0;
}
