/*
 * parray — the NCCL route of distributed copies whose sides are both in device memory.
 *
 * MPI stays the launcher and the bootstrap; NCCL (the nccl backend, reached through the core's device
 * collectives, backends.h) moves the bytes between the GPUs, over NVLink within a node and the network
 * between nodes.  A plan of any pattern (send/recv, scatter, gather, all-to-all, uneven all-to-all) becomes,
 * on this rank, one block of elements to send to every peer and one to receive from every peer, in the orders
 * the plan's send and receive layouts give (dist_plan.c).
 *
 * The fast form cuts every block into C chunks (each a slice of the layouts that is itself one affine or
 * gathered layout) and pipelines them over three streams: the pack stream packs chunk c of every peer's block
 * into the send buffer (a device permute plan, skipped where the chunk is one contiguous run of the user's
 * array: NCCL then sends from the array itself), the transfer stream runs chunk c's sends and receives as one
 * NCCL group once its packing is done, and the unpack stream unpacks chunk c once it has arrived (or nothing,
 * where NCCL received straight into the array), while chunk c + 1 is packed and sent.  The own block goes from
 * the source to the destination by one device copy plan on a fourth stream.  Where a slice cannot be expressed
 * as one layout (an uneven split), or the two arrays overlap in memory, the whole form runs instead: pack all,
 * one group, unpack all, on one stream.
 *
 * The streams wait for the caller's earlier work on the legacy default stream (an event recorded there) and the
 * host waits for all four before pa_copy returns, as for every other copy.
 *
 * Before any NCCL call of a run, the members agree that every one's arrays are on its communicator's GPU
 * (dist_nccl_check.c): a rank that passes another GPU's pointer gets, with every other member, the same error
 * naming it, instead of leaving them waiting inside NCCL.
 *
 * Communicators are made at a plan's first run, collectively over the processes the copy involves (all of the
 * communicator, or the two of a send/recv), and kept on the MPI communicator as an attribute, freed when it is
 * (MPI_Finalize for MPI_COMM_WORLD).  Before that, every process says which GPU it uses: NCCL refuses two ranks
 * on one GPU, so when two processes share one (or NCCL cannot be loaded on one of them), every process remakes
 * the plan for the next route (peer copies or staging), and PA_PLAN_INFO=1 says why.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "chunk_exchange.h"
#include "mpi_backend.h"

#define KEY_BYTES 160            /* a process's GPU: "host/PCI bus id" */
#define ID_MAX 256               /* an NCCL id (128 bytes today) */
#define MAX_CHUNKS PA__CHUNKS_MAX
#define TAG_NCCL_ID 32001

typedef pa__slice slice;

typedef struct pa_mpi__nccl {
    const pa__devcomm_ops *dc;
    void *comm;                  /* the NCCL communicator (owned by the MPI communicator's attribute) */
    int members;                 /* ranks in it: nprocs, or 2 for a send/recv */
    int me;                      /* this rank in it */
    int dev;                     /* the GPU it was made on (current at the first run), -1: unknown */
    int chunks;                  /* C of the fast form; 0: the whole form (agreed at the first run) */
    int want;                    /* the chunks wanted for the sizes */
    unsigned feasible;           /* bit i: this rank can cut its blocks into 2^i chunks */
    int direct_only;             /* this rank packs and unpacks nothing */
    int agreed;                  /* the first run's agreement is done */
    int64_t *scnt, *sdsp, *rcnt, *rdsp;   /* elements per peer (ranks of the MPI communicator) */
    slice *send, *recv;          /* [peer * chunks + c] */
    pa__plan *self;              /* the own block, source -> destination */
    int self_direct;             /* both its sides contiguous: NCCL copies it inside the first group */
    int64_t self_sbase, self_rbase;
    int64_t send_lo, send_hi, recv_lo, recv_hi;   /* elements the layouts reach */
    pa__chunk_streams cs;        /* the streams and events of the runs */
    pa__xfer *xs, *xr;           /* one group's transfers */
} pa_mpi__nccl;

/* ---- which processes may take the route ------------------------------------------------------------------ */

int pa_mpi__nccl_possible(const pa_mpi__dplan *p, const char **why)
{
    *why = NULL;
    if (p->nccl_refused) {
        *why = "refused at the first run";
        return 0;
    }
    if (!p->send_mem || !p->recv_mem || p->send_mem != p->recv_mem) {
        *why = "both sides must be in device memory";
        return 0;
    }
    if (p->kind == PA_MPI__LOCAL) {
        *why = "nothing crosses processes";
        return 0;
    }
    return pa__backends_devcomm(why) != NULL;
}

/* ---- preparing a plan ---------------------------------------------------------------------------------------- */

/* One side's slices for every peer and chunk (chunks > 0), with their pack or unpack plans; *ok 0 when some
 * slice is not one layout. */
static int make_slices(pa_mpi__dplan *p, pa_mpi__nccl *x, int chunks, int recv, int *ok)
{
    const pa__layout *l = recv ? &p->recv_l : &p->send_l;
    const int64_t *cnt = recv ? x->rcnt : x->scnt, *dsp = recv ? x->rdsp : x->sdsp;
    slice *sl = calloc((size_t)p->nprocs * (size_t)chunks, sizeof *sl);
    *ok = 0;
    if (!sl)
        return pa__err(PA_ERR_NOMEM, "NCCL route: no memory for %d x %d slices", p->nprocs, chunks);
    if (recv)
        x->recv = sl;
    else
        x->send = sl;
    for (int q = 0; q < p->nprocs; q++) {
        if (q == p->rank || cnt[q] == 0)
            continue;
        if (cnt[q] % chunks)
            return PA_OK;
        int64_t len = cnt[q] / chunks;
        for (int c = 0; c < chunks; c++) {
            int one, st = pa__slice_make(l, dsp[q] + c * len, len, dsp[q] + c * len, p->elm,
                                         recv ? p->recv_mem : p->send_mem, recv, &sl[q * chunks + c], &one);
            if (st != PA_OK || !one)
                return st;
        }
    }
    *ok = 1;
    return PA_OK;
}

static void drop_slices(pa_mpi__dplan *p, pa_mpi__nccl *x, int chunks)
{
    for (int w = 0; w < 2; w++) {
        slice *sl = w ? x->recv : x->send;
        for (int64_t i = 0; sl && i < (int64_t)p->nprocs * chunks; i++)
            pa__plan_unref(sl[i].plan);
        free(sl);
    }
    x->send = x->recv = NULL;
}

/* 1 when every slice of one side for `chunks` chunks is one layout (no plans made). */
static int sliceable(const pa_mpi__dplan *p, const pa_mpi__nccl *x, int chunks, int recv)
{
    const pa__layout *l = recv ? &p->recv_l : &p->send_l;
    const int64_t *cnt = recv ? x->rcnt : x->scnt, *dsp = recv ? x->rdsp : x->sdsp;
    for (int q = 0; q < p->nprocs; q++)
        if (q != p->rank && cnt[q] != 0 && !pa__layout_sliceable(l, dsp[q], cnt[q], chunks))
            return 0;
    return 1;
}

int pa_mpi__nccl_prepare(pa_mpi__dplan *p)
{
    const char *why;
    pa_mpi__nccl *x = calloc(1, sizeof *x);
    int n = p->nprocs, st = PA_OK;
    if (!x || !(x->scnt = calloc((size_t)n * 4, sizeof(int64_t))) ||
        !(x->xs = calloc((size_t)n * 2, sizeof(pa__xfer)))) {
        if (x)
            free(x->scnt);
        free(x);
        return pa__err(PA_ERR_NOMEM, "NCCL route: no memory for a plan over %d processes", n);
    }
    p->nccl = x;
    x->xr = x->xs + n;
    x->sdsp = x->scnt + n;
    x->rcnt = x->scnt + 2 * n;
    x->rdsp = x->scnt + 3 * n;
    x->dc = pa__backends_devcomm(&why);
    int scale = p->scale > 0 ? p->scale : 1;   /* the counts are in elements until element_type scales them */
    for (int q = 0; q < n; q++) {
        x->scnt[q] = p->scount[q] / scale;
        x->sdsp[q] = p->sdispl[q] / scale;
        x->rcnt[q] = p->rcount[q] / scale;
        x->rdsp[q] = p->rdispl[q] / scale;
    }
    x->members = p->kind == PA_MPI__SENDRECV ? 2 : n;
    pa__layout_extent(&p->send_l, &x->send_lo, &x->send_hi);
    pa__layout_extent(&p->recv_l, &x->recv_lo, &x->recv_hi);
    /* the own block: one copy plan between the two arrays */
    int me = p->rank;
    if (x->scnt[me] > 0 && x->scnt[me] == x->rcnt[me]) {
        pa__layout sb, rb;
        if (pa__layout_slice(&p->send_l, x->sdsp[me], x->scnt[me], &sb) && pa__layout_slice(&p->recv_l, x->rdsp[me], x->rcnt[me], &rb)) {
            x->self_sbase = sb.base;
            x->self_rbase = rb.base;
            x->self_direct = pa__layout_contiguous(&sb) && pa__layout_contiguous(&rb);
            sb.base = rb.base = 0;
            if ((st = pa__plan_get(&rb, &sb, p->elm, p->recv_mem, p->send_mem, &x->self)) != PA_OK)
                return st;
        }
    }
    /* the chunk counts this rank can cut its blocks into (bit log2(C)); the members agree on one at the first
     * run, since their groups must match (a count no member can do: the whole form, whose one group matches
     * the single chunk's) */
    x->want = pa__chunks_wanted(p->busiest, p->nprocs);   /* from what every rank knows alike */
    /* where no slice of this rank needs packing or unpacking there is nothing to overlap: one chunk */
    x->direct_only = pa__layout_contiguous(&p->send_l) && pa__layout_contiguous(&p->recv_l);
    for (int c = 1, bit = 0; c <= MAX_CHUNKS; c *= 2, bit++)
        if ((x->self || x->scnt[me] == 0) && sliceable(p, x, c, 0) && sliceable(p, x, c, 1))
            x->feasible |= 1u << bit;
    return PA_OK;
}

/* Agrees on the chunk count with the other members (collective) and makes the slices' plans for it. */
static int agree_chunks(pa_mpi__dplan *p, pa_mpi__nccl *x, MPI_Comm comm)
{
    unsigned all = x->feasible;
    int st, ok_s = 0, ok_r = 0, direct = x->direct_only;
    if (p->kind == PA_MPI__SENDRECV) {
        int peer = p->rank == p->src_root ? p->dst_root : p->src_root;
        unsigned other = 0;
        MPI_Sendrecv(&x->feasible, 1, MPI_UNSIGNED, peer, TAG_NCCL_ID, &other, 1, MPI_UNSIGNED, peer, TAG_NCCL_ID,
                     comm, MPI_STATUS_IGNORE);
        all &= other;
        MPI_Sendrecv(&x->direct_only, 1, MPI_INT, peer, TAG_NCCL_ID, &direct, 1, MPI_INT, peer, TAG_NCCL_ID, comm,
                     MPI_STATUS_IGNORE);
        direct = direct && x->direct_only;
    } else {
        if ((st = pa_mpi__check(MPI_Allreduce(&x->feasible, &all, 1, MPI_UNSIGNED, MPI_BAND, comm),
                                "MPI_Allreduce")) != PA_OK)
            return st;
        direct = pa_mpi__all_ok(x->direct_only, comm);
    }
    x->chunks = 0;
    int most = direct ? 1 : x->want;   /* nothing to overlap anywhere: one group */
    for (int c = 1, bit = 0; c <= most; c *= 2, bit++)
        if (all & (1u << bit))
            x->chunks = c;
    if (x->chunks == 0)
        return PA_OK;   /* the whole form */
    if ((st = make_slices(p, x, x->chunks, 0, &ok_s)) != PA_OK || (st = make_slices(p, x, x->chunks, 1, &ok_r)) != PA_OK ||
        !ok_s || !ok_r) {
        drop_slices(p, x, x->chunks);
        x->chunks = 0;
        return st != PA_OK ? st : pa__err(PA_ERR_SYS, "NCCL route: a slice that was feasible is not (internal)");
    }
    return PA_OK;
}

void pa_mpi__nccl_free(pa_mpi__dplan *p)
{
    pa_mpi__nccl *x = p->nccl;
    if (!x)
        return;
    if (x->chunks)
        drop_slices(p, x, x->chunks);
    pa__plan_unref(x->self);
    pa__chunk_streams_free(&x->cs, x->dc);
    free(x->scnt);
    free(x->xs);
    free(x);
    p->nccl = NULL;
}

/* ---- communicators, kept on the MPI communicator ------------------------------------------------------------ */

typedef struct comm_entry {
    int a, b;                    /* the two ranks of a send/recv's communicator; -1, -1: every rank */
    char key[KEY_BYTES];         /* this process's GPU when it was made */
    void *comm;
    const pa__devcomm_ops *dc;
    struct comm_entry *next;
} comm_entry;

static int keyval = MPI_KEYVAL_INVALID;
static pthread_mutex_t comm_lock = PTHREAD_MUTEX_INITIALIZER;

/* The attribute's delete function: the MPI communicator is freed (or MPI finalised), and its NCCL ones go. */
static int free_entries(MPI_Comm comm, int kv, void *value, void *extra)
{
    comm_entry **head = value;
    (void)comm, (void)kv, (void)extra;
    for (comm_entry *e = *head, *next; e; e = next) {
        next = e->next;
        e->dc->comm_free(e->comm);
        free(e);
    }
    free(head);
    return MPI_SUCCESS;
}

static comm_entry *find_entry(MPI_Comm comm, int a, int b, const char *key)
{
    comm_entry **head = NULL;
    int found = 0;
    if (keyval == MPI_KEYVAL_INVALID || MPI_Comm_get_attr(comm, keyval, &head, &found) != MPI_SUCCESS || !found)
        return NULL;
    for (comm_entry *e = *head; e; e = e->next)
        if (e->a == a && e->b == b && strcmp(e->key, key) == 0)
            return e;
    return NULL;
}

static int keep_entry(MPI_Comm comm, comm_entry *e)
{
    comm_entry **head = NULL;
    int found = 0;
    if (keyval == MPI_KEYVAL_INVALID &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_entries, &keyval, NULL) != MPI_SUCCESS)
        return pa__err(PA_ERR_SYS, "NCCL route: MPI_Comm_create_keyval failed");
    if (MPI_Comm_get_attr(comm, keyval, &head, &found) != MPI_SUCCESS || !found) {
        if (!(head = calloc(1, sizeof *head)))
            return pa__err(PA_ERR_NOMEM, "NCCL route: no memory to keep a communicator");
        int st = pa_mpi__check(MPI_Comm_set_attr(comm, keyval, head), "MPI_Comm_set_attr");
        if (st != PA_OK) {
            free(head);
            return st;
        }
    }
    e->next = *head;
    *head = e;
    return PA_OK;
}

/* Every member's GPU key: 1 when they are all different (NCCL's rule), collective over the members. */
static int gpus_differ(const char *mine, char *all, int members)
{
    for (int i = 0; i < members; i++)
        for (int j = i + 1; j < members; j++)
            if (strcmp(all + (size_t)i * KEY_BYTES, all + (size_t)j * KEY_BYTES) == 0)
                return 0;
    (void)mine;
    return 1;
}

/*
 * The communicator for plan p's members, made if new (collective over them).  \return PA_OK with *out, or
 * PA_ERR_UNSUPPORTED with *out NULL when the route is not possible on some member (every member then says so:
 * why in *why), or another error.
 */
static int comm_for(pa_mpi__dplan *p, MPI_Comm comm, void **out, const char **why)
{
    pa_mpi__nccl *x = p->nccl;
    int pair = x->members == 2 && p->kind == PA_MPI__SENDRECV;
    int a = pair ? p->src_root : -1, b = pair ? p->dst_root : -1;
    x->me = pair ? (p->rank == a ? 0 : 1) : p->rank;
    return pa_mpi__nccl_comm(comm, x->dc, a, b, out, why);
}

int pa_mpi__nccl_comm(MPI_Comm comm, const pa__devcomm_ops *dc, int a, int b, void **out, const char **why)
{
    int pair = a >= 0, rank, members;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &members);
    int me = pair ? (rank == a ? 0 : 1) : rank;
    members = pair ? 2 : members;
    int peer = pair ? (me == 0 ? b : a) : -1;
    char key[KEY_BYTES] = "", *all = NULL;
    unsigned char id[ID_MAX];
    int st, ok;
    *out = NULL;
    *why = NULL;
    int have = dc && dc->device_key(key, sizeof key) == PA_OK;
    pthread_mutex_lock(&comm_lock);
    comm_entry *e = have ? find_entry(comm, a, b, key) : NULL;
    pthread_mutex_unlock(&comm_lock);
    /* whether every member has it already is agreed on, so that all make a new one or none */
    int has = e != NULL;
    if (pair) {
        int other = 0;
        MPI_Sendrecv(&has, 1, MPI_INT, peer, TAG_NCCL_ID, &other, 1, MPI_INT, peer, TAG_NCCL_ID, comm,
                     MPI_STATUS_IGNORE);
        has = has && other;
    } else {
        has = pa_mpi__all_ok(has, comm);
    }
    if (has) {
        *out = e->comm;
        return PA_OK;
    }
    if (!(all = calloc((size_t)members, KEY_BYTES)))
        return pa__err(PA_ERR_NOMEM, "NCCL route: no memory for %d GPU keys", members);
    if (!have)
        snprintf(key, sizeof key, "!%d", rank);   /* unique: the failure is agreed on below */
    if (pair) {
        memcpy(all + (size_t)me * KEY_BYTES, key, KEY_BYTES);
        MPI_Sendrecv(key, KEY_BYTES, MPI_CHAR, peer, TAG_NCCL_ID, all + (size_t)(1 - me) * KEY_BYTES, KEY_BYTES,
                     MPI_CHAR, peer, TAG_NCCL_ID, comm, MPI_STATUS_IGNORE);
    } else {
        MPI_Allgather(key, KEY_BYTES, MPI_CHAR, all, KEY_BYTES, MPI_CHAR, comm);
    }
    ok = have && gpus_differ(key, all, members);
    free(all);
    int all_ok;
    if (pair) {
        int other = 0;
        MPI_Sendrecv(&ok, 1, MPI_INT, peer, TAG_NCCL_ID, &other, 1, MPI_INT, peer, TAG_NCCL_ID, comm,
                     MPI_STATUS_IGNORE);
        all_ok = ok && other;
    } else {
        all_ok = pa_mpi__all_ok(ok, comm);
    }
    if (!all_ok) {
        *why = have ? "two processes use one GPU (NCCL needs one GPU per process)"
                    : "NCCL or a GPU is not usable on some process";
        return PA_ERR_UNSUPPORTED;
    }
    /* member 0 makes the id; the others receive it */
    memset(id, 0, sizeof id);
    int made = me != 0 || dc->make_id(id) == PA_OK;
    if (pair) {
        if (me == 0)
            MPI_Send(id, (int)dc->id_bytes, MPI_BYTE, peer, TAG_NCCL_ID, comm);
        else
            MPI_Recv(id, (int)dc->id_bytes, MPI_BYTE, peer, TAG_NCCL_ID, comm, MPI_STATUS_IGNORE);
    } else {
        MPI_Bcast(id, (int)dc->id_bytes, MPI_BYTE, 0, comm);
    }
    /* a member 0 that could not make the id sends zeros: NCCL's init then fails on every member */
    (void)made;
    void *nc = NULL;
    if ((st = dc->comm_init(id, me, members, &nc)) != PA_OK)
        return st;
    comm_entry *ne = calloc(1, sizeof *ne);
    if (!ne) {
        dc->comm_free(nc);
        return pa__err(PA_ERR_NOMEM, "NCCL route: no memory to keep a communicator");
    }
    *ne = (comm_entry){.a = a, .b = b, .comm = nc, .dc = dc};
    memcpy(ne->key, key, KEY_BYTES);
    pthread_mutex_lock(&comm_lock);
    st = keep_entry(comm, ne);
    pthread_mutex_unlock(&comm_lock);
    if (st != PA_OK) {
        dc->comm_free(nc);
        free(ne);
        return st;
    }
    *out = nc;
    return PA_OK;
}

/* ---- running a plan ---------------------------------------------------------------------------------------------- */

/* The NCCL peer of MPI rank q (the pair's members are 0 and 1). */
static int peer_of(const pa_mpi__dplan *p, int q)
{
    return p->nccl->members == 2 && p->kind == PA_MPI__SENDRECV ? (q == p->src_root ? 0 : 1) : q;
}

/* The whole form: pack all, own block, one group, unpack all, on one stream. */
static int run_whole(pa_mpi__dplan *p, void *dst, const void *src)
{
    pa_mpi__nccl *x = p->nccl;
    const pa__devcomm_ops *dc = x->dc;
    void *s = x->cs.stream[PA__S_XFER];
    int st = PA_OK, ns = 0, nr = 0, me = p->rank;
    const char *sb = p->send_direct ? (const char *)src + pa__bytes(p->send_base, p->elm) : p->sbuf;
    char *rb = p->recv_direct ? (char *)dst + pa__bytes(p->recv_base, p->elm) : p->rbuf;
    if (p->nsend > 0 && !p->send_direct)
        st = pa__plan_exec_async(p->pack, p->sbuf, 0, src, p->send_base, s);
    if (st == PA_OK && x->scnt[me] > 0)
        st = dc->copy(rb + pa__bytes(x->rdsp[me], p->elm), sb + pa__bytes(x->sdsp[me], p->elm),
                      (size_t)pa__bytes(x->scnt[me], p->elm), s);
    for (int q = 0; q < p->nprocs; q++) {
        if (q == me)
            continue;
        if (x->scnt[q])
            x->xs[ns++] = (pa__xfer){peer_of(p, q), (void *)(sb + pa__bytes(x->sdsp[q], p->elm)),
                                     (size_t)pa__bytes(x->scnt[q], p->elm)};
        if (x->rcnt[q])
            x->xr[nr++] = (pa__xfer){peer_of(p, q), rb + pa__bytes(x->rdsp[q], p->elm),
                                     (size_t)pa__bytes(x->rcnt[q], p->elm)};
    }
    if (st == PA_OK && (ns || nr))
        st = dc->group(x->comm, x->xs, ns, x->xr, nr, s);
    if (st == PA_OK && p->nrecv > 0 && !p->recv_direct)
        st = pa__plan_exec_async(p->unpack, dst, p->recv_base, p->rbuf, 0, s);
    int sst = dc->sync(s);
    return st != PA_OK ? st : sst;
}

/* The fast form: chunks packed, sent and unpacked on three streams, the own block on a fourth (the loop the
 * threads' route runs too, chunk_exchange.c). */
static int run_fast(pa_mpi__dplan *p, void *dst, const void *src)
{
    pa_mpi__nccl *x = p->nccl;
    int pair = x->members == 2 && p->kind == PA_MPI__SENDRECV;
    pa__chunk_exchange ex = {.dc = x->dc, .comm = x->comm, .st = &x->cs, .n = p->nprocs, .me = p->rank,
                             .chunks = x->chunks, .pair_first = pair ? p->src_root : -1, .elm = p->elm,
                             .scnt = x->scnt, .rcnt = x->rcnt, .send = x->send, .recv = x->recv, .sbuf = p->sbuf,
                             .rbuf = p->rbuf, .self = x->self, .self_direct = x->self_direct,
                             .self_sbase = x->self_sbase, .self_rbase = x->self_rbase, .xs = x->xs, .xr = x->xr};
    return pa__chunk_exchange_run(&ex, dst, src);
}

/* 1 when the bytes the copy reads overlap those it writes (an in-place redistribution). */
static int overlapping(const pa_mpi__dplan *p, const void *dst, const void *src)
{
    const pa_mpi__nccl *x = p->nccl;
    if (p->nsend == 0 || p->nrecv == 0)
        return 0;
    const char *s0 = (const char *)src + pa__bytes(x->send_lo, p->elm), *s1 = (const char *)src +
                     pa__bytes(x->send_hi + 1, p->elm);
    const char *d0 = (const char *)dst + pa__bytes(x->recv_lo, p->elm), *d1 = (const char *)dst +
                     pa__bytes(x->recv_hi + 1, p->elm);
    return s0 < d1 && d0 < s1;
}

int pa_mpi__nccl_run(pa_mpi__dplan *p, MPI_Comm comm, void *dst, const void *src, pa_mpi__times *t)
{
    pa_mpi__nccl *x = p->nccl;
    const char *why = NULL;
    int st;
    double t0 = t ? pa_mpi__clock() : 0;
    if (p->kind == PA_MPI__SENDRECV && p->rank != p->src_root && p->rank != p->dst_root)
        return PA_OK;
    if (!x->comm) {
        st = comm_for(p, comm, &x->comm, &why);
        if (st == PA_ERR_UNSUPPORTED) {   /* every member remakes the plan for the next route */
            p->nccl_refused = 1;
            pa_mpi__nccl_free(p);
            char what[160];
            snprintf(what, sizeof what, "the NCCL route is not possible here (%s)", why);
            if ((st = pa_mpi__route_remake(p, what)) != PA_OK)
                return st;
            return pa_mpi__dplan_exec(p, comm, dst, src, t);
        }
        if (st != PA_OK)
            return st;
        if (x->dc->current(&x->dev) != PA_OK)
            x->dev = -1;
    }
    if (!x->agreed) {
        if ((st = agree_chunks(p, x, comm)) != PA_OK)
            return st;
        x->agreed = 1;
    }
    /* this rank's set-up: streams, and a copy aside of the source where the arrays overlap (an in-place
     * redistribution: the source's bytes go aside on the legacy stream, so that every rank runs the same groups
     * whichever form its arrays ask for) */
    const void *user_src = src;
    void *aside = NULL, *cookie = NULL;
    size_t aside_bytes = 0;
    int local = pa__chunk_streams_make(&x->cs, x->dc, x->chunks);
    if (local == PA_OK && overlapping(p, dst, src)) {
        pa_mem_opts o;
        pa_mem_opts_init(&o);
        aside_bytes = (size_t)pa__bytes(x->send_hi - x->send_lo + 1, p->elm);
        if ((local = p->send_mem->alloc(aside_bytes, &o, &aside, &cookie)) != PA_OK) {
            local = pa__err_wrap(local, "NCCL route: a copy aside of the source, which overlaps the destination");
            aside = NULL;
        } else {
            local = x->dc->copy(aside, (const char *)src + pa__bytes(x->send_lo, p->elm), aside_bytes, NULL);
            src = (const char *)aside - pa__bytes(x->send_lo, p->elm);
        }
    }
    /* before any NCCL call, the members agree that every one is set up and has its arrays on its communicator's
     * GPU (dist_nccl_check.c): a failure on one is an error on all, not a hang */
    int cur = -1;
    if (x->dc->current(&cur) != PA_OK)
        cur = -1;
    st = pa_mpi__nccl_check(p, comm, x->dev, cur, dst, user_src, local);
    /* after the caller's earlier work on the legacy default stream (run_fast records it itself) */
    if (st == PA_OK && x->chunks > 0) {
        st = run_fast(p, dst, src);
    } else if (st == PA_OK) {
        if ((st = x->dc->record(x->cs.ev_start, NULL)) == PA_OK &&
            (st = x->dc->wait(x->cs.stream[PA__S_XFER], x->cs.ev_start)) == PA_OK)
            st = run_whole(p, dst, src);
    }
    if (aside) {
        int sst = x->dc->sync(NULL);
        st = st != PA_OK ? st : sst;
        p->send_mem->free(aside, aside_bytes, cookie);
    }
    if (t)
        t->mpi += pa_mpi__clock() - t0;
    return st;
}

int pa_mpi__nccl_explain(const pa_mpi__dplan *p, char *buf, size_t len)
{
    const pa_mpi__nccl *x = p->nccl;
    if (!x)
        return snprintf(buf, len, "%s", "");
    int packed = 0, direct = 0;
    for (int w = 0; w < 2 && x->chunks; w++) {
        const slice *sl = w ? x->recv : x->send;
        for (int64_t i = 0; i < (int64_t)p->nprocs * x->chunks; i++)
            if (sl[i].n)
                sl[i].direct ? direct++ : packed++;
    }
    if (!x->agreed)
        return snprintf(buf, len, " (chunks agreed at the first run)");
    if (x->chunks > 0)
        return snprintf(buf, len, " (%d chunk%s per peer, packing, NCCL and unpacking overlapped; %d of %d "
                        "slices sent or received in place%s)", x->chunks, x->chunks == 1 ? "" : "s", direct,
                        direct + packed, x->self ? "; own block copied on the GPU" : "");
    return snprintf(buf, len, " (whole: packed, one NCCL group, unpacked)");
}
