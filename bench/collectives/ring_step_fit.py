#!/usr/bin/env python3
# A ring's step inside one node (models/collectives/nccl/nccl_nvlink_step.hpp): how many times NCCL's own per-hop
# figure a step takes on the published one-node curves, fitted on some sizes and shown on others; dtsim applies the
# factor to every NVLink step of a ring or tree, in one node and across nodes (docs/collectives.md). Writes
# bench/collectives/ring_step_fit.md (or, with --check, says whether that file is what this script writes).
# Standard library only.
#
# NCCL prices a ring AllReduce of S bytes on n GPUs of one node as
#   t = base + 2 (n - 1) x hw + S / bw
# (src/graph/tuning.cc at the release docs/collectives.md names: base and hw the ring's base latency and NVLink
# per-hop latency of the protocol, bw its algorithm bandwidth). dtsim keeps NCCL's base and bandwidth and its choice
# of protocol, and prices each step at k x hw: one factor per GPU architecture, for LL and Simple alike.
#   Ampere: fitted on Azure ND A100 v4's sizes from 32 MiB (ring Simple: base 8.4 us, hw 3.4 us, bw = 12 channels
#     x 20 GB/s x 8 / 14); shown on the same curve's sizes up to 256 KiB, which run ring LL (base 6.6 us, hw 0.6 us,
#     bw = Ampere's one-node LL ceiling 87.7 GB/s x 8 / 14): a protocol the fit did not see.
#   Hopper: fitted on Azure ND H100 v5's sizes up to 32 KiB (ring LL: base 6.6 us, hw 0.6 us, bw = Hopper's
#     one-node LL ceiling 141 GB/s x 8 / 14; from 64 KiB the curve runs flat, as NCCL's switch to NVLS would);
#     shown on Azure ND H200 v5's sizes up to 512 KiB.
# LL128 is fitted on no curve: its rows in docs/VALIDATION.md (the A100's one-node 4 to 16 MiB, the two-node tree and
# ring LL128 sizes) show the factor on it.
# The fit: least squares on log time, golden-section search over k in [1, 10].
import csv
import math
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(here))
from fit_output import write_or_check  # noqa: E402

OUT = os.path.join(here, "ring_step_fit.md")
RANKS = 8
STEPS = 2 * (RANKS - 1)
KiB, MiB = 1024, 1024 * 1024

# NCCL's ring AllReduce estimate for 8 GPUs of one node: (base us, NVLink hop us, algorithm bandwidth GB/s).
NCCL = {
    ("ampere", "simple"): (8.4, 3.4, 12 * 20.0 * RANKS / STEPS),
    ("ampere", "ll"): (6.6, 0.6, 87.7 * RANKS / STEPS),
    ("hopper", "ll"): (6.6, 0.6, 141.0 * RANKS / STEPS),
}

# (architecture, curve, protocol, smallest, largest, fitted or shown)
ROWS = [
    ("ampere", "azure_nd_a100_v4_all_reduce_1n.csv", "simple", 32 * MiB, 8 * 1024 * MiB, "fitted"),
    ("ampere", "azure_nd_a100_v4_all_reduce_1n.csv", "ll", 1 * KiB, 256 * KiB, "shown"),
    ("hopper", "azure_nd_h100_v5_all_reduce_1n.csv", "ll", 1 * KiB, 32 * KiB, "fitted"),
    ("hopper", "azure_nd_h200_v5_all_reduce_1n.csv", "ll", 1 * KiB, 512 * KiB, "shown"),
]


def load(name, lo, hi):
    rows = []
    with open(os.path.join(here, "published", name)) as f:
        for r in csv.reader(f):
            if r and r[0][0].isdigit():
                size, busbw = float(r[0]), float(r[1])
                if lo <= size <= hi:
                    rows.append((size, size / (busbw * 1e3 * RANKS / STEPS)))  # microseconds
    return rows


def model(arch, proto, k, size):
    base, hw, bw = NCCL[(arch, proto)]
    return base + STEPS * k * hw + size / (bw * 1e3)


def fit(arch, proto, rows):
    def cost(k):
        return sum(math.log(model(arch, proto, k, s) / t) ** 2 for s, t in rows)

    lo, hi = 1.0, 10.0
    g = (math.sqrt(5) - 1) / 2
    for _ in range(200):
        a, b = hi - g * (hi - lo), lo + g * (hi - lo)
        if cost(a) < cost(b):
            hi = b
        else:
            lo = a
    return (lo + hi) / 2


def label(size):
    for unit, scale in (("GiB", 1024 * MiB), ("MiB", MiB), ("KiB", KiB)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} B"


def busbw(size, us):
    return size / (us * 1e3) * STEPS / RANKS


def main():
    factors = {}
    for arch, name, proto, lo, hi, role in ROWS:
        if role == "fitted":
            factors[arch] = float(f"{fit(arch, proto, load(name, lo, hi)):.3g}")
    out = []
    w = out.append
    w("# A ring's step inside one node: the fit and its checks")
    w("")
    w("Written by `bench/collectives/ring_step_fit.py` (the model and the method at its top; "
      "models/collectives/nccl/nccl_nvlink_step.cpp holds the factors, tests/models/collectives/nccl_tuning_test.cpp "
      "holds them to this file). dtsim prices each NVLink step of a ring or tree at k x NCCL's NVLink per-hop "
      "latency, fitted here on one-node rings; bus bandwidth in GB/s as nccl-tests reports it; error = (model - published) / "
      "published; `NCCL` is NCCL's own estimate (k = 1).")
    w("")
    w("| architecture | k | fitted on |")
    w("|---|---:|---|")
    for arch, name, proto, lo, hi, role in ROWS:
        if role == "fitted":
            w(f"| {arch} | {factors[arch]:.3g} | {name}, ring {proto}, {label(lo)} to {label(hi)} |")
    for arch, name, proto, lo, hi, role in ROWS:
        rows = load(name, lo, hi)
        w("")
        w(f"## {arch}: {role} on {name} (ring {proto})")
        w("")
        w("| size (B) | published busbw | model busbw | error | NCCL busbw | NCCL error |")
        w("|---:|---:|---:|---:|---:|---:|")
        errs, nccl_errs = [], []
        for s, t in rows:
            m, n = model(arch, proto, factors[arch], s), model(arch, proto, 1.0, s)
            e, en = t / m - 1, t / n - 1
            errs.append(abs(e))
            nccl_errs.append(abs(en))
            w(f"| {s:.0f} | {busbw(s, t):.2f} | {busbw(s, m):.2f} | {e * 100:+.1f} % | {busbw(s, n):.2f} | "
              f"{en * 100:+.1f} % |")
        w("")
        w(f"Mean / largest error: {sum(errs) / len(errs) * 100:.1f} / {max(errs) * 100:.1f} % (NCCL's estimate: "
          f"{sum(nccl_errs) / len(nccl_errs) * 100:.1f} / {max(nccl_errs) * 100:.1f} %).")
    text_out = "\n".join(out) + "\n"
    return write_or_check(OUT, text_out, "ring_step_fit")


if __name__ == "__main__":
    sys.exit(main())
