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
#
# Against the GEMMs' share of the time (the section after): scripts/torch_gemm_duty_probe.py on another H200
# (bench/validation/h200_gemm_duty_2026-11-30.json): the three bf16 shapes, each product followed by an add lasting r
# times it (r = 0, 0.1, 0.25, 0.5, 1, 2), each pattern run 3 s to its steady power before 40 products are timed. A
# product's rate over its rate at r = 2 (the GEMMs a third of the time, the clock at its boost) against the GEMMs'
# share 1 / (1 + r), and the line that fits it past a knee: held(share) = 1 - slope x max(0, share - knee), the knee
# and slope by least squares over a grid of knees (0.05 steps), all shapes at once; the call's first pattern (fc1, r = 0)
# is shown but left out of the fit: the board was not at its limit yet (171 W sampled after it, 680 to 690 W after
# every other pattern of r <= 1).
import json
import os
import statistics
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(here))
from fit_output import write_or_check  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(here))
DATA = os.path.join(ROOT, "bench", "validation", "h200_gemm_clock_2026-11-28b.json")
DUTY = os.path.join(ROOT, "bench", "validation", "h200_gemm_duty_2026-11-30.json")
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
    w += duty_section(json.load(open(DUTY)))
    return write_or_check(OUT, "\n".join(w), "power_held.py")


def duty_fit(points):
    """The knee and slope of held = 1 - slope x max(0, share - knee) with the least squared error over the points
    (share, relative rate): for each knee of a 0.05 grid the slope by least squares, the best pair kept."""
    best = None
    for i in range(0, 20):
        knee = i * 0.05
        xs = [max(0.0, s - knee) for s, _ in points]
        den = sum(x * x for x in xs)
        if den == 0:
            continue
        slope = sum(x * (1 - y) for x, (_, y) in zip(xs, points)) / den
        err = sum((1 - slope * x - y) ** 2 for x, (_, y) in zip(xs, points))
        if best is None or err < best[2]:
            best = (knee, slope, err)
    return best


def duty_section(d):
    rows = d["rows"]
    shapes = []
    for r in rows:
        if r["shape"] not in shapes:
            shapes.append(r["shape"])
    ratios = sorted({r["ratio"] for r in rows})
    top = max(ratios)
    base = {r["shape"]: r["tflops"] for r in rows if r["ratio"] == top}
    w = ["### Against the GEMMs' share of the time", "",
         f"From `bench/validation/{os.path.basename(DUTY)}` ({d['device']}, PyTorch {d['torch']}): bf16 products each "
         "followed by an add lasting r times the product, every pattern run 3 s to its steady power first. Each cell: "
         f"TFLOP/s, and its rate over the shape's at r = {top:g} (the GEMMs a third of the time); the last row the SM "
         "clock (MHz) and board power (W) sampled after the fc2 shape's pattern.", "",
         "| shape | " + " | ".join(f"r = {r:g} (share {1 / (1 + r):.2f})" for r in ratios) + " |",
         "|---|" + "---:|" * len(ratios)]
    points = []
    for shape in shapes:
        cells = []
        for r in ratios:
            row = next(x for x in rows if x["shape"] == shape and x["ratio"] == r)
            rel = row["tflops"] / base[shape]
            first = row is rows[0]  # the call's first pattern: the board not yet at its limit
            cells.append(f"{row['tflops']:.0f} ({rel:.3f}){' *' if first else ''}")
            if not first:
                points.append((row["gemm_share"], rel))
        w.append(f"| {shape} | " + " | ".join(cells) + " |")
    smi = [next(x for x in rows if x["shape"] == "fc2_h4096" and x["ratio"] == r)["smi_after"] for r in ratios]
    w.append("| clock, power (fc2) | " + " | ".join(f"{s.split(',')[0].strip()} MHz, {float(s.split(',')[1]):.0f} W"
                                                 for s in smi) + " |")
    knee, slope, err = duty_fit(points)
    rms = (err / len(points)) ** 0.5
    back = [rel for share, rel in points if share == 1]
    w += ["", f"The board sits at its power limit from r = 1 down (the power column), yet a product keeps its boost "
          f"clock while the GEMMs hold the GPU half the time or less: the adds between them draw less, and the limit "
          f"is an average. Fitted over the {len(points)} cells without * (the call's first pattern, run before the "
          f"board reached its limit: {float(rows[0]['smi_after'].split(',')[1]):.0f} W sampled after it): held(share) = 1 - {slope:.3f} x max(0, share - "
          f"{knee:.2f}), rms {100 * rms:.1f} % (back to back: {1 - slope * (1 - knee):.3f}, the cells "
          f"{min(back):.3f} to {max(back):.3f}). The zoo's `gemm_held` above prices every step's GEMMs as back to back; "
          "a step whose GEMMs hold less of its time runs them faster (issue #46: bench/validation/gpu_h200.md). The "
          "back-to-back factor of this machine is below the other's 0.903: the two H200s differ by that much.", ""]
    return w


if __name__ == "__main__":
    sys.exit(main())
