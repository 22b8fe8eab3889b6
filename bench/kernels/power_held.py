#!/usr/bin/env python3
# GEMMs at the board's power limit (issue #46): how much slower a GEMM runs when products follow each other for
# seconds, as a training step's do, than when each runs between short elementwise kernels with the clock at its boost.
# Writes bench/kernels/power_held.md (or, with --check, says whether that file is what this script writes).
# Standard library only.
#
# Data: scripts/torch_gemm_clock_probe.py on an H200 lent to this project (bench/validation/
# h200_gemm_clock_2026-11-28b.json: PyTorch 2.11, CUDA 13.0; the SM clock and board power sampled every 250 ms): three
# shapes (8192^3, and a transformer's fc1 and fc2 at hidden 4096 over 8,192 tokens) in bf16 and fp8, each timed in
# one call "interleaved" (each product between element-wise adds: 1,875 to 1,935 MHz, 176 to 220 W) and
# "back_to_back" (products only, for seconds: 1,440 to 1,725 MHz, 668 to 686 W of the 700 W limit). The held factor of
# a dtype is the mean over the shapes of back_to_back / interleaved throughput. The zoo's `gemm` figures are
# interleaved rates (the best matmul a GPU reaches: devices.yaml); `gemm_held` is this factor
# (models/zoo/kernel.hpp, Power); tests/models/zoo/kernel_test.cpp holds the zoo to the factors below. The earlier
# call of that day (h200_gemm_clock_2026-11-28.json) is not used: its interleaved mode timed a device-to-device copy
# with each product (docs/VALIDATION.md, One H200). MPT training steps on the same GPU drew 680 to 698 W: a
# transformer's step holds the board at its limit.
import json
import os
import statistics
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(here))
from fit_output import write_or_check  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(here))
DATA = os.path.join(ROOT, "bench", "validation", "h200_gemm_clock_2026-11-28b.json")
OUT = os.path.join(here, "power_held.md")


def clocks(d, label):
    for name, value in d["clocks"]:
        if name == label:
            mhz, _, watts, _ = (x.strip() for x in value.split(","))
            return f"{mhz} MHz, {float(watts):.0f} W"
    return "-"


def main():
    d = json.load(open(DATA))
    rate = {(r["shape"], r["dtype"], r["mode"]): r for r in d["rows"]}
    shapes = []
    for r in d["rows"]:
        if r["shape"] not in shapes:
            shapes.append(r["shape"])
    w = ["## GEMMs held at the power limit: back to back against between other kernels", "",
         f"Written by `bench/kernels/power_held.py` from `bench/validation/{os.path.basename(DATA)}` "
         f"({d['device']}, PyTorch {d['torch']}, CUDA {d['cuda']}). Interleaved: each product between element-wise "
         "adds; back to back: products only, for seconds. The clock and power columns are the samples after each "
         "mode. The held factor (devices.yaml `kernels.gemm_held`) is the mean of back to back over interleaved.", "",
         "| shape (m x n x k) | dtype | interleaved TFLOP/s | its clock, power | back to back TFLOP/s | "
         "its clock, power | ratio |",
         "|---|---|---:|---|---:|---|---:|"]
    factors = {}
    for dtype in ("bf16", "fp8"):
        ratios = []
        for shape in shapes:
            a, b = rate.get((shape, dtype, "interleaved")), rate.get((shape, dtype, "back_to_back"))
            if not a or not b:
                continue
            ratio = b["tflops"] / a["tflops"]
            ratios.append(ratio)
            w.append(f"| {shape} ({a['m']} x {a['n']} x {a['k']}) | {dtype} | {a['tflops']:.0f} | "
                     f"{clocks(d, f'{shape} {dtype} interleaved after')} | {b['tflops']:.0f} | "
                     f"{clocks(d, f'{shape} {dtype} back_to_back after')} | {ratio:.3f} |")
        factors[dtype] = statistics.mean(ratios)
    w += ["", "| dtype | held factor |", "|---|---:|"]
    for dtype, f in factors.items():
        w.append(f"| {dtype} | {f:.3f} |")
    w.append("")
    return write_or_check(OUT, "\n".join(w), "power_held.py")


if __name__ == "__main__":
    sys.exit(main())
