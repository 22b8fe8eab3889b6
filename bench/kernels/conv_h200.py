# Convolutions at training batches on an H200, and the converse (issue #46): the section of bench/kernels/conv.md
# that conv_fit.py writes after its DeepBench and NeuSight tables, computed here (h200_section, which conv_fit.py
# calls with every DeepBench kernel and its rule time, the V100 fit and NeuSight's ratios by batch; not run on its
# own). Standard library only.
#
# Data: ResNet-50's 16 convolution shapes timed on an H200 at batches 64 and 256, each pass alone, fp16 channels-last
# and fp32 with TF32 off (bench/validation/h200_kernel_conv_2026-11-30.json, scripts/torch_kernel_suite.py's conv
# suite), and the zoo's H200 entry (models/zoo/data/devices.yaml): its peaks, SMs, tile and GEMM figures (cited and
# measured there, never fitted to the convolutions) and its `conv` figures.
#
# Computed: each pass's rule time at the zoo's H200 peak, SMs, tile and GEMM figure (conv_common.py's quantization,
# as for the DeepBench GPUs); the H200's ratios per kind, pass and batch; the V100 fit checked on them (beside the
# rule alone, the zoo's H200 `conv` figure and the H200's own fit); the ratios fitted on the H200 (both batches)
# checked on DeepBench's batch-16 kernels and NeuSight's batch 49-64 ones; ResNet-50's 16 shapes in total under each
# rule; and what carries across GPUs, every number computed, the comparisons the prose makes asserted.
import json
import os
import re
import statistics
import sys
import textwrap

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(here))
from fit_output import ROOT  # noqa: E402
from conv_common import (BATCHES, FIT, GPU, KINDS, MATHS, MIN_SECONDS, PASSES, TILE, kind, p90,  # noqa: E402
                         quantization)

# ResNet-50's convolutions at training batches on an H200 (scripts/torch_kernel_suite.py's conv suite: 16 shapes of
# every kind, each pass alone, batches 64 and 256, fp16 channels-last and fp32 with TF32 off), and the zoo's entry for
# it: its peaks, SMs, tile and GEMM figures (measured or cited there, not fitted here) and its `conv` figures.
H200_CONV = os.path.join(ROOT, "bench", "validation", "h200_kernel_conv_2026-11-30.json")
DEVICES = os.path.join(ROOT, "models", "zoo", "data", "devices.yaml")
H200 = "h200"
TRAINING_BATCHES = (64, 256)
WITHIN = 0.10
WIDTH = 115


def zoo_device(key):
    """The zoo's entry `key` (models/zoo/data/devices.yaml), the fields used here: the peak FLOP/s per dtype and, of
    its kernels section, sms, tile and the gemm and conv figures per dtype (read line by line: standard library)."""
    lines = open(DEVICES).read().split("\n")
    out = {"peak": {}, "gemm": {}, "conv": {}}
    for line in lines[lines.index(f"  {key}:") + 1:]:
        if re.match(r"  \S", line):
            break
        m = re.match(r"    (\w+): ([\d.]+)TFLOPS$", line)
        if m:
            out["peak"][m[1]] = float(m[2]) * 1e12
        m = re.match(r"      (gemm|conv): \{(.*)\}$", line)
        if m:
            out[m[1]] = {k.strip(): float(v) for k, v in (pair.split(":") for pair in m[2].split(","))}
        m = re.match(r"      sms: (\d+)$", line)
        if m:
            out["sms"] = int(m[1])
        m = re.match(r"      tile: \[(\d+), (\d+)\]$", line)
        if m:
            out["tile"] = (int(m[1]), int(m[2]))
    return out


def training_pass(kd, ps):
    """Whether a training step runs the pass: all but the stem's data gradient (the images need none)."""
    return not (kd == "stem" and ps == "dgrad")


def h200_kernels(zoo):
    """The H200's timed passes: (math, kind, pass, batch, rule seconds, measured seconds, shape), the rule at the
    zoo's peak, GEMM figure and SMs for the math (the fp32 rows ran without TF32: the fp32 peak and figure)."""
    data = json.load(open(H200_CONV))
    assert data["sm_count"] == zoo["sms"] and zoo["tile"] == TILE and not data["errors"]
    out = []
    for r in data["conv"]:
        n, c, k, f, st, o = (r[x] for x in ("batch", "c", "k", "filter", "stride", "out_side"))
        flops = 2 * n * k * o * o * c * f * f
        assert flops == r["flops"] and kind(c, f, f, st) == r["kind"]
        shapes = {"fwd": (n * o * o, k), "dgrad": (n * o * o, c * f * f), "wgrad": (c * f * f, k)}
        rate = zoo["peak"][r["math"]] * zoo["gemm"][r["math"]]
        rule = flops / (rate * quantization(zoo["sms"], *shapes[r["pass"]]))
        out.append((r["math"], r["kind"], r["pass"], n, rule, r["seconds"], (c, k, f, st, r["side"])))
    return data, zoo, out


def spread(errors):
    """Median and 90th percentile of relative errors, as two table cells."""
    return f"{100 * statistics.median(errors):.1f} % | {100 * p90(errors):.1f} %" if errors else "- | -"


def para(w, text, bullet=False):
    """A paragraph of prose, or a list item, wrapped to conv.md's width."""
    keep = text.replace(" %", "\xa0%").replace(" x ", "\xa0x\xa0")  # no line break inside "10 %" or "3 x 3"
    w(textwrap.fill(keep, WIDTH, initial_indent="- " if bullet else "", subsequent_indent="  " if bullet else "",
                    break_on_hyphens=False).replace("\xa0", " "))


def h200_section(w, every, ratio, neusight):
    """conv.md's section on the H200's training-batch rows: its ratios, the V100 fit against them, and the H200's
    ratios against NeuSight's batch 49-64 and DeepBench's batch-16 kernels; then what carries across GPUs."""
    data, zoo, h = h200_kernels(zoo_device(H200))
    above = [x for x in h if x[4] >= MIN_SECONDS and training_pass(x[1], x[2])]
    zoo_ratio = {m: zoo["conv"][m] / zoo["gemm"][m] for m in MATHS}
    small, large = TRAINING_BATCHES
    within = f"{100 * WITHIN:.0f} %"

    def v100(m, kd, ps):
        return ratio.get((m, kd, ps), (1.0,))[0]

    def ratios(rows, m, kd, ps, batch=None):
        return [rule / t for mm, k, p, n, rule, t, _ in rows if mm == m and k == kd and p == ps and
                (batch is None or n == batch)]

    def median_cell(v, count=True):
        return (f"{statistics.median(v):.2f}" + (f" ({len(v)})" if count else "")) if v else "-"

    def pct(x):
        return f"{100 * x:.1f} %"

    def span(values):
        return f"{pct(min(values))} to {pct(max(values))}"

    fit = {}
    for m in MATHS:
        for kd in KINDS:
            for ps in PASSES:
                v = ratios(above, m, kd, ps)
                if v:
                    fit[(m, kd, ps)] = (round(statistics.median(v), 2), len(v))
    stem_dgrad = {m: [rule / t for mm, k, p, n, rule, t, _ in h if mm == m and k == "stem" and p == "dgrad"]
                  for m in MATHS}
    whole = quantization(zoo["sms"], 8192, 8192)
    w("")
    w("### At training batches: ResNet-50's convolutions on an H200")
    w("")
    para(w, f"bench/validation/h200_kernel_conv_2026-11-30.json: one {data['device']} ({data['sm_count']} SMs;"
         f" PyTorch {data['torch']}, cuDNN {data['cudnn'] // 10000}.{data['cudnn'] // 100 % 100};"
         " h200_env_2026-11-30.txt beside it has the machine's versions) timed ResNet-50's 16 convolution shapes of"
         " every kind, each pass alone, with cudnn.benchmark on (scripts/torch_kernel_suite.py, conv_suite): fp16"
         f" channels-last on the tensor cores and fp32 (NCHW) with TF32 off, at batches {small} and {large}. The rule"
         " takes peak, SMs, tile and GEMM figure from the zoo's H200 entry (models/zoo/data/devices.yaml, with their"
         f" sources): fp16 at {zoo['gemm']['fp16']:.3f} of {zoo['peak']['fp16'] / 1e12:.1f} TFLOPS (the best bf16"
         f" matmul published for H100/H200), fp32 at {zoo['gemm']['fp32']:.2f} of {zoo['peak']['fp32'] / 1e12:.0f}"
         " TFLOPS (the best square fp32 matmul measured on an H200 lent to this project): cited and measured, not"
         " fitted to these rows, and of whole products where the DeepBench GPUs' are per whole wave (were the best"
         f" the 8192-cube, which fills {whole:.2f} of its waves on {zoo['sms']} SMs, the DeepBench way would give"
         f" ratios {100 * (1 - whole):.0f} % lower). The zoo's"
         " H200 `conv` figures, at which dtsim now runs every H200 convolution (from an earlier run, channels-last),"
         f" are a ratio of {zoo_ratio['fp16']:.2f} (fp16) and {zoo_ratio['fp32']:.2f} (fp32) to those. The floor is"
         " the one above, and the stem's data gradient is left out of the fits and checks: a training step does not"
         " run it (the images need no gradient); cuDNN ran it at " +
         " and ".join(f"{'/'.join(f'{r:.2f}' for r in stem_dgrad[m])} ({m}, batch {small}/{large})" for m in MATHS) +
         " of its GEMM.")
    w("")
    para(w, f"The H200's ratio per kind and pass at batch {small} and at batch {large} (median over the kind's shapes"
         " above the floor; count in brackets; shapes: how many the kind has):")
    w("")
    w(f"| math | kind | shapes | forward {small} / {large} | data gradient {small} / {large} |"
      f" weight gradient {small} / {large} |")
    w("|---|---|---:|---:|---:|---:|")
    for m, name in MATHS.items():
        for kd in KINDS:
            shapes = len({x[6] for x in h if x[0] == m and x[1] == kd})
            cells = [" / ".join(median_cell(ratios(above, m, kd, ps, b)) for b in TRAINING_BATCHES) for ps in PASSES]
            w(f"| {name} | {kd} | {shapes} | " + " | ".join(cells) + " |")
    w("")
    w("Every shape, the floor aside (the stem's data gradient as timed):")
    w("")
    w(f"| math | kind | forward {small} / {large} | data gradient {small} / {large} |"
      f" weight gradient {small} / {large} |")
    w("|---|---|---:|---:|---:|")
    for m, name in MATHS.items():
        for kd in KINDS:
            cells = [" / ".join(median_cell(ratios(h, m, kd, ps, b), False) for b in TRAINING_BATCHES) for ps in PASSES]
            w(f"| {name} | {kd} | " + " | ".join(cells) + " |")
    w("")
    time_of = {(x[0], x[2], x[3], x[6]): x[5] for x in h}
    under = [x for x in h if x[0] == "fp16" and x[1] != "stem" and x[3] == small and x[4] < MIN_SECONDS]
    growth = [time_of[("fp16", x[2], large, x[6])] / x[5] for x in under]
    fp16_count = {b: sum(1 for x in above if x[0] == "fp16" and x[3] == b) for b in TRAINING_BATCHES}
    para(w, f"Below the floor the time is not the rate: the {len(under)} fp16 passes of batch {small} under it (the"
         f" stem aside) took {min(x[5] for x in under) * 1e6:.0f} to {max(x[5] for x in under) * 1e6:.0f} us whatever"
         f" their FLOPs, and at batch {large}, {large // small} times the FLOPs, a median"
         f" {statistics.median(growth):.2f} times as long (the call's dispatch, the kernel's launch and tail). So the"
         f" fp16 fit stands on {fp16_count[large]} passes of batch {large} and {fp16_count[small]} of batch {small};"
         f" the fp32 one on both batches ({sum(1 for x in above if x[0] == 'fp32')} passes, every one above the"
         " floor).")
    w("")
    w("#### The V100 DeepBench fit on the H200")
    w("")
    para(w, "Each H200 pass above the floor, its time against rule time / ratio: by the V100 fit (kinds and passes it"
         " has no ratio for keep the rule), by the rule alone (ratio 1), by the zoo's H200 `conv` figure (dtsim now;"
         " fitted on an earlier H200 run) and by the H200's own fit (per kind and pass over both batches; in-sample:"
         " the least one ratio per kind and pass can miss by):")
    w("")
    w("| math | batch | kind | kernels | V100 fit: median error | 90th | the rule alone: median error | 90th |"
      " the zoo's conv figure: median error | 90th | H200 fit: median error | 90th |")
    w("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    on_h200 = {}
    for m, name in MATHS.items():
        for b in TRAINING_BATCHES:
            for kd in KINDS + ["all"]:
                mine = [x for x in above if x[0] == m and x[3] == b and (kd == "all" or x[1] == kd)]
                if not mine:
                    continue
                errs = [[abs(rule / of(k, p) / t - 1) for mm, k, p, n, rule, t, _ in mine]
                        for of in (lambda k, p: v100(m, k, p), lambda k, p: 1.0, lambda k, p: zoo_ratio[m],
                                   lambda k, p: fit[(m, k, p)][0])]
                if kd == "all":
                    on_h200[(m, b)] = [(statistics.median(e), p90(e)) for e in errs]
                w(f"| {name} | {b} | {kd} | {len(mine)} | " + " | ".join(map(spread, errs)) + " |")
    w("")
    w("#### The converse: the H200's ratios on the other GPUs")
    w("")
    para(w, "The ratios fitted on the H200 (median over both batches' passes above the floor; count in brackets),"
         " beside its ratio at each batch, the V100 DeepBench fit (batches 4 to 32) and each DeepBench GPU's median"
         f" over its batch-16 kernels above the floor; the last column: how many of those GPUs are within {within} of"
         " the H200 fit:")
    w("")
    b16 = [x for x in every if x[4] == 16 and x[5] >= MIN_SECONDS]

    def b16_median(gpu, m, kd, ps):
        v = [rule / t for g, mm, k, p, n, rule, t in b16 if g == gpu and mm == m and k == kd and p == ps]
        return statistics.median(v) if v else None

    w(f"| math | kind | pass | H200 {small} | H200 {large} | H200 fit | V100 fit | DeepBench batch 16: " +
      ", ".join(g.replace("NVIDIA ", "") for g in GPU) + f" | within {within} |")
    w("|---|---|---|---:|---:|---:|---:|---|---:|")
    agree = []
    for m, name in MATHS.items():
        for kd in KINDS:
            for ps in PASSES:
                if (m, kd, ps) not in fit:
                    continue
                r = fit[(m, kd, ps)][0]
                medians = {g: b16_median(g, m, kd, ps) for g in GPU if b16_median(g, m, kd, ps) is not None}
                near = [g for g, x in medians.items() if abs(x / r - 1) <= WITHIN]
                if medians and len(near) == len(medians):
                    agree.append((m, kd, ps, len(medians)))
                w(f"| {name} | {kd} | {ps} | {median_cell(ratios(above, m, kd, ps, small), False)} |"
                  f" {median_cell(ratios(above, m, kd, ps, large), False)} | {r:.2f} ({fit[(m, kd, ps)][1]}) |"
                  f" {f'{v100(m, kd, ps):.2f}' if (m, kd, ps) in ratio else '-'} | " +
                  ", ".join(f"{medians[g]:.2f}" if g in medians else "-" for g in GPU) +
                  f" | {len(near)} of {len(medians)} |")
    w("")
    para(w, "Each DeepBench GPU's batch-16 kernels above the floor (of the kinds and passes the H200 fit has), time"
         " against rule time / ratio, by the H200 fit, the V100 fit (the V100's own kernels are in it) and the rule"
         " alone:")
    w("")
    w("| math | GPU | kernels | H200 fit: median error | 90th | V100 fit: median error | 90th |"
      " the rule alone: median error | 90th |")
    w("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    b16_errors = {}
    for m, name in MATHS.items():
        for gpu in GPU:
            mine = [x for x in b16 if x[0] == gpu and x[1] == m and (m, x[2], x[3]) in fit]
            if not mine:
                continue
            errs = [[abs(rule / of(kd, ps) / t - 1) for g, mm, kd, ps, n, rule, t in mine]
                    for of in (lambda k, p: fit[(m, k, p)][0], lambda k, p: v100(m, k, p), lambda k, p: 1.0)]
            b16_errors[(m, gpu)] = [(statistics.median(e), p90(e)) for e in errs]
            w(f"| {name} | {gpu}{' (fit)' if gpu == FIT else ''} | {len(mine)} | " + " | ".join(map(spread, errs)) +
              " |")
    w("")
    at_small = statistics.median(ratios(above, "fp32", "spatial", "fwd", small))
    r_fit = fit[("fp32", "spatial", "fwd")][0]
    para(w, f"NeuSight's fp32 3 x 3 forward convolutions of batch {BATCHES[-1][0]} to {BATCHES[-1][1]} above the floor"
         " are the one kind and pass timed at a training batch on other GPUs: each GPU's median ratio against the"
         f" H200's at batch {small} ({at_small:.2f}) and its fit ({r_fit:.2f}), and each kernel's error by the H200"
         f" fit, the V100 fit ({v100('fp32', 'spatial', 'fwd'):.2f}), the rule alone and the GPU's own median (the"
         " least one ratio can miss its kernels by: NeuSight's channels and sizes are random, and its times hold the"
         " call's dispatch):")
    w("")
    w(f"| GPU | kernels | median ratio | against {at_small:.2f} | against {r_fit:.2f} | H200 fit: median error | 90th |"
      " V100 fit: median error | 90th | the rule alone: median error | 90th | its own median: median error | 90th |")
    w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    apart, own = {}, {}
    for gpu, rs in neusight.items():
        v = rs["by_batch"][-1]
        med = statistics.median(v)
        apart[gpu] = med / at_small - 1
        errs = [[abs(x / r - 1) for x in v] for r in (r_fit, v100("fp32", "spatial", "fwd"), 1.0, med)]
        own[gpu] = (statistics.median(errs[0]), statistics.median(errs[3]))
        w(f"| {gpu} | {len(v)} | {med:.2f} | {100 * apart[gpu]:+.1f} % | {100 * (med / r_fit - 1):+.1f} % | " +
          " | ".join(map(spread, errs)) + " |")
    w("")
    w("ResNet-50's 16 shapes on the H200 (each once; every training pass, the floor aside), the measured time beside")
    w("what each rule gives (the H200 fit in-sample):")
    w("")
    w("| math | batch | measured | the rule | the zoo's conv figure | V100 fit | H200 fit |")
    w("|---|---:|---:|---:|---:|---:|---:|")
    for m, name in MATHS.items():
        for b in TRAINING_BATCHES:
            mine = [x for x in h if x[0] == m and x[3] == b and training_pass(x[1], x[2])]
            measured = sum(x[5] for x in mine)
            cells = []
            for of in (lambda k, p: 1.0, lambda k, p: zoo_ratio[m], lambda k, p: v100(m, k, p),
                       lambda k, p: fit.get((m, k, p), (1.0,))[0]):
                total = sum(rule / of(k, p) for mm, k, p, n, rule, t, _ in mine)
                cells.append(f"{total * 1e3:.2f} ms ({100 * (total / measured - 1):+.1f} %)")
            w(f"| {name} | {b} | {measured * 1e3:.2f} ms | " + " | ".join(cells) + " |")
    w("")

    # What carries: each statement below is computed from the tables above, and checked where it compares.
    fp32_b16 = [v for (m, g), v in b16_errors.items() if m == "fp32"]
    rising = [(kd, ps, statistics.median(ratios(above, "fp32", kd, ps, large)) /
               statistics.median(ratios(above, "fp32", kd, ps, small)) - 1)
              for kd in KINDS for ps in PASSES if ("fp32", kd, ps) in fit]
    near = [g for g in neusight if abs(apart[g]) <= WITHIN]
    spatial = [statistics.median(ratios(above, "fp32", "spatial", ps, b)) for ps in PASSES for b in TRAINING_BATCHES]
    spatial += [x for ps in PASSES for g in GPU for x in [b16_median(g, "fp32", "spatial", ps)] if x is not None]
    spatial += [statistics.median(rs["by_batch"][-1]) for rs in neusight.values()]
    broad = [(m, kd, ps) for m, kd, ps, n in agree if n == len(GPU)]
    thin = [(m, kd, ps, n) for m, kd, ps, n in agree if n < len(GPU)]
    dgrad_gap = [(kd, fit[("fp32", kd, "dgrad")][0], min(b16_median(g, "fp32", kd, "dgrad") for g in GPU))
                 for kd in ("pointwise", "spatial")]
    spatial_rise = dict(((kd, ps), d) for kd, ps, d in rising)[("spatial", "fwd")]
    assert all(on_h200[("fp32", b)][0][0] < on_h200[("fp32", b)][1][0] for b in TRAINING_BATCHES)
    assert all(v[0][0] < v[2][0] for v in fp32_b16) and min(spatial) > 1
    assert all(r < lo for kd, r, lo in dgrad_gap) and on_h200[("fp16", large)][0][0] >= on_h200[("fp16", large)][1][0]
    assert broad == [("fp32", "pointwise", "wgrad"), ("fp32", "pointwise_strided", "wgrad")]
    assert near == ["NVIDIA A100 80GB PCIe", "Tesla V100-PCIE-32GB"]
    w("### What carries across GPUs")
    w("")
    para(w, f"By kind beats the rule across GPUs in fp32, both ways, but not to {within}: the V100 fit (batches 4 to"
         f" 32) misses the H200's fp32 passes by a median {pct(on_h200[('fp32', small)][0][0])} at batch {small} and"
         f" {pct(on_h200[('fp32', large)][0][0])} at {large}, the rule alone by {pct(on_h200[('fp32', small)][1][0])}"
         f" and {pct(on_h200[('fp32', large)][1][0])}; the H200 fit misses the {len(fp32_b16)} DeepBench GPUs' fp32"
         f" kernels of batch 16 by {span([v[0][0] for v in fp32_b16])} (the V100 fit, its own GPU among them,"
         f" {span([v[1][0] for v in fp32_b16])}; the rule alone {span([v[2][0] for v in fp32_b16])}). The 90th"
         f" percentiles stay high: {pct(on_h200[('fp32', small)][0][1])} and {pct(on_h200[('fp32', large)][0][1])}"
         f" for the V100 fit on the H200, {span([v[0][1] for v in fp32_b16])} for the H200 fit on DeepBench.", True)
    para(w, f"Within {within} on every DeepBench GPU that has the kind and pass, at batch 16, of the H200's at"
         f" {small} and {large}: " + "; ".join(f"{m} {kd} {ps} ({fit[(m, kd, ps)][0]:.2f}; {n} of {n})"
                                                for m, kd, ps, n in agree) +
         f". Those on all {len(GPU)} (Pascal, Volta and Turing, cuDNN 6 and 7, beside Hopper and cuDNN 9) are the"
         " fp32 1 x 1 weight gradients; " +
         ("; ".join(f"{m} {kd} {ps} stands on {fit[(m, kd, ps)][1]} H200 pass{'es' if fit[(m, kd, ps)][1] > 1 else ''}"
                    f" and {n} GPU{'s' if n > 1 else ''}" for m, kd, ps, n in thin) if thin else "no other") + ".",
         True)
    para(w, f"fp32 3 x 3 forward at a training batch: the H200's {at_small:.2f} at batch {small} is within {within} of"
         " NeuSight's " + " and ".join(f"{g} ({100 * apart[g]:+.1f} %)" for g in near) +
         f" at batch {BATCHES[-1][0]} to {BATCHES[-1][1]}, and on them the H200 fit misses each kernel by about what"
         " the GPU's own median does (" +
         ", ".join(f"{pct(own[g][0])} against {pct(own[g][1])}" for g in near) + "); not within it of " +
         ", ".join(f"{g} ({100 * apart[g]:+.1f} %)" for g in neusight if g not in near) +
         ". 3 x 3 convolutions of stride 1 beat their GEMM in fp32 on every GPU, pass and batch here (medians"
         f" {min(spatial):.2f} to {max(spatial):.2f}: Winograd), but by how much moves with all three.", True)
    para(w, f"The batch still moves some kinds between {small} and {large} on the H200: in fp32 " +
         ", ".join(f"{kd} {ps} {100 * d:+.0f} %" for kd, ps, d in rising if abs(d) > WITHIN) +
         f"; the other {sum(1 for x in rising if abs(x[2]) <= WITHIN)} fp32 kinds and passes within {within}.", True)
    para(w, "What does not carry: the stem (a 3-channel layer cuDNN pads; fp32 forward"
         f" {fit[('fp32', 'stem', 'fwd')][0]:.2f} on the H200 against {v100('fp32', 'stem', 'fwd'):.2f} by the V100"
         f" fit, fp16 {fit[('fp16', 'stem', 'fwd')][0]:.2f} against {v100('fp16', 'stem', 'fwd'):.2f}); the V100"
         f" fit's strided 3 x 3 forward and weight gradient ({v100('fp32', 'spatial_strided', 'fwd'):.2f} and"
         f" {v100('fp32', 'spatial_strided', 'wgrad'):.2f}, DeepBench's strided shapes, against the H200's"
         f" {fit[('fp32', 'spatial_strided', 'fwd')][0]:.2f} and {fit[('fp32', 'spatial_strided', 'wgrad')][0]:.2f});"
         " the fp32 data gradients, slower on the H200 than on any DeepBench GPU at batch 16 (" +
         ", ".join(f"{kd} {r:.2f} against {lo:.2f} at least" for kd, r, lo in dgrad_gap) + "); and fp16 by kind: the"
         f" V100 fit does no better than the rule on the H200 ({pct(on_h200[('fp16', large)][0][0])} against"
         f" {pct(on_h200[('fp16', large)][1][0])} at batch {large}), the zoo's one H200 figure does as well"
         f" ({pct(on_h200[('fp16', large)][2][0])}), and the H200's own fit ({pct(on_h200[('fp16', large)][3][0])},"
         " in-sample) is one GPU's: no other has fp16 kinds timed at a training batch.", True)
    w("")
    para(w, "So across GPUs at training batches the data support one per-kind ratio: fp32 1 x 1 weight gradients, near"
         " half their GEMM (" + ", ".join(f"{kd} {fit[(m, kd, ps)][0]:.2f}" for m, kd, ps in broad) + " on the"
         f" H200). The fp32 3 x 3 forward agrees at batch {small} on the A100, V100 and H200 but rises"
         f" {100 * spatial_rise:.0f} % to batch {large} on the H200 and is "
         f"{100 * min(apart[g] for g in neusight if g not in near):.0f} to"
         f" {100 * max(apart[g] for g in neusight if g not in near):.0f} % higher on the other NeuSight GPUs; the rest"
         f" are one GPU's, or move with the batch or the GPU by more than {within}. dtsim keeps its rule: the GEMM's,"
         " or a device's measured `conv` figure.")
    return fit
