#!/usr/bin/env python3
"""The plots of docs/performance.md, drawn as SVG from the numbers in docs/data/*.csv (standard library only).

    scripts/plots.py                 writes docs/img/host_copies.svg, ssb_sf20.svg, fft_scaling.svg, gemm_tc.svg
    scripts/plots.py --check         exits 1 when a plot in docs/img differs from what the data draw now
    scripts/plots.py fft-log LOG...  prints docs/data/fft_scaling.csv's rows read from bench/fft's output
    scripts/plots.py sgemm-log LOG   prints docs/data/gemm_tc.csv's rows read from bench/sgemm's output

The data files keep the columns the benchmarks write: bench/copy_host --csv FILE (host_copies.csv), bench/ssb
--csv FILE (ssb_sf20.csv); bench/fft prints "device: NAME x GPUS, ..." and one "fft-total N= P= route= ms="
line per run and its "P12 total device N=..." row against cufftPlan3d on one GPU, which fft-log turns into
fft_scaling.csv's rows (n, p, gpus, route, total_ms).  docs/data/README.md says where each file's numbers
come from.  The drawing is deterministic: the same data give the same bytes.
"""
import csv
import math
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "docs", "data")
IMG = os.path.join(ROOT, "docs", "img")
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf", "#7f7f7f"]
W, H, LEFT, RIGHT, TOP, BOTTOM = 720, 420, 70, 200, 40, 60


def esc(text):
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def fmt(v):
    return ("%g" % v) if abs(v) >= 0.01 or v == 0 else "%.0e" % v


class Chart:
    """A plot area with linear or logarithmic axes, drawn into a list of SVG elements."""

    def __init__(self, title, xlabel, ylabel, xs, ylo, yhi, ylog=False, xcats=None):
        self.out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
                    'font-family="sans-serif" font-size="12">' % (W, H, W, H),
                    '<rect width="100%" height="100%" fill="white"/>',
                    '<text x="%d" y="22" font-size="15" font-weight="bold">%s</text>' % (LEFT, esc(title))]
        self.xs, self.ylog, self.xcats = xs, ylog, xcats
        if not ylog:   # round the range out to a step of 1, 2 or 5 times a power of ten, about five ticks
            raw = (yhi - ylo) / 5
            mag = 10 ** math.floor(math.log10(raw))
            self.step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
            ylo, yhi = math.floor(ylo / self.step) * self.step, math.ceil(yhi / self.step) * self.step
        self.ylo, self.yhi = (math.log10(ylo), math.log10(yhi)) if ylog else (ylo, yhi)
        self.pw, self.ph = W - LEFT - RIGHT, H - TOP - BOTTOM
        self.legend = 0
        self.axes(xlabel, ylabel)

    def x(self, v):
        if self.xcats is not None:
            return LEFT + self.pw * (self.xcats.index(v) + 0.5) / len(self.xcats)
        lo, hi = self.xs
        return LEFT + self.pw * (math.log2(v) - math.log2(lo)) / (math.log2(hi) - math.log2(lo))

    def y(self, v):
        v = math.log10(v) if self.ylog else v
        return TOP + self.ph * (1 - (v - self.ylo) / (self.yhi - self.ylo))

    def axes(self, xlabel, ylabel):
        o = self.out
        if self.ylog:
            marks = (1, 2, 5) if self.yhi - self.ylo > 1.5 else (1, 1.5, 2, 3, 5, 7)   # more within a decade
            ticks = [10 ** e * m for e in range(math.floor(self.ylo), math.ceil(self.yhi) + 1) for m in marks]
        else:
            n = int(round((self.yhi - self.ylo) / self.step))
            ticks = [self.ylo + i * self.step for i in range(n + 1)]
        for t in ticks:
            if not (self.ylo - 1e-9 <= (math.log10(t) if self.ylog else t) <= self.yhi + 1e-9):
                continue
            y = self.y(t)
            o.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>' % (LEFT, y, LEFT + self.pw, y))
            o.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>' % (LEFT - 6, y + 4, fmt(round(t, 3))))
        xticks = self.xcats if self.xcats is not None else self.xticks()
        for t in xticks:
            o.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>' % (self.x(t), TOP + self.ph + 18, esc(t)))
        o.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="black"/>' % (LEFT, TOP, self.pw,
                                                                                           self.ph))
        o.append('<text x="%d" y="%d" text-anchor="middle">%s</text>' % (LEFT + self.pw // 2, H - 18, esc(xlabel)))
        o.append('<text x="16" y="%d" text-anchor="middle" transform="rotate(-90 16 %d)">%s</text>'
                 % (TOP + self.ph // 2, TOP + self.ph // 2, esc(ylabel)))

    def xticks(self):
        lo, hi = self.xs
        t, out = lo, []
        while t <= hi:
            out.append(t)
            t *= 2
        return out

    def key(self, color, label, dash=False):
        y = TOP + 10 + 18 * self.legend
        self.legend += 1
        x = LEFT + self.pw + 12
        self.out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/>'
                        % (x, y, x + 22, y, color, ' stroke-dasharray="5,3"' if dash else ""))
        self.out.append('<text x="%d" y="%d">%s</text>' % (x + 28, y + 4, esc(label)))

    def line(self, pts, color, label, dash=False):
        path = " ".join("%.1f,%.1f" % (self.x(a), self.y(b)) for a, b in pts)
        self.out.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>'
                        % (path, color, ' stroke-dasharray="5,3"' if dash else ""))
        for a, b in pts:
            self.out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>' % (self.x(a), self.y(b), color))
        self.key(color, label, dash)

    def hline(self, v, color, label):
        y = self.y(v)
        self.out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s" stroke-dasharray="5,3"/>'
                        % (LEFT, y, LEFT + self.pw, y, color))
        self.key(color, label, True)

    def bar(self, cat, v, color, width, offset=0.0):
        x = self.x(cat) + offset - width / 2
        y0, y1 = self.y(max(v, self.ylo)), self.y(self.ylo)
        self.out.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>' % (x, y0, width, y1 - y0,
                                                                                            color))

    def tick(self, cat, v, color, width):
        y = self.y(v)
        self.out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"/>'
                        % (self.x(cat) - width / 2, y, self.x(cat) + width / 2, y, color))

    def note(self, text):
        self.out.append('<text x="%d" y="%d" font-size="11" fill="#555">%s</text>' % (LEFT, H - 4, esc(text)))

    def svg(self):
        return "\n".join(self.out + ["</svg>"]) + "\n"


def rows(name):
    with open(os.path.join(DATA, name), newline="") as f:
        return list(csv.DictReader(f))


def host_copies():
    """P4: pa_copy's rate over an OpenMP memcpy's on as many threads, per case, against the thread count."""
    data = rows("host_copies.csv")
    threads = sorted({int(r["threads"]) for r in data})
    cases = list(dict.fromkeys(r["case"] for r in data))
    lo = min(0.5, min(float(r["ratio"]) for r in data) - 0.05)
    hi = max(float(r["ratio"]) for r in data) + 0.1
    c = Chart("P4: host layout copies against an OpenMP memcpy", "threads", "ratio to OpenMP memcpy (higher is better)",
              (threads[0], threads[-1]), lo, hi)
    for i, case in enumerate(cases):
        pts = sorted((int(r["threads"]), float(r["ratio"])) for r in data if r["case"] == case)
        c.line(pts, COLORS[i % len(COLORS)], case)
    for target in sorted({float(r["target"]) for r in data}):
        c.hline(target, "#555", "target %.2f" % target)
    c.note("the median of a run's repeats, per case and thread count; docs/data/host_copies.csv")
    return c.svg()


def ssb():
    """P8: each query's fraction of the floor (bytes read at the device's read bandwidth) and its target."""
    data = [r for r in rows("ssb_sf20.csv") if r.get("engine", "gpu") == "gpu"]   # bench/ssb's GPU rows
    queries = [r["query"] for r in data]
    hi = max(float(r["of_floor"]) for r in data) * 1.1
    c = Chart("P8: SSB SF %s on the GPU, fraction of the floor" % data[0]["sf"], "query",
              "floor time / our time (higher is better)", None, 0, hi, xcats=queries)
    width = c.pw / len(queries) * 0.6
    for r in data:
        c.bar(r["query"], float(r["of_floor"]), COLORS[0], width)
        c.tick(r["query"], float(r["target"]), COLORS[1], width * 1.3)
    c.key(COLORS[0], "ours (GPU, CUDA graph)")
    c.key(COLORS[1], "target")
    c.hline(1.0, "#555", "the floor")
    c.note("targets: q1.x 0.90, joins 0.50; above 1: fewer bytes read than the floor counts; docs/data/ssb_sf20.csv")
    return c.svg()


def fft():
    """P12: the distributed 3-D FFT's total time against the GPU count, per N and route, beside cuFFT on one GPU."""
    data = rows("fft_scaling.csv")
    gpus = sorted({int(r["gpus"]) for r in data})
    ms = [float(r["total_ms"]) for r in data]
    ms += [f * float(r["total_ms"]) for r in data if r["route"] == "cufft" for _, f in P12_LIMITS]
    c = Chart("P12: 3-D FFT (complex float) total time against GPUs", "GPUs (one rank each)", "ms (log scale)",
              (1, max(4, gpus[-1])), min(ms) / 1.5, max(ms) * 1.5, ylog=True)
    series = list(dict.fromkeys((r["n"], r["route"]) for r in data if r["route"] != "cufft"))
    for i, (n, route) in enumerate(series):
        pts = sorted((int(r["gpus"]), float(r["total_ms"])) for r in data if (r["n"], r["route"]) == (n, route))
        c.line(pts, COLORS[i % len(COLORS)], "N=%s %s" % (n, route))
    for i, r in enumerate(r for r in data if r["route"] == "cufft"):
        color = COLORS[(len(series) + i) % len(COLORS)]
        c.hline(float(r["total_ms"]), color, "cuFFT 1 GPU N=%s" % r["n"])
        # P12's limits on the fast form: 1.5x cuFFT's time on one GPU, 1.0x on two, 0.6x on four
        c.line([(g, f * float(r["total_ms"])) for g, f in P12_LIMITS], "#555", "P12 limit N=%s" % r["n"], dash=True)
    c.note("one rank per GPU; device-fast: one all-to-all, the result left transposed; docs/data/fft_scaling.csv")
    return c.svg()


def gemm_tc():
    """P7 on the tensor cores: each precision and shape's fraction of cuBLAS, per strategy, and the target."""
    data = rows("gemm_tc.csv")
    for r in data:   # short labels: the square size, or Bt
        square = r["m"] == r["n"] == r["k"]
        r["label"] = "%s %s" % (r["precision"], r["m"] if square else ("Bt" if "Bt" in r["shape"] else r["shape"]))
    cases = list(dict.fromkeys(r["label"] for r in data))
    strategies = list(dict.fromkeys(r["strategy"] for r in data))
    hi = max(1.1, max(float(r["ratio"]) for r in data) * 1.1)
    c = Chart("P7: gemm on the tensor cores, fraction of cuBLAS (same precision)", "precision, m x n x k",
              "cuBLAS time / our time (higher is better)", None, 0, hi, xcats=cases)
    width = c.pw / len(cases) * 0.7 / len(strategies)
    for i, strategy in enumerate(strategies):
        for r in data:
            if r["strategy"] == strategy:
                c.bar(r["label"], float(r["ratio"]), COLORS[i], width,
                      (i - (len(strategies) - 1) / 2) * width)
        c.key(COLORS[i], strategy)
    c.hline(0.70, "#555", "target 0.70")
    c.note("n x n x n, fp32 accumulators; Bt: 8192 x 1024 x 4096, B stored transposed; docs/data/gemm_tc.csv")
    return c.svg()


def sgemm_log(path):
    """Rows of gemm_tc.csv from bench/sgemm's tensor-core rows (the default strategy's and mma.sync's)."""
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["precision", "shape", "strategy", "m", "n", "k", "tflops", "cublas_tflops", "ratio"])
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*(TF32|BF16|FP16)( Bt)? (wgmma|mma\.sync)\s+(\d+)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+"
                         r"([\d.]+)\s+([\d.]+)", line)
            if m:
                shape = "%sx%sx%s%s" % (m.group(4), m.group(5), m.group(6), " Bt" if m.group(2) else "")
                w.writerow([m.group(1), shape, m.group(3)] + [m.group(i) for i in range(4, 10)])


P12_LIMITS = [(1, 1.5), (2, 1.0), (4, 0.6)]
PLOTS = {"host_copies.svg": host_copies, "ssb_sf20.svg": ssb, "fft_scaling.svg": fft, "gemm_tc.svg": gemm_tc}


def fft_log(paths):
    """Rows of fft_scaling.csv from bench/fft's output (one or more mpirun logs)."""
    out, cufft = [], {}
    for path in paths:
        gpus = 1
        with open(path) as f:
            for line in f:
                m = re.match(r"device: .* x (\d+), (\d+) ranks?", line)
                if m:
                    gpus = min(int(m.group(1)), int(m.group(2)))
                m = re.match(r"fft-total N=(\d+) P=(\d+) route=(\S+) ms=([\d.]+)", line)
                if m:
                    out.append((m.group(1), m.group(2), str(gpus), m.group(3), m.group(4)))
                m = re.match(r"P12 total device N=(\d+)\s+[\d.]+\s+cufftPlan3d 1 GPU\s+([\d.]+)", line)
                if m:
                    cufft[m.group(1)] = m.group(2)
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["n", "p", "gpus", "route", "total_ms"])
    for r in out:
        w.writerow(r)
    for n, v in sorted(cufft.items(), key=lambda kv: int(kv[0])):
        w.writerow([n, 1, 1, "cufft", v])


def main(argv):
    if argv[:1] == ["fft-log"]:
        if len(argv) < 2:
            sys.exit("usage: scripts/plots.py fft-log LOG...")
        fft_log(argv[1:])
        return 0
    if argv[:1] == ["sgemm-log"]:
        if len(argv) != 2:
            sys.exit("usage: scripts/plots.py sgemm-log LOG")
        sgemm_log(argv[1])
        return 0
    check = argv[:1] == ["--check"]
    if argv and not check:
        sys.exit(__doc__)
    stale = []
    os.makedirs(IMG, exist_ok=True)
    for name, draw in PLOTS.items():
        svg, path = draw(), os.path.join(IMG, name)
        if check:
            old = open(path).read() if os.path.exists(path) else None
            if old != svg:
                stale.append(name)
        else:
            with open(path, "w") as f:
                f.write(svg)
    if stale:
        print("plots.py: out of date with docs/data (run scripts/plots.py): " + ", ".join(stale))
        return 1
    print("plots.py: %d plots %s" % (len(PLOTS), "up to date" if check else "written to docs/img"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
