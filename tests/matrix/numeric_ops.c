/* parray tests — the "numeric" and "money" device libraries (include/parray/plcuda/numeric.h, money.h) compiled
 * as host C, printing every operation on random and edge-case operands with its result, one per line, for
 * tests/python/numeric_oracle.py to recompute with Python's decimal module (an oracle that shares no code with
 * the library: values travel as the two hex halves of their 128-bit integers, strings as hex bytes).
 *
 *     numeric_ops [SEED [COUNT]]      COUNT random operations of each kind (default 2000), seed default 1
 *
 * Line formats (V: hi:lo/scale, the value hi:lo * 10^-scale; R: a V, or E<flags> on error; S: hex bytes):
 *     add|sub|mul|div V V R     divs V V s R     cmp V V c     abs|neg V V     round V s R     store V p s R     load hi:lo s R
 *     text V S     parse S s R     long n V     tolong V n|E<flags>     dbl V %a
 *     madd|msub M M r     mmuli|mdivi M n r     mmuln|mdivn M V r     mparse S s r     mtext M s S
 * (M, r: money as decimal integers; r may be E<flags>). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parray/plcuda/money.h"

static uint64_t rng_state;

static uint64_t rnd(void)
{
    uint64_t x = rng_state;   /* xorshift64* */
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

static int rndint(int lo, int hi)
{
    return lo + (int)(rnd() % (uint64_t)(hi - lo + 1));
}

/* A random value of up to p digits (the count uniform, then the digits) at scale s. */
static pa_numeric rnd_num(int p, int s)
{
    pa_numeric r;
    int n = rndint(0, p);
    pa_u128 m = 0;
    for (int i = 0; i < n; i++)
        m = m * 10 + (pa_u128)rndint(i == 0 ? 1 : 0, 9);
    r.v = rnd() & 1 ? -(pa_i128)m : (pa_i128)m;
    r.scale = s;
    return r;
}

static pa_numeric rnd_any(void)
{
    int p = rndint(1, 38);
    return rnd_num(p, rndint(0, p));
}

static void put_v(pa_numeric a)
{
    pa_u128 u = (pa_u128)a.v;
    printf(" %llx:%llx/%d", (unsigned long long)(u >> 64), (unsigned long long)u, a.scale);
}

static void put_r(pa_numeric a, unsigned err)
{
    if (err)
        printf(" E%u", err);
    else
        put_v(a);
}

static void put_s(const char *s, long n)
{
    putchar(' ');
    if (n == 0)
        putchar('-');
    for (long i = 0; i < n; i++)
        printf("%02x", (unsigned char)s[i]);
}

static void put_m(long long m, unsigned err)
{
    if (err)
        printf(" E%u", err);
    else
        printf(" %lld", m);
}

/* Operands at the limits: zeros at several scales, 38 nines, the smallest step, ties. */
static pa_numeric edge(int i)
{
    static const struct { int neg; int digits9; int scale; long long small; } e[] = {
        {0, 0, 0, 0}, {0, 0, 2, 0}, {0, 0, 38, 0}, {0, 38, 0, 0}, {1, 38, 0, 0}, {0, 38, 38, 0}, {1, 38, 38, 0},
        {0, 0, 38, 1}, {1, 0, 38, 1}, {0, 0, 1, 5}, {1, 0, 1, 5}, {0, 0, 3, 125}, {1, 0, 3, 125}, {0, 0, 2, 250},
        {0, 37, 0, 0}, {0, 0, 0, 1}, {1, 0, 0, 1}, {0, 0, 19, 5}, {0, 20, 10, 0}, {1, 0, 6, 999999},
    };
    int n = (int)(sizeof e / sizeof *e);
    pa_numeric r;
    pa_u128 m = (pa_u128)e[i % n].small;
    for (int k = 0; k < e[i % n].digits9; k++)
        m = m * 10 + 9;
    r.v = e[i % n].neg ? -(pa_i128)m : (pa_i128)m;
    r.scale = e[i % n].scale;
    return r;
}

#define NEDGE 20

static void binary(const char *op, pa_numeric a, pa_numeric b)
{
    unsigned err = 0;
    pa_numeric r;
    switch (op[0]) {
    case 'a': r = pa_num_add(a, b, &err); break;
    case 's': r = pa_num_sub(a, b, &err); break;
    case 'm': r = pa_num_mul(a, b, &err); break;
    default: r = pa_num_div(a, b, &err); break;
    }
    printf("%s", op);
    put_v(a);
    put_v(b);
    put_r(r, err);
    printf("\n");
    printf("cmp");
    put_v(a);
    put_v(b);
    printf(" %d\n", pa_num_cmp(a, b));
    if (op[0] == 'd') {   /* the division again, to a scale of its own (some outside 0..38) */
        int s = rndint(-1, 39);
        err = 0;
        r = pa_num_div_scale(a, b, s, &err);
        printf("divs");
        put_v(a);
        put_v(b);
        printf(" %d", s);
        put_r(r, err);
        printf("\n");
    }
}

static void unary(pa_numeric a)
{
    char buf[PA_NUMERIC_TEXT_MAX] = "";
    unsigned err = 0;
    int s = rndint(0, 38);
    pa_numeric r = pa_num_round(a, s, &err);
    printf("round");
    put_v(a);
    printf(" %d", s);
    put_r(r, err);
    printf("\nabs");
    put_v(a);
    put_v(pa_num_abs(a));
    printf("\nneg");
    put_v(a);
    put_v(pa_num_neg(a));
    printf("\ntext");
    put_v(a);
    int n = pa_num_to_text(a, buf, sizeof buf);
    put_s(buf, n < 0 ? 0 : n);
    printf("\ndbl");
    put_v(a);
    printf(" %a\n", pa_num_to_double(a));
    err = 0;
    long long l = pa_num_to_long(a, &err);
    printf("tolong");
    put_v(a);
    put_m(l, err);
    int p = rndint(1, 38), ps = rndint(0, p);
    err = 0;
    pa_decimal128 st = pa_num_store(a, p, ps, &err);
    pa_numeric sv = {st, ps};
    printf("\nstore");
    put_v(a);
    printf(" %d %d", p, ps);
    put_r(sv, err);
    printf("\n");
}

/* Random text: mostly well formed, sometimes with spaces, a sign, long fractions, or one flaw. */
static int rnd_text(char *buf)
{
    static const char *const bad[] = {"", " ", "+", "-", ".", "1e5", "1.5E-3", "NaN", "Infinity", "1,000", "--1",
                                      "1..2", "0x10", "1 2", "+-3", "12a", "\xc2\xa0" "1"};
    int n = 0;
    if (rndint(0, 9) == 0) {
        const char *b = bad[rndint(0, (int)(sizeof bad / sizeof *bad) - 1)];
        strcpy(buf, b);
        return (int)strlen(b);
    }
    for (int k = rndint(0, 3) == 0 ? rndint(1, 2) : 0; k > 0; k--)
        buf[n++] = rnd() & 1 ? ' ' : '\t';
    if (rndint(0, 2) == 0)
        buf[n++] = rnd() & 1 ? '-' : '+';
    int ni = rndint(0, rndint(0, 40)), nf = rndint(0, 3) == 0 ? -1 : rndint(0, 45);
    if (ni == 0 && nf <= 0)
        ni = 1;
    for (int i = 0; i < ni; i++)
        buf[n++] = (char)('0' + rndint(0, 9));
    if (nf >= 0) {
        buf[n++] = '.';
        for (int i = 0; i < nf; i++)
            buf[n++] = (char)('0' + (i == nf - 1 && rnd() & 1 ? 5 : rndint(0, 9)));
    }
    if (rndint(0, 3) == 0)
        buf[n++] = ' ';
    buf[n] = '\0';
    return n;
}

static void texts(void)
{
    char buf[128];
    int n = rnd_text(buf), s = rndint(-1, 39);
    unsigned err = 0;
    pa_numeric r = pa_num_from_text(buf, n, s, &err);
    printf("parse");
    put_s(buf, n);
    printf(" %d", s);
    put_r(r, err);
    printf("\n");
    err = 0;
    s = rndint(-1, 19);
    long long m = pa_money_from_text_scale(buf, n, s, &err);
    printf("mparse");
    put_s(buf, n);
    printf(" %d", s);
    put_m(m, err);
    printf("\n");
}

static long long rnd_money(void)
{
    int bits = rndint(0, 63);
    long long m = bits == 63 ? (long long)(rnd() >> 1) : (long long)(rnd() & ((1ULL << bits) - 1));
    if (rndint(0, 20) == 0)
        m = rnd() & 1 ? 9223372036854775807LL : 0;
    return rnd() & 1 ? -m - (m == 9223372036854775807LL && rnd() & 1) : m;
}

static void money(void)
{
    char buf[64];
    unsigned err = 0;
    long long a = rnd_money(), b = rnd_money(), n = rnd_money() >> rndint(0, 62);
    pa_numeric d = rnd_any();
    printf("madd %lld %lld", a, b);
    { long long mr = pa_money_add(a, b, &err); put_m(mr, err); }
    err = 0;
    printf("\nmsub %lld %lld", a, b);
    { long long mr = pa_money_sub(a, b, &err); put_m(mr, err); }
    err = 0;
    printf("\nmmuli %lld %lld", a, n);
    { long long mr = pa_money_mul_int(a, n, &err); put_m(mr, err); }
    err = 0;
    printf("\nmdivi %lld %lld", a, n);
    { long long mr = pa_money_div_int(a, n, &err); put_m(mr, err); }
    err = 0;
    printf("\nmmuln %lld", a);
    put_v(d);
    { long long mr = pa_money_mul_num(a, d, &err); put_m(mr, err); }
    err = 0;
    printf("\nmdivn %lld", a);
    put_v(d);
    { long long mr = pa_money_div_num(a, d, &err); put_m(mr, err); }
    int s = rndint(0, 18);
    printf("\nmtext %lld %d", a, s);
    int k = pa_money_to_text_scale(a, s, buf, sizeof buf);
    put_s(buf, k < 0 ? 0 : k);
    printf("\n");
}

int main(int argc, char **argv)
{
    unsigned long long seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 1;
    long count = argc > 2 ? strtol(argv[2], NULL, 0) : 2000;
    static const char *const ops[] = {"add", "sub", "mul", "div"};
    rng_state = seed * 0x9E3779B97F4A7C15ULL + 1;
    printf("# numeric_ops seed %llu count %ld\n", seed, count);
    for (int i = 0; i < NEDGE; i++) {
        unary(edge(i));
        for (int j = 0; j < NEDGE; j++)
            for (int o = 0; o < 4; o++)
                binary(ops[o], edge(i), edge(j));
    }
    /* small quotients rounded to fewer places than the dividend has: ties and near-ties with remainders */
    for (int av = -40; av <= 40; av++)
        for (int bv = -7; bv <= 7; bv++)
            for (int sc = 0; sc < 6; sc++) {
                pa_numeric a = {av * 7 + (av & 3), 3}, b = {bv, sc % 2};
                unsigned err = 0;
                pa_numeric r = pa_num_div_scale(a, b, sc / 2, &err);
                printf("divs");
                put_v(a);
                put_v(b);
                printf(" %d", sc / 2);
                put_r(r, err);
                printf("\n");
            }
    /* every precision and scale, in turn, then random ones */
    for (int p = 1; p <= 38; p++)
        for (int s = 0; s <= p; s++) {
            pa_numeric a = rnd_num(p, s);
            unary(a);
            for (int o = 0; o < 4; o++)
                binary(ops[o], a, rnd_num(p, rndint(0, p)));
        }
    for (long i = 0; i < count; i++) {
        pa_numeric a = rnd_any(), b = rnd_any();
        binary(ops[i % 4], a, b);
        if (i % 4 == 0) {
            /* a tie at b's scale: a value with one more digit, a 5 */
            if (b.scale < 38 && pa__num_mag(b.v) < PA__NUM_LIMIT10) {
                pa_numeric t = {b.v * 10 + (b.v < 0 ? -5 : 5), b.scale + 1};
                unary(t);
            }
        }
        unary(a);
        texts();
        money();
        unsigned err = 0;
        long long x = rnd_money();
        printf("long %lld", x);
        put_v(pa_num_from_long(x));
        /* a stored value of more than 38 digits is refused on load */
        pa_i128 raw = (pa_i128)((pa_u128)rnd() << 64 | rnd());
        int ls = rndint(0, 40);
        pa_numeric lv = pa_num_load(raw, ls, &err);
        pa_u128 u = (pa_u128)raw;
        printf("\nload %llx:%llx %d", (unsigned long long)(u >> 64), (unsigned long long)u, ls);
        put_r(lv, err);
        printf("\n");
    }
    printf("# end\n");
    return 0;
}
