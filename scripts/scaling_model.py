#!/usr/bin/env python3
"""The distributed FFT and redistribution beyond one node, on paper (docs/scaling.md; standard library only).

    scripts/scaling_model.py                  writes docs/img/scaling_model.svg
    scripts/scaling_model.py --check          exits 1 when docs/img/scaling_model.svg or docs/scaling.md's tables
                                              differ from what the model gives now
    scripts/scaling_model.py --table          prints docs/scaling.md's tables (markdown)
    scripts/scaling_model.py --doc            rewrites those tables in docs/scaling.md (between its
                                              <!-- scaling_model: NAME --> and <!-- /scaling_model --> lines)
    options of --table: --costs FILE (a `parray calibrate` cost file over the library's defaults), --ib GB/s
             (InfiniBand per GPU, effective), --lat US (per-message latency across nodes), --per-node G (GPUs
             per node)

The model predicts the slowest GPU's time of PKUFFT's fast form (XY transforms, one all-to-all that leaves Z
innermost, Z transforms; pipelined in plane groups), of listing 46 as written (two all-to-alls, two transpositions)
and of a pencil decomposition (two all-to-alls over sqrt(G) peers each), and of plain and layout-changing
redistributions, at 8 to 1024 GPUs.  Its inputs are the cost model's constants (read from src/core/plan/cost.c's
initialiser, so that they never drift from the library's, or from --costs FILE), the numbers measured on one
node (docs/log/2026-11-28-nccl.md, docs/performance.md: stated below with their source) and stated network
figures.  Nothing here is a measurement beyond one node.  The same inputs give the same bytes.
"""
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plots  # noqa: E402  (scripts/plots.py: its Chart draws the SVG)

ROOT = plots.ROOT
SVG = os.path.join(ROOT, "docs", "img", "scaling_model.svg")
COST_C = os.path.join(ROOT, "src", "core", "plan", "cost.c")
MIB, GIB = 1 << 20, 1 << 30
GPUS = [8, 16, 32, 64, 128, 256, 512, 1024]

# ---- measured on one node: 4 x H200 (NV18), 2026-11-28, docs/log/2026-11-28-nccl.md unless said -------------
MEASURED = {
    "cufft_1024_ms": (14.88, "cufftPlan3d on one H200, N = 1024 (14.86-14.90 ms; bench/fft)"),
    "fast_p1_ms": (19.24, "the fast form at P = 1, N = 1024: XY, the exchange as a copy on the GPU, Z"),
    "fast_p2_ms": (18.87, "the fast form at P = 2, N = 1024 (one group)"),
    "fast_p4_ms": (11.90, "the fast form at P = 4, N = 1024 (one group)"),
    "listing_p1_ms": (32.90, "listing 46 as written at P = 1, N = 1024"),
    "fused_p4_ours_ms": (6.330, "the fused FFT exchange, N = 1024, P = 4, ours (bench/gpu_dist)"),
    "fused_p4_nccl_ms": (4.664, "the same bytes through NCCL's grouped send/recv"),
    "fused_p2_ours_ms": (9.797, "the fused FFT exchange, N = 1024, P = 2, ours"),
    "fused_p2_nccl_ms": (6.402, "the same bytes through NCCL"),
    "plain_p4_ours_ms": (0.665, "all-to-all of 256 MiB a rank, P = 4, ours (NCCL 0.655)"),
    "plain_p4_nccl_ms": (0.655, "the same through NCCL"),
    "plain_p2_ours_ms": (0.520, "all-to-all of 256 MiB a rank, P = 2, ours (NCCL 0.500)"),
    "small_p4_nccl_ms": (0.029, "NCCL all-to-all of 64 KiB a pair, P = 4 (3 peers)"),
    "small_p2_nccl_ms": (0.023, "NCCL all-to-all of 64 KiB a pair, P = 2 (1 peer)"),
    "d2d_tbs": (1.955, "the H200's device-to-device memcpy, 1.93-1.98 TB/s bytes counted once "
                       "(docs/performance.md)"),
    "permute_ratio": (0.907, "P1's 3-D permute (2,1,0) against that memcpy (H100, docs/performance.md)"),
    "xy_ms_h100": (12.06, "the XY transforms at N = 1024, P = 1 (H100, 2026-11-26, docs/log/gpu-results-2026.md)"),
    "z_ms_h100": (5.73, "the Z transforms in the same run"),
}

# ---- stated, not measured: the network and the code's fixed choices --------------------------------------------
STATED_NAMES = {"ib_gbs": "InfiniBand per GPU", "ib200_gbs": "the slower InfiniBand",
                "lat_ib_us": "one message across nodes", "launch_us": "one kernel launch", "per_node": "GPUs a node",
                "groups": "plane groups", "slabs": "slabs a GPU holds"}
STATED = {
    "ib_gbs": (45.0, "InfiniBand NDR 400 Gb/s, one NIC per GPU: 50 GB/s raw, about 45 GB/s effective per GPU"),
    "ib200_gbs": (22.5, "the 200 Gb/s (HDR) case, same ratio"),
    "lat_ib_us": (3.0, "one message across nodes (NIC, switch hops, NCCL's proxy), charged per off-node peer"),
    "launch_us": (2.0, "the host's cost of one kernel launch (the route's pack or unpack of one peer's slice)"),
    "per_node": (4, "GPUs per node (also 8)"),
    "chunk_mib": (32, "dist_nccl.c CHUNK_BYTES: a chunk per 32 MiB per peer, 1 to 16 (MAX_CHUNKS)"),
    "groups": (16, "the most plane groups; their number is chosen by cost (pk_groups_by_cost, bench/fft's default): "
                   "the divisor of N/G up to 16 with the least predicted time, the fewest among equal times"),
    "gpu_mem_gb": (150.8, "an H200's memory (143771 MiB); 90% of it usable"),
    "slabs": (4, "slabs a GPU holds at once: the slab, the exchange's destination, the route's send and receive "
                 "buffers (cuFFT's workspace fits in the 10% left)"),
}


def cost_defaults(path=COST_C):
    """The cost model's built-in constants, read from cost.c's initialiser."""
    text = open(path).read()
    m = re.search(r"static const pa__cost_model defaults = \{(.*?)\n\};", text, re.S)
    if not m:
        sys.exit("scaling_model.py: %s: the defaults' initialiser was not found" % path)
    return {k: float(v) for k, v in re.findall(r"\.(\w+)\s*=\s*([-+0-9.eE]+)\s*,", m.group(1))}


def cost_read(path, model):
    """A cost file's "name value" lines over model, as pa__cost_read reads them (bad lines are warned about)."""
    try:
        lines = open(path).read().splitlines()
    except OSError as e:
        sys.exit("scaling_model.py: cost file %s: %s" % (path, e.strerror))
    for i, line in enumerate(lines, 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        try:
            v = float(words[1]) if len(words) == 2 else None
        except ValueError:
            v = None
        if v is None or words[0] not in model or not 0 < v <= 1e12:
            sys.stderr.write("scaling_model.py: %s:%d: skipped (%s)\n" % (path, i, "unknown constant"
                             if v is not None and words[0] not in model else "expected \"name value\", value > 0"))
            continue
        model[words[0]] = v
    return model


class Model:
    """The inputs in the model's units (bytes, seconds) and the predictions built from them."""

    def __init__(self, cost, ib_gbs=None, lat_us=None, per_node=None, two_level=False):
        me = {k: v for k, (v, _) in MEASURED.items()}
        st = {k: v for k, (v, _) in STATED.items()}
        self.cost = cost
        self.b_nvl = cost["gpu_nccl_bw"] * 1e9          # bytes/ns -> bytes/s, one GPU's sends over NVLink
        self.l_group = cost["gpu_nccl_latency"] * 1e-9  # one NCCL group
        self.b_ib = (ib_gbs or st["ib_gbs"]) * 1e9
        self.l_ib = (lat_us if lat_us is not None else st["lat_ib_us"]) * 1e-6
        self.per_node = per_node or st["per_node"]
        self.t_launch = st["launch_us"] * 1e-6
        self.two_level = two_level
        # NCCL's cost per peer of a group: the small rows at 1 and 3 peers
        self.c_peer = (me["small_p4_nccl_ms"] - me["small_p2_nccl_ms"]) / 2 * 1e-3
        # ours against NCCL on the same bytes: plain, and with the FFT's layout change fused into the exchange
        self.r_plain = me["plain_p4_nccl_ms"] / me["plain_p4_ours_ms"]
        self.r_fused = me["fused_p4_nccl_ms"] / me["fused_p4_ours_ms"]
        # a transposing copy on one GPU, bytes read + written per second
        self.permute_rw = 2 * me["d2d_tbs"] * 1e12 * me["permute_ratio"]
        slab1024 = 8.0 * 1024 ** 3
        self.x_p1 = 2 * slab1024 / self.permute_rw       # the exchange at P = 1: one transposing copy
        self.t_local_1024 = me["fast_p1_ms"] * 1e-3 - self.x_p1
        self.f_xy = me["xy_ms_h100"] / (me["xy_ms_h100"] + me["z_ms_h100"])
        self.mem = st["gpu_mem_gb"] * 1e9 * 0.9
        self.slabs = st["slabs"]
        self.me = me

    # -- pieces ------------------------------------------------------------------------------------------------
    def t_local(self, n):
        """One GPU's XY and Z transforms of the whole N^3 array: memory-bound, so as N^3 from N = 1024."""
        return self.t_local_1024 * (n / 1024.0) ** 3

    @staticmethod
    def chunks(per_peer):
        """dist_nccl.c's chunks_for: one chunk per 32 MiB a peer, 1 to 16."""
        return max(1, min(16, int(per_peer // (STATED["chunk_mib"][0] * MIB))))

    def alltoall(self, members, on_node, b, fused, hidden=True):
        """One GPU's all-to-all of b bytes over `members` GPUs, on_node of them (itself included) on its node,
        through the NCCL route as it is: C chunks, each one group with every peer; with fused (a layout change)
        every peer's slice of every chunk is packed and unpacked by a kernel of its own, whose launches the host
        makes one after another, and the packing slows the NVLink part to the measured fused ratio; across
        nodes the wire is the slower part and hides the packing (hidden), or does not (not hidden: the ratio
        applies to both).  Returns (seconds, wire part, latency part, chunks)."""
        if members == 1:   # a grid row or column of one GPU: the exchange is a transposing copy on it
            t = 2 * b / self.permute_rw
            return t, t, 0.0, 1
        per = b / members
        c = self.chunks(per)
        on_node = min(on_node, members)
        n_on, n_off = on_node - 1, members - on_node
        r = self.r_fused if fused else self.r_plain
        t_bw = max(per * n_on / (self.b_nvl * r), per * n_off / (self.b_ib * (1 if hidden else r)))
        t_lat = c * (self.l_group + self.c_peer * n_on + (self.c_peer + self.l_ib) * n_off)
        if fused:
            t_lat += 2 * (members - 1) * c * self.t_launch
        return t_bw + t_lat, t_bw, t_lat, c

    def exchange(self, members, on_node, b, fused, hidden=True):
        """The exchange the transforms use: the route as it is, or (two_level) in two steps: an all-to-all
        within the node over NVLink that gathers, on the GPU of each local index, the bytes bound for the GPUs
        of that index on every node (the layout change fused here), then an all-to-all between the nodes'
        GPUs of one local index (one message a node instead of one a GPU).  Returns seconds."""
        g = min(on_node, members)
        if not self.two_level or g == members or g == 1:
            return self.alltoall(members, on_node, b, fused, hidden)[0]
        return self.alltoall(g, g, b, fused, hidden)[0] + self.alltoall(members // g, 1, b, False)[0]

    def on_node(self, g):
        return min(self.per_node, g)

    def fits(self, n, g):
        return self.slabs * 8.0 * n ** 3 / g <= self.mem

    # -- the transforms --------------------------------------------------------------------------------------
    def fast(self, n, g, groups=None, hidden=True):
        """The fast form: XY, the fused exchange S -> TZ, Z; with groups > 1 the XY transforms of group k + 1
        overlap the exchange of group k.  Returns the slowest GPU's seconds."""
        b, t = 8.0 * n ** 3 / g, self.t_local(n) / g
        xy, z = self.f_xy * t, (1 - self.f_xy) * t
        groups = groups or 1
        planes = max(1, int(round(n / g)))
        while groups > 1 and planes % groups:
            groups -= 1
        x = self.exchange(g, self.on_node(g), b / groups, True, hidden)
        xy1 = xy / groups
        return xy1 + (groups - 1) * max(xy1, x) + x + z

    def groups_by_cost(self, n, g, hidden=True):
        """The plane groups the fast form is cut into, as examples/pkufft/pkufft_groups.c chooses them: the
        divisor of N/G up to STATED groups with the least predicted time, the fewest among equal times (each
        group's exchange pays every peer's latency again).  Returns (groups, seconds)."""
        planes = max(1, int(round(n / g)))
        best, best_t = 1, self.fast(n, g, 1, hidden)
        for k in range(2, min(STATED["groups"][0], planes) + 1):
            if planes % k == 0:
                t = self.fast(n, g, k, hidden)
                if t < best_t * (1 - 1e-9):
                    best, best_t = k, t
        return best, best_t

    def fast_best(self, n, g, hidden=True):
        """The fast form in the plane groups chosen by cost."""
        return self.groups_by_cost(n, g, hidden)[1]

    def listing(self, n, g):
        """Listing 46 as written: XY, all-to-all, transposition, Z, transposition, all-to-all back."""
        b = 8.0 * n ** 3 / g
        x = self.exchange(g, self.on_node(g), b, True) if g > 1 else 2 * b / self.permute_rw
        return self.t_local(n) / g + 2 * x + 2 * (2 * b / self.permute_rw)

    def grid(self, g):
        """A pencil decomposition's process grid R x C (C >= R, both powers of two for a power-of-two G)."""
        r = 2 ** (int(math.log2(g)) // 2)
        return r, g // r

    def pencil(self, n, g, hidden=True):
        """Pencils: X transforms, all-to-all within a grid row (C peers), Y transforms, all-to-all within a
        column (R peers), Z transforms.  Ranks row-major: a row holds whole nodes once C >= GPUs per node."""
        r, c = self.grid(g)
        b = 8.0 * n ** 3 / g
        row_on = min(self.per_node, c)
        col_on = max(1, self.per_node // c) if c < self.per_node else 1
        x_row = self.exchange(c, row_on, b, True, hidden)
        x_col = self.exchange(r, col_on, b, True, hidden)
        return self.t_local(n) / g + x_row + x_col


# ---- the cases ------------------------------------------------------------------------------------------------

def weak_n(g):
    """Weak scaling: 1 GiB of complex float per GPU (1024^3 on 8 GPUs)."""
    return 1024.0 * (g / 8.0) ** (1.0 / 3.0)


def efficiency(m, n, g, t):
    return (m.t_local(n) / g) / t


def curves(cost):
    """The plot's lines: (label, [(G, efficiency)], dashed)."""
    base, m8 = Model(cost), Model(cost, per_node=8)
    hdr = Model(cost, ib_gbs=STATED["ib200_gbs"][0])
    out = []
    for n in (1024, 2048, 4096):
        pts = [(g, efficiency(base, n, g, base.fast_best(n, g))) for g in GPUS if g <= n and base.fits(n, g)]
        out.append(("slab N=%d" % n, pts, False))
    out.append(("slab weak, 1 GiB/GPU", [(g, efficiency(base, weak_n(g), g, base.fast_best(weak_n(g), g)))
                                          for g in GPUS], False))
    out.append(("slab N=2048, 8 GPU/node", [(g, efficiency(m8, 2048, g, m8.fast_best(2048, g))) for g in GPUS
                                             if m8.fits(2048, g)], True))
    out.append(("slab N=2048, 200 Gb/s", [(g, efficiency(hdr, 2048, g, hdr.fast_best(2048, g))) for g in GPUS
                                           if hdr.fits(2048, g)], True))
    out.append(("pencil N=1024", [(g, efficiency(base, 1024, g, base.pencil(1024, g))) for g in GPUS], True))
    one = base.alltoall(base.per_node, base.per_node, 256.0 * MIB, False)[0]
    out.append(("redistribution 256 MiB", [(g, one / base.alltoall(g, base.on_node(g), 256.0 * MIB, False)[0])
                                           for g in GPUS], False))
    return out


def draw(cost):
    lines = curves(cost)
    ys = [y for _, pts, _ in lines for _, y in pts]
    c = plots.Chart("Predicted efficiency beyond one node (a model: H200 nodes, InfiniBand)",
                    "GPUs (log scale)", "efficiency (log scale)", (GPUS[0], GPUS[-1]),
                    10 ** math.floor(math.log10(min(ys))), 1.0, ylog=True)
    for i, (label, pts, dash) in enumerate(lines):
        c.line(pts, plots.COLORS[i % len(plots.COLORS)], label, dash)
    c.note("FFT: transform time / total (fast form, plane groups chosen by cost); redistribution: one "
           "node's time / time")
    return c.svg()


# ---- the tables -----------------------------------------------------------------------------------------------

def ms(t):
    return "%.3f" % (t * 1e3) if t < 0.1 else "%.2f" % (t * 1e3)


def size(b):
    return "%.0f MiB" % (b / MIB) if b >= MIB else "%.0f KiB" % (b / 1024) if b >= 1024 else "%.0f B" % b


def table(cost, source):
    m = Model(cost)
    me, out = m.me, []
    w = out.append
    w("### Inputs\n")
    w("| input | value | source |")
    w("| --- | --- | --- |")
    w("| NVLink rate per GPU (`gpu_nccl_bw`) | %.0f GB/s | the cost model (%s) |" % (m.b_nvl / 1e9, source))
    w("| one NCCL group (`gpu_nccl_latency`) | %.0f us | the cost model (%s) |" % (m.l_group * 1e6, source))
    w("| NCCL's cost per peer in a group | %.1f us | (%.0f - %.0f us) / 2 peers: %s; %s |"
      % (m.c_peer * 1e6, me["small_p4_nccl_ms"] * 1e3, me["small_p2_nccl_ms"] * 1e3,
         MEASURED["small_p4_nccl_ms"][1], MEASURED["small_p2_nccl_ms"][1]))
    w("| ours / NCCL, plain all-to-all | %.3f | %s |" % (m.r_plain, MEASURED["plain_p4_ours_ms"][1]))
    w("| ours / NCCL, layout change fused (the FFT's exchange) | %.3f | %s: %.3f against %.3f ms |"
      % (m.r_fused, MEASURED["fused_p4_ours_ms"][1], me["fused_p4_ours_ms"], me["fused_p4_nccl_ms"]))
    w("| a transposing copy on one GPU, read + write | %.2f TB/s | 2 x %.3f TB/s x %.3f: %s; %s |"
      % (m.permute_rw / 1e12, me["d2d_tbs"], me["permute_ratio"], MEASURED["d2d_tbs"][1],
         MEASURED["permute_ratio"][1]))
    w("| one GPU's XY + Z transforms, N = 1024 | %.2f ms | %.2f ms (%s) - %.2f ms (8 GiB through that copy) |"
      % (m.t_local_1024 * 1e3, me["fast_p1_ms"], MEASURED["fast_p1_ms"][1], m.x_p1 * 1e3))
    w("| XY's share of them | %.3f | %.2f / (%.2f + %.2f) ms: %s |"
      % (m.f_xy, me["xy_ms_h100"], me["xy_ms_h100"], me["z_ms_h100"], MEASURED["xy_ms_h100"][1]))
    w("| cuFFT's 3-D transform on one GPU, N = 1024 | %.2f ms | %s |" % (me["cufft_1024_ms"],
                                                                       MEASURED["cufft_1024_ms"][1]))
    for k in ("ib_gbs", "ib200_gbs", "lat_ib_us", "launch_us", "per_node", "groups", "slabs"):
        v, why = STATED[k]
        unit = {"ib_gbs": " GB/s", "ib200_gbs": " GB/s", "lat_ib_us": " us", "launch_us": " us"}.get(k, "")
        w("| %s | %g%s | stated: %s |" % (STATED_NAMES[k], v, unit, why))

    w("\n### One node: the model against the measurements\n")
    w("| what | P | measured ms | model ms | model / measured |")
    w("| --- | --- | --- | --- | --- |")
    slab = lambda p: 8.0 * 1024 ** 3 / p  # noqa: E731
    rows = [("plain all-to-all, 256 MiB a rank (ours)", 4, me["plain_p4_ours_ms"],
             m.alltoall(4, 4, 256.0 * MIB, False)[0]),
            ("plain all-to-all, 256 MiB a rank (ours)", 2, me["plain_p2_ours_ms"],
             m.alltoall(2, 2, 256.0 * MIB, False)[0]),
            ("the FFT's fused exchange, N = 1024 (ours)", 4, me["fused_p4_ours_ms"],
             m.alltoall(4, 4, slab(4), True)[0]),
            ("the FFT's fused exchange, N = 1024 (ours)", 2, me["fused_p2_ours_ms"],
             m.alltoall(2, 2, slab(2), True)[0]),
            ("the fast form, N = 1024, one group", 2, me["fast_p2_ms"], m.fast(1024, 2)),
            ("the fast form, N = 1024, one group", 4, me["fast_p4_ms"], m.fast(1024, 4)),
            ("listing 46 as written, N = 1024", 1, me["listing_p1_ms"], m.listing(1024, 1))]
    for what, p, got, t in rows:
        w("| %s | %d | %.3f | %s | %.2f |" % (what, p, got, ms(t), t * 1e3 / got))

    w("\n### Strong scaling: N fixed, %d GPUs a node, NDR (%.0f GB/s a GPU)\n" % (m.per_node, m.b_ib / 1e9))
    w("| N | GPUs | nodes | to each peer | chunks | exchange in 1 group: wire / latency ms | fast form, 1 group ms "
      "| groups by cost: G, ms | efficiency | listing 46 ms | pencil ms (grid) | pencil efficiency |")
    w("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for n in (1024, 2048, 4096):
        for g in GPUS:
            if not m.fits(n, g):
                w("| %d | %d | %d | does not fit: %d slabs of %.0f GB in %.0f GB | | | | | | | | |"
                  % (n, g, max(1, g // m.per_node), m.slabs, 8.0 * n ** 3 / g / 1e9, m.mem / 1e9))
                continue
            b = 8.0 * n ** 3 / g
            t, bw, lat, c = m.alltoall(g, m.on_node(g), b, True)
            r, cc = m.grid(g)
            pen = m.pencil(n, g)
            w("| %d | %d | %d | %s | %d | %s / %s | %s | %s | %.3f | %s | %s (%dx%d) | %.3f |"
              % (n, g, max(1, g // m.per_node), size(b / g), c, ms(bw), ms(lat), ms(m.fast(n, g)),
                 "%d, %s" % (m.groups_by_cost(n, g)[0], ms(m.fast_best(n, g))), efficiency(m, n, g, m.fast_best(n, g)),
                 ms(m.listing(n, g)),
                 ms(pen), r, cc, efficiency(m, n, g, pen)))

    w("\n### Weak scaling: 1 GiB of complex float a GPU (N^3 / G fixed)\n")
    w("| GPUs | N | fast form, 1 group ms | groups by cost: G, ms | efficiency | pencil ms | pencil efficiency |")
    w("| --- | --- | --- | --- | --- | --- | --- |")
    for g in GPUS:
        n = weak_n(g)
        w("| %d | %.0f | %s | %s | %.3f | %s | %.3f |"
          % (g, n, ms(m.fast(n, g)), "%d, %s" % (m.groups_by_cost(n, g)[0], ms(m.fast_best(n, g))),
             efficiency(m, n, g, m.fast_best(n, g)),
             ms(m.pencil(n, g)), efficiency(m, n, g, m.pencil(n, g))))

    w("\n### The fast form's efficiency at N = 2048 under other assumptions\n")
    cases = [("as above", m, True), ("8 GPUs a node", Model(cost, per_node=8), True),
             ("HDR 22.5 GB/s", Model(cost, ib_gbs=STATED["ib200_gbs"][0]), True),
             ("1 us a message across nodes", Model(cost, lat_us=1.0), True),
             ("10 us a message across nodes", Model(cost, lat_us=10.0), True),
             ("packing not hidden across nodes", m, False),
             ("two-level exchange (node, then rail)", Model(cost, two_level=True), True)]
    w("| GPUs | " + " | ".join(k for k, _, _ in cases) + " |")
    w("| --- |" + " --- |" * len(cases))
    for g in GPUS:
        cells = ["%.3f" % efficiency(x, 2048, g, x.fast_best(2048, g, h)) if x.fits(2048, g) else "-"
                 for _, x, h in cases]
        w("| %d | %s |" % (g, " | ".join(cells)))

    w("\n### N = 1024 against cuFFT on one GPU (%.2f ms)\n" % me["cufft_1024_ms"])
    w("| GPUs | fast form ms | speed-up | pencil ms | speed-up |")
    w("| --- | --- | --- | --- | --- |")
    for g in [2, 4] + GPUS:
        f, pen = m.fast_best(1024, g), m.pencil(1024, g)
        w("| %d | %s | %.2fx | %s | %.2fx |" % (g, ms(f), me["cufft_1024_ms"] * 1e-3 / f, ms(pen),
                                               me["cufft_1024_ms"] * 1e-3 / pen))

    w("\n### Redistribution: an all-to-all of 256 MiB a GPU\n")
    w("| GPUs | to each peer | plain ms (wire / latency) | rate per GPU GB/s | against one node | layout change "
      "fused ms | against one node | fused, packing not hidden ms | plain, two-level ms |")
    w("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    m2 = Model(cost, two_level=True)
    b = 256.0 * MIB
    one_p = m.alltoall(m.per_node, m.per_node, b, False)[0]
    one_f = m.alltoall(m.per_node, m.per_node, b, True)[0]
    for g in [m.per_node] + GPUS:
        tp, bw, lat, _ = m.alltoall(g, m.on_node(g), b, False)
        tf = m.alltoall(g, m.on_node(g), b, True)[0]
        tn = m.alltoall(g, m.on_node(g), b, True, False)[0]
        w("| %d | %s | %s (%s / %s) | %.0f | %.3f | %s | %.3f | %s | %s |"
          % (g, size(b / g), ms(tp), ms(bw), ms(lat), b * (g - 1) / g / tp / 1e9, one_p / tp, ms(tf), one_f / tf,
             ms(tn), ms(m2.exchange(g, m2.on_node(g), b, False))))
    return "\n".join(out) + "\n"


SECTIONS = ["inputs", "one-node", "strong", "weak", "variants", "cufft", "redistribution"]
DOC = os.path.join(ROOT, "docs", "scaling.md")
BLOCK = re.compile(r"(<!-- scaling_model: (\S+) -->\n)(.*?)(<!-- /scaling_model -->)", re.S)


def sections(text):
    """The tables of --table by name (SECTIONS, in order), without their headings."""
    parts = [p for p in text.split("### ") if p.strip()]
    if len(parts) != len(SECTIONS):
        sys.exit("scaling_model.py: %d tables, %d names (SECTIONS)" % (len(parts), len(SECTIONS)))
    return {k: p.split("\n", 1)[1].strip("\n") + "\n" for k, p in zip(SECTIONS, parts)}


def doc_blocks(tables, write):
    """docs/scaling.md's tables between <!-- scaling_model: NAME --> and <!-- /scaling_model -->: the names
    that differ from the model's (rewritten when write)."""
    text = open(DOC).read()
    stale, seen = [], set()

    def swap(m):
        name = m.group(2)
        seen.add(name)
        want = tables.get(name)
        if want is None:
            stale.append(name + " (no such table)")
            return m.group(0)
        if m.group(3) != want:
            stale.append(name)
        return m.group(1) + want + m.group(4)

    new = BLOCK.sub(swap, text)
    stale += [k + " (missing)" for k in SECTIONS if k not in seen]
    if write and new != text:
        with open(DOC, "w") as f:
            f.write(new)
    return stale


def main(argv):
    args, cost_file, flags = list(argv), None, {}
    mode = "draw"
    while args:
        a = args.pop(0)
        if a in ("--check", "--table", "--doc"):
            mode = a[2:]
        elif a in ("--costs", "--ib", "--lat", "--per-node") and args:
            v = args.pop(0)
            if a == "--costs":
                cost_file = v
            else:
                try:
                    flags[a] = float(v)
                except ValueError:
                    sys.exit("scaling_model.py: %s wants a number, not %r" % (a, v))
                if not flags[a] > 0 or (a == "--per-node" and flags[a] != int(flags[a])):
                    sys.exit("scaling_model.py: %s wants a positive %s, not %r"
                             % (a, "whole number" if a == "--per-node" else "number", v))
        else:
            sys.exit(__doc__)
    if (cost_file or flags) and mode != "table":
        sys.exit("scaling_model.py: --costs, --ib, --lat and --per-node change --table's output only (the plot "
                 "and docs/scaling.md are drawn from the library's defaults and the stated figures)")
    cost = cost_defaults()
    source = "src/core/plan/cost.c's defaults"
    if cost_file:
        cost, source = cost_read(cost_file, cost), cost_file
    if flags:
        if "--ib" in flags:
            STATED["ib_gbs"] = (flags["--ib"], STATED["ib_gbs"][1] + " (given: --ib)")
        if "--lat" in flags:
            STATED["lat_ib_us"] = (flags["--lat"], STATED["lat_ib_us"][1] + " (given: --lat)")
        if "--per-node" in flags:
            STATED["per_node"] = (int(flags["--per-node"]), STATED["per_node"][1] + " (given: --per-node)")
    if mode == "table":
        sys.stdout.write(table(cost, source))
        return 0
    if mode == "doc":
        stale = doc_blocks(sections(table(cost, source)), True)
        print("scaling_model.py: docs/scaling.md's tables %s" % ("rewritten: " + ", ".join(stale) if stale
                                                                 else "up to date"))
        return 0
    svg = draw(cost)
    if mode == "check":
        old = open(SVG).read() if os.path.exists(SVG) else None
        stale = ([] if old == svg else ["docs/img/scaling_model.svg"]) + \
            ["docs/scaling.md's table " + k for k in doc_blocks(sections(table(cost, source)), False)]
        if stale:
            print("scaling_model.py: out of date with the model (run scripts/scaling_model.py and "
                  "scripts/scaling_model.py --doc): " + ", ".join(stale))
            return 1
        print("scaling_model.py: docs/img/scaling_model.svg and docs/scaling.md's tables up to date")
        return 0
    os.makedirs(os.path.dirname(SVG), exist_ok=True)
    with open(SVG, "w") as f:
        f.write(svg)
    print("scaling_model.py: docs/img/scaling_model.svg written")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
