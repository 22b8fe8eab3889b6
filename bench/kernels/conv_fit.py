#!/usr/bin/env python3
# Convolutions by kind: how fast cuDNN runs each kind of convolution against the implicit GEMM dtsim costs it as,
# fitted on one GPU and checked on four others, then at training batches on an H200 and the converse (issue #46).
# Writes bench/kernels/conv.md (or, with --check, says whether that file is what this script writes). Standard
# library only.
#
# Data: DeepBench's training convolutions and GEMMs (bench/kernels/published/deepbench_conv.csv and
# deepbench_gemm.csv, SOURCES.md there; 94 shapes per GPU and precision, forward, data gradient and weight gradient
# timed apart) on V100 (cuDNN 7.6, DGX-1), T4 (cuDNN 7.6) and the Pascal P100, GTX 1080 Ti and Titan Xp (cuDNN 6);
# and NeuSight's fp32 3 x 3 forward convolutions at batches 1 to 64 with its fp32 linear layers (neusight_conv.csv,
# neusight_linear.csv: A100 80GB, V100, T4, P100 and P4 PCIe boards, PyTorch 2.1 and cuDNN 8.9), where the same ratio
# is shown by batch.
#
# dtsim's rule (models/zoo/kernel.hpp, conv): a convolution pass is the implicit GEMM cuDNN names (forward M = N P Q,
# N = K, K = C R S; data gradient M x K over N; weight gradient K x N over M), its FLOPs (2 N K P Q C R S) at
# peak x the device's GEMM figure after tile and wave quantization (256 x 128 tiles, one per SM a wave). Here each
# GPU's GEMM figure is measured the same way on its own DeepBench GEMMs (the best whole-wave fraction of peak among
# products of at least 100 GFLOP that fill at least 95 % of their waves): the ratio of a convolution's rule time to its measured time is then how much
# faster (> 1) or slower (< 1) cuDNN runs that convolution than cuBLAS runs a GEMM of its shape.
#
# Kinds: stem (at most 4 input channels: cuDNN pads them), pointwise (1 x 1, stride 1), pointwise strided,
# spatial (a larger filter, stride 1: fp32 can run Winograd or FFT, which do fewer multiplies than the GEMM's FLOPs),
# spatial strided. Maths: fp32 on CUDA cores, and fp16 on tensor cores (DeepBench's "FP16 ip, Mixed math" sheets of
# V100 and T4; the P100's "pseudo FP16" sheet has no tensor cores and is left out). The fit: per math, kind and pass,
# the median ratio over the V100's kernels whose rule time is at least MIN_SECONDS (below it a kernel's launch and
# tail, not its rate, decide its time). The check: each kernel of the other GPUs above the same floor, its time
# against rule time / ratio, beside the rule alone (dtsim now: ratio 1).
#
# At training batches: ResNet-50's 16 convolution shapes timed on an H200 at batches 64 and 256, each pass alone
# (bench/validation/h200_kernel_conv_2026-11-30.json, scripts/torch_kernel_suite.py's conv suite), the rule at the
# zoo's H200 peak, SMs, tile and GEMM figure (models/zoo/data/devices.yaml: cited and measured, never fitted to the
# convolutions). The H200's ratios per kind, pass and batch; the V100 fit checked on them (beside the rule alone and
# the zoo's H200 `conv` figure); the ratios fitted on the H200 (both batches) checked on DeepBench's batch-16 kernels
# and NeuSight's batch 49-64 ones; and what carries across GPUs, every number computed, the comparisons the prose
# makes asserted. That section is computed in bench/kernels/conv_h200.py; conv_common.py holds what both files use
# (the GPUs, kinds, passes and maths, the floor, the tile and wave quantization).
import csv
import os
import statistics
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(here))
from fit_output import write_or_check  # noqa: E402
from conv_common import (BATCHES, FIT, GPU, KINDS, MATHS, MIN_SECONDS, PASSES, kind, p90,  # noqa: E402
                         quantization)
from conv_h200 import h200_section  # noqa: E402

CONV = os.path.join(here, "published", "deepbench_conv.csv")
GEMM = os.path.join(here, "published", "deepbench_gemm.csv")
OUT = os.path.join(here, "conv.md")
MIN_GEMM_FLOPS = 100e9
MIN_WAVE_FILL = 0.95
NEUSIGHT_CONV = os.path.join(here, "published", "neusight_conv.csv")
NEUSIGHT_LINEAR = os.path.join(here, "published", "neusight_linear.csv")
# NeuSight's GPUs (PCIe boards): SMs and fp32 peak, FLOP/s, from NVIDIA's data sheets and architecture white papers
# (A100 PCIe 108 SMs, 19.5 TFLOPS; V100 PCIe 80, 14; T4 40, 8.1; P100 PCIe 56, 9.3; P4 20, 5.5), and the GPU whose
# linear layers give each its GEMM figure: NeuSight timed no A100 80GB linear layers, so the A100 40GB PCIe's (the
# same GA100 with 108 SMs at the same clocks; 250 W to the 80GB board's 300 W).
NEUSIGHT = {"NVIDIA A100 80GB PCIe": (108, 19.5e12, "NVIDIA A100-PCIE-40GB"),
            "Tesla V100-PCIE-32GB": (80, 14e12, "Tesla V100-PCIE-32GB"), "Tesla T4": (40, 8.1e12, "Tesla T4"),
            "Tesla P100-PCIE-16GB": (56, 9.3e12, "Tesla P100-PCIE-16GB"), "Tesla P4": (20, 5.5e12, "Tesla P4")}


def peak(gpu, math):
    sms, fp32, fp16 = GPU[gpu]
    return fp32 if math == "fp32" else fp16


def gemm_figures():
    """Each GPU's GEMM figure per math: the best whole-wave fraction of peak of its DeepBench GEMMs."""
    best = {}
    for r in csv.DictReader(open(GEMM)):
        gpu, math = r["gpu"], r["precision"]
        if gpu not in GPU or peak(gpu, math) is None:
            continue
        m, n, k = int(r["M"]), int(r["N"]), int(r["K"])
        fraction = whole_wave_fraction(GPU[gpu][0], m, n, k, float(r["ms"]) * 1e-3, peak(gpu, math))
        if fraction:
            best[(gpu, math)] = max(best.get((gpu, math), 0.0), fraction)
    return best


def whole_wave_fraction(sms, m, n, k, seconds, peak_flops):
    """A product's fraction of peak per whole wave, if it is at least MIN_GEMM_FLOPS and fills at least
    MIN_WAVE_FILL of its waves (else None): the products a GPU's GEMM figure is the best of."""
    q = quantization(sms, m, n)
    if 2 * m * n * k < MIN_GEMM_FLOPS or q < MIN_WAVE_FILL:
        return None
    return 2 * m * n * k / seconds / peak_flops / q


def kernels(figures):
    """Every timed pass: (gpu, math, kind, pass, batch, rule seconds, measured seconds)."""
    out = []
    for r in csv.DictReader(open(CONV)):
        gpu, math = r["gpu"], r["precision"]
        if gpu not in GPU or peak(gpu, math) is None:
            continue
        n, c, k, r_, s, p, q = (int(r[x]) for x in ("N", "C", "K", "R", "S", "P", "Q"))
        flops = 2 * n * k * p * q * c * r_ * s
        shapes = {"fwd": (n * p * q, k), "dgrad": (n * p * q, c * r_ * s), "wgrad": (c * r_ * s, k)}
        for ps in PASSES:
            if not r[ps + "_ms"]:
                continue
            rule = flops / (peak(gpu, math) * figures[(gpu, math)] * quantization(GPU[gpu][0], *shapes[ps]))
            out.append((gpu, math, kind(c, r_, s, int(r["stride_w"])), ps, n, rule, float(r[ps + "_ms"]) * 1e-3))
    return out


def resnet50_convs():
    """torchvision ResNet-50 v1.5's convolutions at 224 x 224: (C, input side, K, filter side, stride, output side)."""
    convs = [(3, 224, 64, 7, 2, 112)]
    c, side = 64, 56
    for blocks, width, stride in [(3, 64, 1), (4, 128, 2), (6, 256, 2), (3, 512, 2)]:
        for b in range(blocks):
            s = stride if b == 0 else 1
            convs += [(c, side, width, 1, 1, side), (width, side, width, 3, s, side // s)]
            if b == 0:
                convs.append((c, side, width * 4, 1, s, side // s))
            side //= s
            convs.append((width, side, width * 4, 1, 1, side))
            c = width * 4
    return convs


def resnet50_seconds(gpu, math, figure, batch, ratio):
    """ResNet-50's convolution passes at `batch` per kind: under the rule, each divided by its kind's ratio (none:
    1)."""
    total = {}
    for c, side, k, f, s, out_side in resnet50_convs():
        flops = 2 * batch * k * out_side * out_side * c * f * f
        shapes = {"fwd": (batch * out_side ** 2, k), "dgrad": (batch * out_side ** 2, c * f * f),
                  "wgrad": (c * f * f, k)}
        for ps in PASSES:
            if c <= 4 and ps == "dgrad":
                continue
            rule = flops / (peak(gpu, math) * figure * quantization(GPU[gpu][0], *shapes[ps]))
            kd = kind(c, f, f, s)
            total[kd] = total.get(kd, 0.0) + rule / ratio.get((math, kd, ps), (1.0,))[0]
    return total


def neusight_figures():
    """Each NeuSight GPU's fp32 GEMM figure, by the same rule as gemm_figures()."""
    best = {}
    sms_of = {linear_gpu: sms for sms, _, linear_gpu in NEUSIGHT.values()}
    peak_of = {linear_gpu: peak_flops for _, peak_flops, linear_gpu in NEUSIGHT.values()}
    for r in csv.DictReader(open(NEUSIGHT_LINEAR)):
        gpu = r["device"]
        if gpu not in sms_of:
            continue
        b, m, n, k = (int(r[x]) for x in ("B", "M", "N", "K"))
        fraction = whole_wave_fraction(sms_of[gpu], b * m, k, n, float(r["latency_ms"]) * 1e-3, peak_of[gpu])
        if fraction:
            best[gpu] = max(best.get(gpu, 0.0), fraction)
    return best


def neusight_ratios(figures):
    """Per NeuSight GPU, the forward convolutions' ratios (rule time over measured time, rule time at least
    MIN_SECONDS): by batch range, and of batch 25 and up."""
    out = {gpu: {"by_batch": [[] for _ in BATCHES], "big": []} for gpu in NEUSIGHT}
    for r in csv.DictReader(open(NEUSIGHT_CONV)):
        gpu = r["device"]
        if gpu not in NEUSIGHT or r["kernel"] != "3" or r["stride"] != "1":
            continue
        sms, peak_flops, linear_gpu = NEUSIGHT[gpu]
        n, c, k, side, pad = (int(r[x]) for x in ("batch", "in_channels", "out_channels", "input_side", "padding"))
        o = side + 2 * pad - 3 + 1
        if o <= 0:
            continue
        rule = 2 * n * k * o * o * c * 9 / (peak_flops * figures[linear_gpu] * quantization(sms, n * o * o, k))
        if rule < MIN_SECONDS:
            continue
        ratio = rule / (float(r["latency_ms"]) * 1e-3)
        for i, (a, b) in enumerate(BATCHES):
            if a <= n <= b:
                out[gpu]["by_batch"][i].append(ratio)
        if n >= 25:
            out[gpu]["big"].append(ratio)
    return out


def main():
    figures = gemm_figures()
    every = kernels(figures)
    rows = [x[:4] + x[5:] for x in every if x[5] >= MIN_SECONDS]
    ratio = {}
    for math in MATHS:
        for kd in KINDS:
            for ps in PASSES:
                fit = [rule / t for g, m, k, p, rule, t in rows if g == FIT and m == math and k == kd and p == ps]
                if fit:
                    ratio[(math, kd, ps)] = (round(statistics.median(fit), 2), len(fit))
    out = []
    w = out.append
    w("## Convolutions by kind: fitted on V100, checked on four other GPUs; an H200 at training batches")
    w("")
    w("Written by `bench/kernels/conv_fit.py` (its header says how) from DeepBench's training convolutions and GEMMs")
    w("(bench/kernels/published/deepbench_conv.csv and deepbench_gemm.csv: V100 and T4 with cuDNN 7.6, P100, GTX 1080")
    w("Ti and Titan Xp with cuDNN 6). The ratio is a convolution pass's time under dtsim's rule (its implicit GEMM at the")
    w("GPU's GEMM figure) over its measured time: above 1, cuDNN beats the GEMM (Winograd and FFT do fewer multiplies);")
    w(f"below, it trails it. Only kernels whose rule time is at least {MIN_SECONDS * 1e6:.0f} us. dtsim does not use")
    w("these ratios: its convolutions run at the GEMM's rule (the zoo's `conv` figure where a device has one), and")
    w("the sections after the tables say why.")
    w("")
    w("### Each GPU's GEMM figure (the best whole-wave fraction of peak of its DeepBench GEMMs of at least 100 GFLOP")
    w("that fill at least 95 % of their waves)")
    w("")
    w("| GPU | fp32 | fp16 (tensor cores) |")
    w("|---|---:|---:|")
    for gpu in GPU:
        cells = [f"{figures[(gpu, m)]:.3f}" if (gpu, m) in figures else "-" for m in MATHS]
        w(f"| {gpu}{' (fit)' if gpu == FIT else ''} | " + " | ".join(cells) + " |")
    w("")
    w("### The ratios fitted on V100 (median over its kernels; count in brackets)")
    w("")
    w("| math | kind | forward | data gradient | weight gradient |")
    w("|---|---|---:|---:|---:|")
    for math, name in MATHS.items():
        for kd in KINDS:
            cells = [f"{ratio[(math, kd, ps)][0]:.2f} ({ratio[(math, kd, ps)][1]})" if (math, kd, ps) in ratio else "-"
                     for ps in PASSES]
            if any(cell != "-" for cell in cells):
                w(f"| {name} | {kd} | " + " | ".join(cells) + " |")
    w("")
    w("### Check: the other GPUs' kernels, time against rule time / V100's ratio, beside the rule alone")
    w("")
    w("| math | GPU | kernels | by kind: median error | 90th percentile | the rule alone: median error | 90th |"
      " median ratio per kind (fwd, dgrad, wgrad) |")
    w("|---|---|---:|---:|---:|---:|---:|---|")
    for math, name in MATHS.items():
        for gpu in GPU:
            mine = [x for x in rows if x[0] == gpu and x[1] == math and (math, x[2], x[3]) in ratio]
            if not mine:
                continue
            kinded = [abs(rule / ratio[(math, kd, ps)][0] / t - 1) for g, m, kd, ps, rule, t in mine]
            alone = [abs(rule / t - 1) for g, m, kd, ps, rule, t in mine]
            per = []
            for kd in KINDS:
                cells = []
                for ps in PASSES:
                    v = [rule / t for g, m, k, p, rule, t in mine if k == kd and p == ps]
                    cells.append(f"{statistics.median(v):.2f}" if v else "-")
                if any(cell != "-" for cell in cells):
                    per.append(f"{kd} {'/'.join(cells)}")
            w(f"| {name} | {gpu}{' (fit)' if gpu == FIT else ''} | {len(mine)} |"
              f" {100 * statistics.median(kinded):.1f} % | {100 * p90(kinded):.1f} % |"
              f" {100 * statistics.median(alone):.1f} % | {100 * p90(alone):.1f} % | {'; '.join(per)} |")
    w("")
    w("### The same ratio on NeuSight's fp32 3 x 3 convolutions, by batch, on five GPUs")
    w("")
    w("NeuSight's forward fp32 convolutions (bench/kernels/published/neusight_conv.csv: 3 x 3, stride 1, random")
    w("channels and sizes, batches 1 to 64; PyTorch 2.1, cuDNN 8.9, TF32 off), each GPU's GEMM figure from its own fp32")
    w("linear layers by the rule above (neusight_linear.csv). The median ratio per batch range, over kernels whose rule")
    w("time is at least the floor (each time holds the call's dispatch, a few microseconds), and the V100 DeepBench fit")
    w("for this kind and pass against the rows of batch 25 and up:")
    w("")
    fit = ratio.get(("fp32", "spatial", "fwd"), (1.0, 0))[0]
    w("| GPU | GEMM figure | " + " | ".join(f"batch {a}-{b}" for a, b in BATCHES) +
      f" | batch 25-64: median error with {fit:.2f} | with the rule alone |")
    w("|---|---:|" + "---:|" * len(BATCHES) + "---:|---:|")
    ns_figures = neusight_figures()
    for gpu, ratios in neusight_ratios(ns_figures).items():
        cells = [f"{statistics.median(v):.2f} ({len(v)})" if v else "-" for v in ratios["by_batch"]]
        big = ratios["big"]
        kinded = statistics.median(abs(r / fit - 1) for r in big) if big else float("nan")
        alone = statistics.median(abs(r - 1) for r in big) if big else float("nan")
        w(f"| {gpu} | {ns_figures[NEUSIGHT[gpu][2]]:.3f} | " + " | ".join(cells) +
          f" | {100 * kinded:.1f} % | {100 * alone:.1f} % |")
    w("")
    w("### Why dtsim does not take these ratios: they rise with the batch, and DeepBench's is small")
    w("")
    w("DeepBench times its vision convolutions at batches of 8 and 16 (its speech ones at 4 to 32); training runs them at")
    w("64 to 256. Over the V100's and T4's pointwise and spatial kernels of every size (no floor), the median ratio at")
    w("batch 8 and at batch 16:")
    w("")
    w("| GPU | math | kind | forward 8 / 16 | data gradient 8 / 16 | weight gradient 8 / 16 |")
    w("|---|---|---|---:|---:|---:|")
    for gpu in (FIT, "NVIDIA T4"):
        for math, name in MATHS.items():
            for kd in ("pointwise", "spatial"):
                cells = []
                for ps in PASSES:
                    pair = []
                    for batch in (8, 16):
                        v = [rule / t for g, m, k, p, n, rule, t in every if g == gpu and m == math and k == kd and
                             p == ps and n == batch]
                        pair.append(f"{statistics.median(v):.2f}" if v else "-")
                    cells.append(" / ".join(pair))
                w(f"| {gpu} | {name} | {kd} | " + " | ".join(cells) + " |")
    w("")
    w("Every ratio grows from batch 8 to 16, on both GPUs: the longer reductions and the more tiles per SM of a larger")
    w("batch run closer to the GEMM's rate, and NeuSight's 3 x 3 convolutions (the table above) keep rising to batch 64")
    w("on all five of its GPUs, the A100 among them. So the ratios above, fitted at DeepBench's batches, are lower")
    w("bounds for a training batch, and by how much is not in the data. Taken as they are, on the V100's GEMM figure, ResNet-50's")
    w("convolution passes (fwd, dgrad and wgrad, bench/published's batches) would change so:")
    w("")
    w("| math | batch | kind | under the rule | by kind | change |")
    w("|---|---:|---|---:|---:|---:|")
    for math, batch in (("fp32", 112), ("fp16", 256)):
        rule = resnet50_seconds(FIT, math, figures[(FIT, math)], batch, {})
        kinded = resnet50_seconds(FIT, math, figures[(FIT, math)], batch, ratio)
        for kd in KINDS + ["all"]:
            a = sum(rule.values()) if kd == "all" else rule.get(kd, 0.0)
            b = sum(kinded.values()) if kd == "all" else kinded.get(kd, 0.0)
            if a > 0:
                w(f"| {MATHS[math]} | {batch} | {kd} | {a * 1e3:.1f} ms | {b * 1e3:.1f} ms | {100 * (b / a - 1):+.1f} % |")
    w("")
    w("bench/published's V100 fp32 rows are already too slow (docs/VALIDATION.md), and the fp16 stem's ratio is that of")
    w("a 3-channel layer padded to the tensor cores' width at batch 8 and 16; of the fp16 pointwise kinds only two V100")
    w("weight gradients pass the floor (the rest keep the rule). What the ratios do show carries across GPUs, two cuDNN")
    w("generations apart: fp32 spatial convolutions beat their GEMM in every pass on all five (Winograd), pointwise weight")
    w("gradients run near half of it on all five, and by kind the median error on the GPUs left out is about half the")
    w("rule's (the check table). Taking them needed the same kinds timed at a training batch: the next section has")
    w("them from an H200 (scripts/torch_kernel_suite.py, conv_suite).")
    h200_section(w, every, ratio, neusight_ratios(ns_figures))
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(write_or_check(OUT, main(), "conv_fit.py"))
