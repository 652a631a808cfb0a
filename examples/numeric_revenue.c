/*
 * Exact decimal revenue on the GPU: SSB query 1.1's sum, sum(lo_extendedprice * lo_discount) over the rows with
 * lo_discount between 0.01 and 0.03 and lo_quantity < 25, over 600,000 lineorder rows (scale factor 0.1) made
 * here from a fixed seed, with the price a numeric(15,2) column and the discount a numeric(3,2) one.
 *
 * The PL/CUDA function revenue includes "cuda_numeric.h": each of 4096 threads (16 blocks of 256, so that no
 * thread is left over) sums its rows' products exactly (scale 2 + 2 = 4) into the working buffer, and the post kernel adds the 4096 partial sums.  The CPU computes
 * the same sum with the same library as host C, and the sum in float and in double beside it, to show what
 * binary floating point makes of money.  The program fails when the GPU's sum differs from the CPU's by a unit
 * in the last place.  Without a GPU it prints the CPU's results, compiles the function for sm_90 when NVRTC is
 * present, and says the GPU part needs a GPU.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <parray/parray.h>
#include <parray/kernel.h>

enum { ROWS = 600000, THREADS = 4096 };

static const char revenue_src[] =
    "#plcuda_include \"cuda_numeric.h\"\n"
    "#plcuda_include \"tile\"\n"
    "#plcuda_working_bufsz 65536\n"                      /* THREADS partial sums of 16 bytes */
    "#plcuda_begin\n"
    "#plcuda_num_threads 4096\n"
    "#plcuda_kernel_blocksz 256\n"                     /* 16 blocks: exactly 4096 threads, one partial each */
    "  unsigned err = 0;\n"
    "  pa_numeric sum = pa_num_from_long(0);\n"
    "  PA_FOR_EACH(i, arg1_len) {\n"
    "    pa_numeric d = pa_num_load(arg2[i], 2, &err);\n"
    "    if (d.v >= 1 && d.v <= 3 && arg3[i] < 25)\n"
    "      sum = pa_num_add(sum, pa_num_mul(pa_num_load(arg1[i], 2, &err), d, &err), &err);\n"
    "  }\n"
    "  ((pa_decimal128 *)workbuf)[pa_global_id()] = pa_num_store(sum, 38, 4, &err);\n"
    "  pa_num_check(kcxt, err);\n"
    "#plcuda_post\n"
    "  if (pa_global_id() == 0) {\n"
    "    unsigned err = 0;\n"
    "    pa_numeric s = pa_num_from_long(0);\n"
    "    for (int t = 0; t < 4096; t++)\n"
    "      s = pa_num_add(s, pa_num_load(((pa_decimal128 *)workbuf)[t], 4, &err), &err);\n"
    "    *retval = pa_num_store(s, 38, 4, &err);\n"
    "    pa_num_check(kcxt, err);\n"
    "  }\n"
    "#plcuda_end\n";

static uint64_t rng = 0x2545F4914F6CDD1DULL;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

int main(void)
{
    pa_decimal128 *price = malloc(sizeof *price * ROWS), *disc = malloc(sizeof *disc * ROWS), gpu = 0;
    int *qty = malloc(sizeof *qty * ROWS), st = PA_OK, nsel = 0;
    char text[PA_NUMERIC_TEXT_MAX];
    if (!price || !disc || !qty)
        return 1;
    /* lo_extendedprice = lo_quantity * the part's price (900.00 .. 2999.99), lo_discount 0.00 .. 0.10 */
    for (int i = 0; i < ROWS; i++) {
        qty[i] = 1 + (int)(next() % 50);
        price[i] = (pa_decimal128)qty[i] * (90000 + (pa_decimal128)(next() % 210000));
        disc[i] = (pa_decimal128)(next() % 11);
    }
    unsigned err = 0;
    pa_numeric exact = pa_num_from_long(0);
    float fsum = 0;
    double dsum = 0;
    pa_i128 cents_x_hundredths = 0;   /* the same sum as plain integers, a check of the library's */
    for (int i = 0; i < ROWS; i++)
        if (disc[i] >= 1 && disc[i] <= 3 && qty[i] < 25) {
            pa_numeric p = pa_num_load(price[i], 2, &err), d = pa_num_load(disc[i], 2, &err);
            exact = pa_num_add(exact, pa_num_mul(p, d, &err), &err);
            fsum += (float)pa_num_to_double(p) * (float)pa_num_to_double(d);
            dsum += pa_num_to_double(p) * pa_num_to_double(d);
            cents_x_hundredths += price[i] * disc[i];
            nsel++;
        }
    if (pa_numeric_status(err, "revenue on the CPU") != PA_OK) {
        fprintf(stderr, "%s\n", pa_last_error());
        return 1;
    }
    if (exact.scale != 4 || exact.v != cents_x_hundredths) {
        fprintf(stderr, "the exact sum differs from the integer one\n");
        return 1;
    }
    pa_num_to_text(exact, text, sizeof text);
    printf("lineorder: %d rows, lo_extendedprice numeric(15,2), lo_discount numeric(3,2); %d rows selected\n",
           ROWS, nsel);
    printf("revenue, exact (CPU, numeric): %s\n", text);
    printf("revenue, double (CPU):         %.10f\n", dsum);
    printf("revenue, float (CPU):          %.10f\n", (double)fsum);

    pa_kernel *k = NULL;
    if ((st = pa_kernel_create("revenue", "numeric (numeric[], numeric[], int[])", revenue_src, NULL, 0, &k)) !=
        PA_OK) {
        fprintf(stderr, "%s\n", pa_last_error());
        return 1;
    }
    pa_arg args[] = {PA_ARG_N(price, ROWS), PA_ARG_N(disc, ROWS), PA_ARG_N(qty, ROWS)};
    st = pa_kernel_call(k, args, 3, &gpu);
    if (st == PA_ERR_NODEV) {
        int c = pa_kernel_compile(k, 90);
        printf("GPU: needs a GPU (none here); the function %s\n",
               c == PA_OK ? "compiled for sm_90" : "was not compiled (no NVRTC)");
    } else if (st != PA_OK) {
        fprintf(stderr, "%s\n", pa_last_error());
    } else {
        pa_numeric g = {gpu, 4};
        pa_num_to_text(g, text, sizeof text);
        printf("GPU: revenue, exact (GPU, numeric): %s, %s the CPU's\n", text,
               g.v == exact.v ? "equal to" : "DIFFERENT FROM");
        st = g.v == exact.v ? PA_OK : PA_ERR_KERNEL;
    }
    pa_kernel_destroy(k);
    free(price);
    free(disc);
    free(qty);
    return st == PA_OK || st == PA_ERR_NODEV ? 0 : 1;
}
