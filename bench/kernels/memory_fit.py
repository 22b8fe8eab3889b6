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
# rate over the data sheet's bandwidth is what the op streams at. The model (core/zoo/kernel.hpp): a class's
# kernels run at the device's streaming rate (the zoo's `memory` figure, what `add` reaches) x the class's share,
# one number a class fitted on V100 and A100 40GB (the median of class rate / add rate over them), checked on the
# other five: per shape, its kernel time (time - a, add's dispatch on that GPU) against bytes / (that GPU's add rate x
# share).
import csv
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
    w("# Memory-bound kernels by class: fitted on two GPUs, checked on five")
    w("")
    w("Written by `bench/kernels/memory_fit.py` (its header says how) from NeuSight's measured fp32 kernels")
    w("(bench/kernels/published/neusight_memory_kernels.csv: PyTorch 2.1, CUDA 12.1). dtsim does not use these shares yet:")
    w("its norm and softmax kernels stream at the device's `memory` figure, what `add` reaches (issue #46).")
    w("")
    w("## Streaming rate per GPU and op (shapes of at least 256 MB, rows of at least 768), as a fraction of the data sheet's bandwidth")
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
    w("## The classes' shares of the streaming rate (the median over the fit's GPUs of class rate / add rate)")
    w("")
    w("| class | op | share |")
    w("|---|---|---:|")
    for op, name in CLASSES.items():
        w(f"| {name} | {op} | {share[op]:.2f} |")
    w("")
    w("## Check: each shape of at least 256 MB and 768 columns, its kernel time against bytes / (its GPU's add rate x the share)")
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
    w("than from 4,096 up (the kernel's rows per block); softmax slows past 8,192 columns on V100 and A100.")
    text = "\n".join(out) + "\n"
    return write_or_check(OUT, text, "memory_fit")


if __name__ == "__main__":
    sys.exit(main())
