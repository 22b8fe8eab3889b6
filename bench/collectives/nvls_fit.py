#!/usr/bin/env python3
# NVLS AllReduce in one node (models/collectives/nccl/nccl_pipeline.hpp, nvls_one_node_allreduce): its three
# constants fitted on one published nccl-tests curve and shown on another it was not fitted to. Writes
# bench/collectives/nvls_fit.md (or, with --check, says whether that file is what this script writes).
# Standard library only.
#
# The model, as NCCL's kernel runs the collective (src/device/all_reduce.h: each of the 16 NVLS CTAs of SM90 has
# scatter, reduce and gather warps, for each of the 8 NVLS heads of an 8-GPU node: ops = 128 pipes, three stages):
#   t = L + (S / (ops k) + 2) x (k ops / B + tau),   B = eta x 18 x 20.6 GB/s x 8 / 9,
# k the chunk calcCollChunking picks (128 KiB, halved to 64, 32, 16 KiB while S < 64, 8, 2 x ops x k), 18 NVLinks
# of 20.6 GB/s the H100's as NCCL counts them, 8 / 9 = n / (n + 1) the share of the NVLink traffic each rank's
# result is. Fitted: L, eta and tau, least squares on log time (Nelder-Mead, deterministic start), over the sizes
# from 2 MiB up (where NCCL picks NVLS) of Azure ND H100 v5 (published/azure_nd_h100_v5_all_reduce_1n.csv).
# Shown, not fitted: Azure ND H200 v5 (published/azure_nd_h200_v5_all_reduce_1n.csv).
import csv
import math
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(here))
from fit_output import write_or_check  # noqa: E402

OUT = os.path.join(here, "nvls_fit.md")
FIT_ON = "azure_nd_h100_v5_all_reduce_1n.csv"
SHOWN_ON = ["azure_nd_h200_v5_all_reduce_1n.csv"]
RANKS = 8
OPS = 16 * 8
LINKS = 18 * 20.6e9
SMALLEST = 2 * 1048576


def load(name):
    rows = []
    with open(os.path.join(here, "published", name)) as f:
        for r in csv.reader(f):
            if r and r[0][0].isdigit():
                size, busbw = float(r[0]), float(r[1])
                rows.append((size, size / (busbw * 1e9 * RANKS / (2 * (RANKS - 1)))))
    return [r for r in rows if r[0] >= SMALLEST]


def chunk(size):
    k = 131072
    if size < 64 * OPS * k and k > 65536:
        k = 65536
    if size < 8 * OPS * k and k > 32768:
        k = 32768
    if size < 2 * OPS * k and k > 16384:
        k = 16384
    return k


def model(p, size):
    launch, eta, tau = p
    k = chunk(size)
    bw = eta * LINKS * RANKS / (RANKS + 1)
    per_chunk = k * OPS / bw + tau
    return launch + (size / (OPS * k) + 2) * per_chunk


def nelder_mead(f, x0, steps, iterations=4000):
    n = len(x0)
    pts = [list(x0)] + [[x0[j] + (steps[j] if i == j else 0) for j in range(n)] for i in range(n)]
    vals = [f(p) for p in pts]
    for _ in range(iterations):
        order = sorted(range(n + 1), key=lambda i: vals[i])
        pts, vals = [pts[i] for i in order], [vals[i] for i in order]
        c = [sum(p[j] for p in pts[:-1]) / n for j in range(n)]
        r = [c[j] + (c[j] - pts[-1][j]) for j in range(n)]
        fr = f(r)
        if fr < vals[0]:
            e = [c[j] + 2 * (c[j] - pts[-1][j]) for j in range(n)]
            fe = f(e)
            pts[-1], vals[-1] = (e, fe) if fe < fr else (r, fr)
        elif fr < vals[-2]:
            pts[-1], vals[-1] = r, fr
        else:
            cc = [c[j] + 0.5 * (pts[-1][j] - c[j]) for j in range(n)]
            fc = f(cc)
            if fc < vals[-1]:
                pts[-1], vals[-1] = cc, fc
            else:
                pts = [pts[0]] + [[pts[0][j] + 0.5 * (p[j] - pts[0][j]) for j in range(n)] for p in pts[1:]]
                vals = [f(p) for p in pts]
    return pts[0]


def busbw(size, seconds):
    return size / seconds * 2 * (RANKS - 1) / RANKS / 1e9


def main():
    fit_rows = load(FIT_ON)

    def cost(p):
        if min(p) <= 0:
            return float("inf")
        return sum(math.log(model(p, s) / t) ** 2 for s, t in fit_rows)

    raw = nelder_mead(cost, [20e-6, 0.9, 4e-6], [5e-6, 0.05, 1e-6])
    # Three significant digits: what models/collectives/nccl/nccl_pipeline.hpp's kNvlsOneNodeFit holds.
    p = [float(f"{v:.3g}") for v in raw]
    out = []
    w = out.append
    w("# NVLS AllReduce in one node: the chunk pipeline's fit and its check")
    w("")
    w("Written by `bench/collectives/nvls_fit.py` (the model and the method at its top; "
      "models/collectives/nccl/nccl_pipeline.hpp holds the constants, tests/models/collectives/nccl_tuning_test.cpp "
      "holds them to this file). Bus bandwidth in GB/s as nccl-tests reports it; error = (model - published) / "
      "published.")
    w("")
    w("| fitted on | L (us) | eta | tau (us) |")
    w("|---|---:|---:|---:|")
    w(f"| {FIT_ON} | {p[0] * 1e6:.3g} | {p[1]:.3g} | {p[2] * 1e6:.3g} |")
    for title, name in [("Fitted on", FIT_ON)] + [("Shown on", n) for n in SHOWN_ON]:
        rows = load(name) if name != FIT_ON else fit_rows
        w("")
        w(f"## {title} {name}")
        w("")
        w("| size (B) | chunk (KiB) | published busbw | model busbw | error |")
        w("|---:|---:|---:|---:|---:|")
        errs = []
        for s, t in rows:
            m = model(p, s)
            e = t / m - 1
            errs.append(abs(e))
            w(f"| {s:.0f} | {chunk(s) // 1024} | {busbw(s, t):.1f} | {busbw(s, m):.1f} | {e * 100:+.1f} % |")
        w("")
        w(f"Mean / largest error: {sum(errs) / len(errs) * 100:.1f} / {max(errs) * 100:.1f} %.")
    text_out = "\n".join(out) + "\n"
    return write_or_check(OUT, text_out, "nvls_fit")


if __name__ == "__main__":
    sys.exit(main())
