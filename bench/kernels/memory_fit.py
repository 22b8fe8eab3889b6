#!/usr/bin/env python3
# Memory-bound kernels by class: how far below a streaming kernel's rate PyTorch's LayerNorm and softmax run, fitted
# on two GPUs and checked on five others (issue #46). dtsim streams them at the device's `memory` figure, what an add
# reaches; the table's last columns are that rule's error, the share's columns what one share a class would give. Writes bench/kernels/memory.md (or, with --check, says whether
# that file is what this script writes). Standard library only.
#
# Data: NeuSight's measured fp32 kernels (bench/kernels/published/neusight_memory_kernels.csv, SOURCES.md there):
# torch.add (reads 2, writes 1 element), relu and gelu (1 and 1), LayerNorm over the last dimension and softmax over
# it (1 and 1), each timed by CUDA events around one call, so each time is the op's dispatch plus its kernel.
# Per GPU and op, on the shapes of at least 256 MB with rows of at least 768 columns: time = a + bytes / rate (least squares), a the dispatch; the
# rate over the data sheet's bandwidth is what the op streams at. The model (models/zoo/kernel.hpp): a class's
# kernels run at the device's streaming rate (the zoo's `memory` figure, what `add` reaches) x the class's share,
# one number a class fitted on V100 and A100 40GB (the median of class rate / add rate over them), checked on the
# other five: per shape, its kernel time (time - a, add's dispatch on that GPU) against bytes / (that GPU's add rate x
# share).
# The LayerNorm's passes (the section after): PyTorch's kernel (aten/src/ATen/native/cuda/layer_norm_kernel.cu,
# vectorized_layer_norm_kernel: one block of 128 threads a row) reads its row twice, once for the mean and variance
# and once to normalise, and writes it once: the second read comes from L2 while the rows in flight fit there, else
# from memory. Rows in flight W = SMs x blocks resident per SM x row bytes; a second read hits L2 with probability
# min(1, f x L2 / W), so a row costs (2 + its misses) x row bytes at the add's rate. f, the share of L2 the rows
# keep, is the one fitted number (a grid of 0.05 steps; the smallest mean over V100 and A100 40GB of each GPU's
# median error), checked on the other five and on the H200's PyTorch 2.11 LayerNorms of
# bench/published/h200_memory_kernels.json (fp32 and bf16: that file's add of the same shape is the streaming rate).
import csv
import json
import os
import statistics
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(here))
from fit_output import write_or_check  # noqa: E402

DATA = os.path.join(here, "published", "neusight_memory_kernels.csv")
OUT = os.path.join(here, "memory.md")
# Data sheets' memory bandwidth, GB/s.
BW = {"Tesla V100-PCIE-32GB": 900, "NVIDIA A100-PCIE-40GB": 1555, "NVIDIA A100 80GB PCIe": 1935, "NVIDIA L4": 300,
      "Tesla P100-PCIE-16GB": 732, "Tesla T4": 320, "Tesla P4": 192}
FIT = ["Tesla V100-PCIE-32GB", "NVIDIA A100-PCIE-40GB"]
ELEMENTS = {"add": 3, "relu": 2, "gelu": 2, "ln": 2, "softmax": 2}  # elements read and written, 4 bytes each
CLASSES = {"ln": "norm (LayerNorm, RMSNorm)", "softmax": "softmax"}
H200 = os.path.join(os.path.dirname(here), "published", "h200_memory_kernels.json")
# Per GPU: SMs, L2 bytes, threads and blocks resident per SM (compute capability's limits: CUDA C++ Programming
# Guide, 'Features and Technical Specifications', table 'Technical Specifications per Compute Capability'). SMs and
# L2: NVIDIA's architecture white papers (Tesla P100 / Pascal GP100 2016: 56 SMs, 4 MB; Volta GV100 2017: 80, 6 MB;
# Turing TU104 2018: T4's 40 SMs, 4 MB; Pascal GP104 (P4, 2,560 cores, 20 SMs, 2 MB); A100 2020: 108 SMs, 40 MB;
# Ada AD104 (L4 data sheet 2023: 7,424 cores, 58 SMs; 48 MB L2); H100 2022: H100 SXM5 132 SMs, 50 MB, the H200's).
GPU = {"Tesla P100-PCIE-16GB": (56, 4 << 20, 2048, 32), "Tesla V100-PCIE-32GB": (80, 6 << 20, 2048, 32),
       "Tesla T4": (40, 4 << 20, 1024, 16), "Tesla P4": (20, 2 << 20, 2048, 32),
       "NVIDIA A100-PCIE-40GB": (108, 40 << 20, 2048, 32), "NVIDIA A100 80GB PCIe": (108, 40 << 20, 2048, 32),
       "NVIDIA L4": (58, 48 << 20, 1536, 24), "NVIDIA H200": (132, 50 << 20, 2048, 32)}
LN_THREADS = 128  # PyTorch's vectorized LayerNorm: a block of 4 warps a row


def ln_time(device, rows, cols, elem_bytes, rate, f):
    """The passes model's LayerNorm kernel time: two reads and a write of each row, the second read from L2 while
    the rows in flight fit in f of it."""
    sms, l2, threads, blocks = GPU[device]
    in_flight = sms * min(threads // LN_THREADS, blocks) * cols * elem_bytes
    misses = 1 - min(1.0, f * l2 / in_flight)
    return rows * cols * elem_bytes * (2 + misses) / rate
MIN_BYTES = 256e6
MIN_COLUMNS = 768  # rows as wide as a transformer's hidden size (LayerNorm) or a sequence (softmax)


def load():
    shapes = {}
    for r in csv.DictReader(open(DATA)):
        b = int(r["rows_B"]) * int(r["cols_H"]) * ELEMENTS[r["op"]] * 4
        shapes.setdefault((r["device"], r["op"]), []).append((b, float(r["latency_ms"]) * 1e-3, int(r["cols_H"])))
    return shapes


def line(points):
    """Least squares t = a + b / rate over (bytes, seconds): (a, rate)."""
    n = len(points)
    mx = sum(p[0] for p in points) / n
    my = sum(p[1] for p in points) / n
    sxx = sum((p[0] - mx) ** 2 for p in points)
    slope = sum((p[0] - mx) * (p[1] - my) for p in points) / sxx
    return my - slope * mx, 1 / slope


def main():
    shapes = load()
    fits = {}
    for key, pts in shapes.items():
        big = [p for p in pts if p[0] >= MIN_BYTES and p[2] >= MIN_COLUMNS]
        if len(big) >= 5:
            fits[key] = line([(b, t) for b, t, _ in big])
    share = {op: round(statistics.median(fits[(d, op)][1] / fits[(d, "add")][1] for d in FIT), 2) for op in CLASSES}
    out = []
    w = out.append
    w("## Memory-bound kernels by class: fitted on two GPUs, checked on five")
    w("")
    w("Written by `bench/kernels/memory_fit.py` (its header says how) from NeuSight's measured fp32 kernels")
    w("(bench/kernels/published/neusight_memory_kernels.csv: PyTorch 2.1, CUDA 12.1). dtsim does not use these shares yet:")
    w("its norm and softmax kernels stream at the device's `memory` figure, what `add` reaches (issue #46).")
    w("")
    w("### Streaming rate per GPU and op (shapes of at least 256 MB, rows of at least 768), as a fraction of the data sheet's bandwidth")
    w("")
    devices = sorted(BW, key=lambda d: (d not in FIT, d))
    ops = ["add", "relu", "gelu", "ln", "softmax"]
    w("| GPU | data sheet | " + " | ".join(ops) + " | dispatch (add) |")
    w("|---|---:|" + "---:|" * len(ops) + "---:|")
    for d in devices:
        cells = [f"{fits[(d, o)][1] / 1e9 / BW[d]:.2f}" if (d, o) in fits else "-" for o in ops]
        w(f"| {d}{' (fit)' if d in FIT else ''} | {BW[d]} GB/s | " + " | ".join(cells) +
          f" | {fits[(d, 'add')][0] * 1e6:.1f} us |")
    w("")
    w("### The classes' shares of the streaming rate (the median over the fit's GPUs of class rate / add rate)")
    w("")
    w("| class | op | share |")
    w("|---|---|---:|")
    for op, name in CLASSES.items():
        w(f"| {name} | {op} | {share[op]:.2f} |")
    w("")
    w("### Check: each shape of at least 256 MB and 768 columns, its kernel time against bytes / (its GPU's add rate x the share)")
    w("")
    w("| class | GPU | shapes | with the share: median error | 90th percentile | dtsim now (add's rate): median | 90th |")
    w("|---|---|---:|---:|---:|---:|---:|")
    for op, name in CLASSES.items():
        for d in devices:
            if (d, op) not in fits or (d, "add") not in fits:
                continue
            a, rate = fits[(d, "add")]  # the dispatch and the streaming rate, from add
            errs, flat = [], []
            for b, t, cols in shapes[(d, op)]:
                if b < MIN_BYTES or cols < MIN_COLUMNS:
                    continue
                kernel = t - a
                errs.append(abs(b / (rate * share[op]) / kernel - 1))
                flat.append(abs(b / rate / kernel - 1))
            errs.sort()
            flat.sort()
            p90 = lambda e: e[min(len(e) - 1, int(0.9 * len(e)))]  # noqa: E731
            w(f"| {op} | {d}{' (fit)' if d in FIT else ''} | {len(errs)} | {100 * statistics.median(errs):.1f} % |"
              f" {100 * p90(errs):.1f} % | {100 * statistics.median(flat):.1f} % | {100 * p90(flat):.1f} % |")
    w("")
    w("The LayerNorm's share moves with the row's length: on the A100s it streams faster at 1,024 and 2,048 columns")
    w("than from 4,096 up; softmax slows past 8,192 columns on V100 and A100.")
    w("")
    # The passes model: f fitted on the fit GPUs, checked on the others.
    def ln_errors(d, f):
        a, rate = fits[(d, "add")]
        return sorted(abs(ln_time(d, b // (cols * 8), cols, 4, rate, f) / (t - a) - 1)
                      for b, t, cols in shapes[(d, "ln")] if b >= MIN_BYTES and cols >= MIN_COLUMNS)
    grid = [round(0.05 * i, 2) for i in range(1, 21)]
    f = min(grid, key=lambda g: statistics.mean(statistics.median(ln_errors(d, g)) for d in FIT))
    w("### LayerNorm as two reads and a write, the second read from L2 while the rows in flight fit")
    w("")
    w("The model of this file's header: each row read twice and written once, the second read missing L2 when the rows")
    w(f"in flight (SMs x blocks resident per SM x row bytes) exceed f of it; f = {f:.2f} fitted on V100 and A100 40GB.")
    w("Its error beside the rule dtsim has now (one read and one write at the add's rate), per GPU on the shapes above:")
    w("")
    w("| GPU | SMs | L2 | rows in flight per SM | shapes | passes: median error | 90th percentile | dtsim now: median | 90th |")
    w("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    p90 = lambda e: e[min(len(e) - 1, int(0.9 * len(e)))]  # noqa: E731
    for d in devices:
        e = ln_errors(d, f)
        a, rate = fits[(d, "add")]
        now = sorted(abs(b / rate / (t - a) - 1) for b, t, cols in shapes[(d, "ln")]
                     if b >= MIN_BYTES and cols >= MIN_COLUMNS)
        sms, l2, threads, blocks = GPU[d]
        w(f"| {d}{' (fit)' if d in FIT else ''} | {sms} | {l2 >> 20} MB | {min(threads // LN_THREADS, blocks)} | {len(e)} |"
          f" {100 * statistics.median(e):.1f} % | {100 * p90(e):.1f} % | {100 * statistics.median(now):.1f} % |"
          f" {100 * p90(now):.1f} % |")
    w("")
    h = json.load(open(H200))
    # Its streaming rate per dtype: the largest add's (3 tensors of the dtype).
    adds = [r for r in h["rows"] if r["kernel"] == "add"]
    rate_of = {}
    for r in sorted(adds, key=lambda r: r["bytes"]):
        rate_of[r["dtype"]] = r["bytes"] / r["seconds"]
    w(f"On the {h['device']} (PyTorch {h['torch']}; bench/published/h200_memory_kernels.json, each kernel's own time), not")
    w("fitted, its LayerNorms of at least 64 MB: the largest add of the dtype gives the streaming rate (" +
      ", ".join(f"{d} {v / 1e9:,.0f} GB/s" for d, v in sorted(rate_of.items())) + ").")
    w("")
    w("| dtype | rows x columns | measured (us) | passes model (us) | error | one read and one write (us) | error |")
    w("|---|---|---:|---:|---:|---:|---:|")
    for r in h["rows"]:
        if r["kernel"] != "layer_norm_fwd" or r["bytes"] < 64e6:
            continue
        rows, cols = r["shape"]
        eb = 4 if r["dtype"] == "fp32" else 2
        rate = rate_of[r["dtype"]]
        model = ln_time(h["device"], rows, cols, eb, rate, f)
        flat = 2 * rows * cols * eb / rate
        t = r["seconds"]
        w(f"| {r['dtype']} | {rows} x {cols} | {t * 1e6:.1f} | {model * 1e6:.1f} | {100 * (model / t - 1):+.1f} % |"
          f" {flat * 1e6:.1f} | {100 * (flat / t - 1):+.1f} % |")
    w("")
    w("On the seven fp32 GPUs the second read is the missing term. On the H200 it halves the fp32 error, but the bf16")
    w("rows stay slower than three passes: at half the bytes an element the kernel does the same fp32 work (Welford's")
    w("running mean and variance, a division an element, and the conversions), which probably bounds it there; no")
    w("measurement here separates the two. dtsim prices two-pass norms so (`framework.norm_kernel: two_pass`,")
    w("models/zoo/reread.hpp, with this f).")
    text = "\n".join(out) + "\n"
    return write_or_check(OUT, text, "memory_fit")


if __name__ == "__main__":
    sys.exit(main())
