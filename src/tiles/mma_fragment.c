/*
 * parray — tensor-core fragments as types (gputile.h, pa_mma_fragment and pa_tilegen_fragment).
 *
 * A warp-level matrix multiply (mma.sync) spreads each operand tile over the warp's 32 lanes: lane l =
 * 4 groupID + threadID_in_group holds a few elements in its registers.  Which (row, col) of the tile a
 * (lane, register element) holds is a layout, and over a tile type it is a PARRAY type: dimension 0 the lanes
 * [[8 groupIDs][4 threads in a group]], dimension 1 the register elements in the order the instruction takes
 * them, each a window or a step of one of the tile's dimensions.  The spec below is that tree per shape and
 * operand; pa_mma_fragment writes it as a declaration over the user's tile type, so the library's walk gives
 * every (lane, element)'s offset, whatever the tile's layout (row-major, padded, transposed, swizzle-free).
 *
 * The load of a fragment from shared memory into registers is one thread's copy of dimension 1 at the lane's
 * offset: the copy planner (tile_plan.c) picks the vector a unit moves as; for 16-bit elements whose 8x8
 * sub-matrices are rows of 16 contiguous bytes (or columns, transposed), ldmatrix loads the whole fragment in
 * one instruction.  The shared-memory wavefronts of the warp's requests are counted as for copies: the
 * padding of the tile type removes conflicts (pa_gemm_dmem picks it).
 */
#include <stdio.h>
#include <string.h>

#include "tiles_internal.h"

typedef struct comp {
    int dim, step;
} comp;

typedef struct spec {
    const char *ptx;    /* the instruction's shape and types */
    const char *elm;    /* the operand's element type in declarations */
    int rows, cols;     /* the operand tile */
    comp g, t;          /* groupID (8) and threadID_in_group (4) */
    int nreg;           /* register element dimensions, outermost first, each of size 2 */
    comp reg[3];
} spec;

/*
 * From the PTX ISA's "Matrix Fragments for mma.m16n8k8" (.tf32) and "mma.m16n8k16" (.f16/.bf16): with
 * g = groupID and t = threadID_in_group,
 *   tf32 A (16x8):  a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4)        -> regs [col +4][row +8]
 *   tf32 B (8x8):   b0 (t, g), b1 (t+4, g)                                    -> regs [row +4]
 *   16-bit A (16x16): a0,a1 (g, 2t+i), a2,a3 (g+8, 2t+i), a4..a7 the same at col +8 -> [col +8][row +8][col +1]
 *   16-bit B (16x8):  b0,b1 (2t+i, g), b2,b3 (2t+8+i, g)                      -> [row +8][row +1]
 *   C (16x8, f32):  c0,c1 (g, 2t+i), c2,c3 (g+8, 2t+i)                        -> [row +8][col +1]
 */
static const spec specs[3][3] = {
    {{"m16n8k8.tf32", "float", 16, 8, {0, 1}, {1, 1}, 2, {{1, 4}, {0, 8}}},
     {"m16n8k8.tf32", "float", 8, 8, {1, 1}, {0, 1}, 1, {{0, 4}}},
     {"m16n8k8.f32", "float", 16, 8, {0, 1}, {1, 2}, 2, {{0, 8}, {1, 1}}}},
    {{"m16n8k16.bf16", "bfloat16", 16, 16, {0, 1}, {1, 2}, 3, {{1, 8}, {0, 8}, {1, 1}}},
     {"m16n8k16.bf16", "bfloat16", 16, 8, {1, 1}, {0, 2}, 2, {{0, 8}, {0, 1}}},
     {"m16n8k16.f32", "float", 16, 8, {0, 1}, {1, 2}, 2, {{0, 8}, {1, 1}}}},
    {{"m16n8k16.f16", "half", 16, 16, {0, 1}, {1, 2}, 3, {{1, 8}, {0, 8}, {1, 1}}},
     {"m16n8k16.f16", "half", 16, 8, {1, 1}, {0, 2}, 2, {{0, 8}, {0, 1}}},
     {"m16n8k16.f32", "float", 16, 8, {0, 1}, {1, 2}, 2, {{0, 8}, {1, 1}}}},
};

static const char *const opname[3] = {"A", "B", "C"};

static const spec *spec_of(int shape, int op, const char *what)
{
    if (shape < PA_MMA_M16N8K8_TF32 || shape > PA_MMA_M16N8K16_F16 || op < PA_MMA_A || op > PA_MMA_C) {
        pa__err(PA_ERR_INVAL, "%s: shape %d, operand %d; the shapes are PA_MMA_M16N8K8_TF32, PA_MMA_M16N8K16_BF16, "
                "PA_MMA_M16N8K16_F16 and the operands PA_MMA_A, PA_MMA_B, PA_MMA_C", what, shape, op);
        return NULL;
    }
    return &specs[shape - 1][op];
}

int pa__mma_coord(int shape, int op, int lane, int e, int *row, int *col)
{
    const spec *s = spec_of(shape, op, "pa__mma_coord");
    if (s == NULL || lane < 0 || lane > 31 || e < 0 || e >= (1 << s->nreg))
        return 0;
    int rc[2] = {0, 0};
    rc[s->g.dim] += (lane >> 2) * s->g.step;
    rc[s->t.dim] += (lane & 3) * s->t.step;
    for (int i = 0; i < s->nreg; i++)
        rc[s->reg[i].dim] += ((e >> (s->nreg - 1 - i)) & 1) * s->reg[i].step;
    *row = rc[0];
    *col = rc[1];
    return 1;
}

static void put_comp(char *buf, size_t len, int size, comp c, const char *tile)
{
    if (c.step == 1)
        snprintf(buf, len, "[%d # %s_%d]", size, tile, c.dim);
    else
        snprintf(buf, len, "[%d # step(%d) # %s_%d]", size, c.step, tile, c.dim);
}

int pa_mma_fragment(pa_scope *s, const char *name, int shape, int op, const char *tile)
{
    const char *what = "pa_mma_fragment";
    if (s == NULL || name == NULL || tile == NULL)
        return pa__err(PA_ERR_INVAL, "%s: NULL %s", what, s == NULL ? "scope" : name == NULL ? "name" : "tile");
    const spec *sp = spec_of(shape, op, what);
    if (sp == NULL)
        return PA_ERR_INVAL;
    const pa_type *t = pa_type_get(s, tile);
    if (t == NULL)
        return pa__err_wrap(PA_ERR_NAME, "%s(%s): the tile", what, name);
    if (pa_ndim(t) != 2)
        return pa__err(PA_ERR_INVAL, "%s(%s): the tile %s has %d top-level dimensions; an operand tile has 2 "
                       "(rows, columns)", what, name, tile, pa_ndim(t));
    int64_t r = pa_size(pa_type_child(t, 0)), c = pa_size(pa_type_child(t, 1));
    if (r < sp->rows || c < sp->cols)
        return pa__err(PA_ERR_SIZE, "%s(%s): the tile %s is %lldx%lld; operand %s of mma.%s covers %dx%d", what, name,
                       tile, (long long)r, (long long)c, opname[op], sp->ptx, sp->rows, sp->cols);
    size_t esz = pa_elm_size(t), want = strcmp(sp->elm, "float") == 0 ? 4 : 2;
    if (esz != 0 && (esz != want || (want == 2 && strcmp(pa_elm(t), sp->elm) != 0) ||
                     (want == 4 && strcmp(pa_elm(t), "float") != 0)))
        return pa__err(PA_ERR_ELM, "%s(%s): the tile %s has %s elements; operand %s of mma.%s takes %s", what, name,
                       tile, pa_elm(t), opname[op], sp->ptx, sp->elm);
    /* the fragment refers to each tile dimension twice (a lane part and a register part), so each must start
     * at offset 0 and add up over those parts (an affine layout whose modes the parts do not straddle) */
    for (int d = 0; d < 2; d++) {
        int64_t o = pa_offset(pa_type_child(t, d), 0);
        if (o != 0)
            return pa__err(PA_ERR_UNSUPPORTED, "%s(%s): dimension %d of the tile %s starts at offset %lld; a fragment "
                           "refers to each tile dimension from its lanes and its registers, so each must start at 0 "
                           "(add the tile's origin to the pointer instead, T::at(i0, j0))", what, name, d, tile,
                           (long long)o);
    }
    for (int lane = 0; lane < 32; lane++)
        for (int e = 0; e < (1 << sp->nreg); e++) {
            int row, col;
            pa__mma_coord(shape, op, lane, e, &row, &col);
            int64_t parts = 0;
            for (int i = 0; i < 2 + sp->nreg; i++) {
                comp cp = i == 0 ? sp->g : i == 1 ? sp->t : sp->reg[i - 2];
                int digit = i == 0 ? lane >> 2 : i == 1 ? (lane & 3) : (e >> (sp->nreg - 1 - (i - 2))) & 1;
                parts += pa_offset(pa_type_child(t, cp.dim), (int64_t)digit * cp.step);
            }
            if (parts != pa_offset(pa_type_child(t, 0), row) + pa_offset(pa_type_child(t, 1), col))
                return pa__err(PA_ERR_UNSUPPORTED, "%s(%s): the layout of the tile %s does not add up over the "
                               "fragment's parts at (%d, %d) (a dimension whose modes split inside 8 rows or 4 "
                               "columns); fragments take tiles whose dimensions are strided there", what, name, tile,
                               row, col);
        }
    char decl[1024], g[128], th[128], rg[3][128];
    put_comp(g, sizeof g, 8, sp->g, tile);
    put_comp(th, sizeof th, 4, sp->t, tile);
    for (int i = 0; i < sp->nreg; i++)
        put_comp(rg[i], sizeof rg[i], 2, sp->reg[i], tile);
    snprintf(decl, sizeof decl, "[[%s%s]][[%s%s%s]]", g, th, rg[0], sp->nreg > 1 ? rg[1] : "",
             sp->nreg > 2 ? rg[2] : "");
    return pa_declare(s, name, decl);
}

/* The word addresses (4-byte units) of the elements at byte offsets byte[0..n), and the wavefronts they cost:
 * the most distinct words any of the 32 banks holds. */
static int wavefronts(const int64_t *byte, int n, int bytes_each)
{
    int64_t words[32 * 4];
    int nw = 0, worst = 1;
    for (int i = 0; i < n; i++)
        for (int w = 0; w < (bytes_each + 3) / 4 && nw < 32 * 4; w++)
            words[nw++] = byte[i] / 4 + w;
    for (int b = 0; b < 32; b++) {
        int ways = 0;
        for (int a = 0; a < nw; a++) {
            if (((words[a] % 32) + 32) % 32 != b)
                continue;
            int seen = 0;
            for (int x = 0; x < a && !seen; x++)
                seen = words[x] == words[a];
            ways += !seen;
        }
        worst = ways > worst ? ways : worst;
    }
    return worst;
}

int64_t pa__tfrag_off(const pa__tfrag *f, int lane, int e)
{
    return pa__layout_offset(&f->lane, lane) + pa__layout_offset(&f->reg, e);
}

/* 1 when the 16-bit fragment loads with ldmatrix (trans 0: rows of 8 elements contiguous; 1: columns). */
static int ldmatrix_fits(const pa__tfrag *f, int trans)
{
    for (int j = 0; j < f->words; j++)
        for (int g = 0; g < 8; g++)
            for (int t = 0; t < 4; t++)
                for (int p = 0; p < 2; p++) {
                    int64_t e = pa__tfrag_off(f, 4 * g + t, 2 * j + p);
                    if (!trans && (e != pa__tfrag_off(f, 4 * g, 2 * j) + 2 * t + p || (t == 0 && p == 0 && e % 8)))
                        return 0;
                    if (trans && (e != pa__tfrag_off(f, t, 2 * j + p) + g || (g == 0 && e % 8)))
                        return 0;
                }
    return 1;
}

int64_t pa__tfrag_ldm_off(const pa__tfrag *f, int lane)
{
    int j = (lane >> 3) % f->words, q = lane & 7;
    return f->trans ? pa__tfrag_off(f, q >> 1, 2 * j + (q & 1)) : pa__tfrag_off(f, 4 * q, 2 * j);
}

int pa__tfrag_plan(const pa_type *frag, int shape, int op, const char *what, pa__tfrag *out)
{
    const spec *sp = spec_of(shape, op, what);
    if (sp == NULL)
        return PA_ERR_INVAL;
    if (frag == NULL || pa_ndim(frag) != 2)
        return pa__err(PA_ERR_INVAL, "%s: %s is not a fragment type (two top-level dimensions: lanes, registers)",
                       what, frag ? pa_type_name(frag) : "(null)");
    const pa__layout *ll = pa__type_layout(pa_type_child(frag, 0)), *rl = pa__type_layout(pa_type_child(frag, 1));
    if (ll == NULL || rl == NULL)
        return pa__err_wrap(PA_ERR_UNSUPPORTED, "%s(%s)", what, pa_type_name(frag));
    int elems = 1 << sp->nreg;
    if (ll->size != 32 || rl->size != elems)
        return pa__err(PA_ERR_SIZE, "%s: %s has %lld lanes and %lld register elements; operand %s of mma.%s has 32 "
                       "and %d", what, pa_type_name(frag), (long long)ll->size, (long long)rl->size, opname[op],
                       sp->ptx, elems);
    if (!ll->affine || !rl->affine)
        return pa__err(PA_ERR_UNSUPPORTED, "%s: %s needs offset tables; fragments are affine", what,
                       pa_type_name(frag));
    pa__tfrag f;
    memset(&f, 0, sizeof f);
    f.shape = shape;
    f.op = op;
    f.elems = elems;
    f.elm = pa_elm_size(frag);
    if (f.elm != 2 && f.elm != 4)
        return pa__err(PA_ERR_ELM, "%s: %s has %zu-byte elements; mma.%s takes %s", what, pa_type_name(frag), f.elm,
                       sp->ptx, sp->elm);
    f.words = (int)((size_t)elems * f.elm / 4);
    f.lane = *ll;
    f.reg = *rl;
    /* the planner's copy of the register dimension into a thread's registers: its unit is the vector; a vector
     * needs every lane's offset to be a multiple of it too */
    pa__layout regs;
    memset(&regs, 0, sizeof regs);
    regs.affine = 1;
    regs.size = elems;
    regs.nmodes = 1;
    regs.modes[0] = (pa__mode){elems, 1, NULL};
    regs.max_off = elems - 1;
    pa__tcopy c;
    int st = pa__tcopy_plan(&regs, PA__TMEM_RMEM, rl, PA__TMEM_SMEM, f.elm, 1, 0, NULL, what, &c);
    if (st != PA_OK)
        return st;
    f.v = c.svec ? c.v : 1;
    for (int l = 0; l < 32 && f.v > 1; l++)
        if (pa__layout_offset(ll, l) % f.v != 0)
            f.v = 1;
    f.copy = c;
    if (f.elm == 2 && op != PA_MMA_C) {
        if (ldmatrix_fits(&f, 0))
            f.ldmatrix = f.words;
        else if (ldmatrix_fits(&f, 1)) {
            f.ldmatrix = f.words;
            f.trans = 1;
        }
    }
    /* wavefronts: per ldmatrix matrix (8 rows of 16 bytes), else per unit of the warp's 32 lanes in phases of
     * 32, 16 or 8 lanes for 4-, 8- and 16-byte accesses */
    int64_t byte[32];
    f.bank_ways = 1;
    if (f.ldmatrix) {
        for (int m = 0; m < f.ldmatrix; m++) {
            for (int q = 0; q < 8; q++)
                byte[q] = pa__tfrag_ldm_off(&f, 8 * m + q) * (int64_t)f.elm;
            int w = wavefronts(byte, 8, 16);
            f.bank_ways = w > f.bank_ways ? w : f.bank_ways;
        }
    } else {
        int ub = f.v * (int)f.elm < 4 ? 4 : f.v * (int)f.elm, per = ub >= 16 ? 8 : ub >= 8 ? 16 : 32;
        for (int u = 0; u < elems / f.v; u++)
            for (int p0 = 0; p0 < 32; p0 += per) {
                for (int l = p0; l < p0 + per; l++)
                    byte[l - p0] = pa__tfrag_off(&f, l, u * f.v) * (int64_t)f.elm;
                int w = wavefronts(byte, per, ub);
                f.bank_ways = w > f.bank_ways ? w : f.bank_ways;
            }
    }
    *out = f;
    return PA_OK;
}

/* "row(lane, e)" or "col": the spec's sum, as one expression. */
static void emit_coord(pa__tbuf *b, const spec *sp, int dim)
{
    pa__tbuf_put(b, "    static PA_TD int %s(int lane, int e) { return 0", dim ? "col" : "row");
    if (sp->g.dim == dim)
        pa__tbuf_put(b, " + (lane >> 2) * %d", sp->g.step);
    if (sp->t.dim == dim)
        pa__tbuf_put(b, " + (lane & 3) * %d", sp->t.step);
    for (int i = 0; i < sp->nreg; i++)
        if (sp->reg[i].dim == dim)
            pa__tbuf_put(b, " + ((e >> %d) & 1) * %d", sp->nreg - 1 - i, sp->reg[i].step);
    pa__tbuf_put(b, "; }\n");
}

/* The element-by-element body of a load into words w (A, B) or elements c (C), from p = tile + lane_off. */
static void emit_elements(pa__tbuf *b, const pa__tfrag *f, int store)
{
    for (int e = 0; e < f->elems; e++) {
        long long o = (long long)pa__layout_offset(&f->reg, e);
        if (f->op == PA_MMA_C && store)
            pa__tbuf_put(b, "        p[%lld] = c[%d];\n", o, e);
        else if (f->op == PA_MMA_C)
            pa__tbuf_put(b, "        c[%d] = p[%lld];\n", e, o);
        else if (f->elm == 4)
            pa__tbuf_put(b, "        w[%d] = pa_frag_bits(p[%lld]);\n", e, o);
        else if (e % 2 == 0)
            pa__tbuf_put(b, "        w[%d] = pa_frag_pack(p[%lld], p[%lld]);\n", e / 2, o,
                         (long long)pa__layout_offset(&f->reg, e + 1));
    }
}

/* The vector body: unit u of v elements moves as one v*elm-byte access. */
static void emit_vectors(pa__tbuf *b, const pa__tfrag *f, int store)
{
    int vb = f->v * (int)f->elm;
    for (int u = 0; u < f->elems / f->v; u++) {
        long long o = (long long)pa__layout_offset(&f->reg, u * f->v);
        if (f->op == PA_MMA_C) {
            if (store)
                pa__tbuf_put(b, "        *reinterpret_cast<pa_vec_t<%d> *>(p + %lld) = *reinterpret_cast<const "
                                "pa_vec_t<%d> *>(c + %d);\n", vb, o, vb, u * f->v);
            else
                pa__tbuf_put(b, "        *reinterpret_cast<pa_vec_t<%d> *>(c + %d) = *reinterpret_cast<const "
                                "pa_vec_t<%d> *>(p + %lld);\n", vb, u * f->v, vb, o);
        } else {
            pa__tbuf_put(b, "        pa_frag_words<%d>(w + %d, p + %lld);\n", vb, u * vb / 4, o);
        }
    }
}

int pa_tilegen_fragment(pa_tilegen *g, const char *name, const pa_type *frag, int shape, int op)
{
    const char *what = "pa_tilegen_fragment";
    if (g == NULL || name == NULL || frag == NULL)
        return pa__err(PA_ERR_INVAL, "%s: NULL %s", what, g == NULL ? "generator" : name == NULL ? "name" : "type");
    int mem = pa__tmem_of(frag, what);
    if (mem < 0)
        return mem;
    if (mem != PA__TMEM_SMEM && (mem != PA__TMEM_DMEM || op != PA_MMA_C))
        return pa__err(PA_ERR_MTT, "%s: %s is %s memory; fragments of A and B load from smem (C also from dmem)",
                       what, pa_type_name(frag), pa_mtt(frag));
    pa__tfrag f;
    int st = pa__tfrag_plan(frag, shape, op, what, &f);
    if (st != PA_OK)
        return st;
    const spec *sp = spec_of(shape, op, what);
    char elm[160];
    pa__elm_cuda_decl(frag, "elm_t", elm, sizeof elm);
    pa__tbuf b = {0};
    pa__tbuf_put(&b, "/* %s: fragment %s of mma.%s over %s: 32 lanes x %d elements (%d registers); loads by %s; "
                     "shared-memory wavefronts of a warp's request: %d */\n",
                 name, opname[op], sp->ptx, pa_type_name(frag), f.elems, f.words,
                 f.ldmatrix ? (f.trans ? "ldmatrix.trans" : "ldmatrix") : f.v > 1 ? "vectors" : "elements",
                 f.bank_ways);
    pa__tbuf_put(&b, "struct %s {\n    %s\n    static constexpr int lanes = 32, elems = %d, words = %d, rows = %d, "
                     "cols = %d, v = %d, ldm = %d, ldm_trans = %d;\n",
                 name, elm, f.elems, f.words, sp->rows, sp->cols, f.v, f.ldmatrix, f.trans);
    int small = f.lane.max_off < INT32_MAX / 2 && f.lane.min_off > -(int64_t)INT32_MAX / 2;
    const char *it = small ? "int" : "long long";
    pa__temit_offset_fn(&b, "lane_off", &f.lane, it);
    pa__temit_offset_fn(&b, "reg_off", &f.reg, it);
    emit_coord(&b, sp, 0);
    emit_coord(&b, sp, 1);
    const char *sig = op == PA_MMA_C ? "elm_t *c, const elm_t *__restrict__ t, int lane"
                                     : "unsigned *w, const elm_t *__restrict__ t, int lane";
    int vb = f.v * (int)f.elm;
    pa__tbuf_put(&b, "    static PA_TDD void load_e(%s)\n    {\n        const elm_t *p = t + lane_off(lane);\n", sig);
    emit_elements(&b, &f, 0);
    pa__tbuf_put(&b, "    }\n    static PA_TDD void load_aligned(%s)\n    {\n", sig);
    if (f.v > 1) {
        pa__tbuf_put(&b, "        const elm_t *p = t + lane_off(lane);\n");
        emit_vectors(&b, &f, 0);
        pa__tbuf_put(&b, "    }\n    static PA_TDD void load(%s)\n    {\n        if (pa_misaligned(t, %d))\n"
                         "            load_e(%s);\n        else\n            load_aligned(%s);\n    }\n",
                     sig, vb, op == PA_MMA_C ? "c, t, lane" : "w, t, lane", op == PA_MMA_C ? "c, t, lane" : "w, t, lane");
    } else {
        pa__tbuf_put(&b, "        load_e(%s);\n    }\n    static PA_TDD void load(%s) { load_e(%s); }\n",
                     op == PA_MMA_C ? "c, t, lane" : "w, t, lane", sig, op == PA_MMA_C ? "c, t, lane" : "w, t, lane");
    }
    if (f.ldmatrix) {
        pa__tbuf_put(&b, "    static PA_TD %s ldm_off(int lane) { return ", it);
        if (f.trans)
            pa__tbuf_put(&b, "lane_off((lane & 7) >> 1) + reg_off(((lane >> 3) %% %d) * 2 + (lane & 1)); }\n", f.words);
        else
            pa__tbuf_put(&b, "lane_off(4 * (lane & 7)) + reg_off(((lane >> 3) %% %d) * 2); }\n", f.words);
        pa__tbuf_put(&b, "    /* the tile 16-byte aligned */\n    static PA_TDD void load_ldm(%s) { "
                         "pa_ldmatrix<%d, %d>(w, t + ldm_off(lane)); }\n", sig, f.ldmatrix, f.trans);
    }
    if (op == PA_MMA_C) {
        const char *ss = "elm_t *__restrict__ t, const elm_t *c, int lane";
        pa__tbuf_put(&b, "    static PA_TDD void store_e(%s)\n    {\n        elm_t *p = t + lane_off(lane);\n", ss);
        emit_elements(&b, &f, 1);
        pa__tbuf_put(&b, "    }\n    static PA_TDD void store(%s)\n    {\n", ss);
        if (f.v > 1) {
            pa__tbuf_put(&b, "        if (pa_misaligned(t, %d)) {\n            store_e(t, c, lane);\n            return;\n"
                             "        }\n        elm_t *p = t + lane_off(lane);\n", vb);
            emit_vectors(&b, &f, 1);
        } else {
            pa__tbuf_put(&b, "        store_e(t, c, lane);\n");
        }
        pa__tbuf_put(&b, "    }\n");
    }
    pa__tbuf_put(&b, "};\n");
    if (b.st != PA_OK) {
        pa__tbuf_free(&b);
        return pa__err(PA_ERR_NOMEM, "%s: the generated source", what);
    }
    pa_tilegen_copy_info info = {f.ldmatrix ? 8 : f.v, f.elems / f.v, 0, f.v > 1, f.bank_ways, 0, f.ldmatrix, f.trans};
    st = pa__tilegen_add_named(g, name, &info, b.s, what);
    pa__tbuf_free(&b);
    return st;
}
