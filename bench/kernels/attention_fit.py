#!/usr/bin/env python3
# The fused attention kernels' shape model (models/zoo/attention.hpp), fitted on published H100 measurements and
# shown on GPUs and software it was not fitted to. Writes bench/kernels/attention.md (or, with --check, says
# whether that file is what this script writes). Standard library only.
#
# The model: a kernel's fraction of the dtype's peak, as FlashAttention's benchmark counts FLOPs (4 B S^2 H D,
# halved when causal; backward 2.5 x forward), is
#   figure(device, backend, pass) x head(d) x sequence(n, causal),  n = S / 128 (key tiles of 128)
#   head(d)  = [d' / (d' + d0)] / [128 / (128 + d0)],  d' = min(d, 128)
#   sequence = n / (n + c) without a mask, causal x n / (n + k) with the causal mask
# per backend and pass. Fitted (least squares on log TFLOP/s, a grid over d0, c and k; figure and causal in
# closed form):
#   - FlashAttention-2's forward and cuDNN's forward on the FA3 paper's Figure 5 (H100, head dims 64 and 128,
#     both masks: bench/llm/sources/flash_attention.md section 4);
#   - their backward without a mask on its Figure 6 (section 5);
#   - FlashAttention-2's causal backward (which no figure gives alone) on FlashAttention-2's own H100 forward +
#     backward figure (section 3), the forward and the unmasked backward held as fitted; cuDNN's causal backward
#     takes FlashAttention-2's (no published figure).
#   - FlashAttention in Triton (flash_triton: Dao's flash_attn_triton.py, the kernel llm-foundry's attn_impl: triton
#     ran), which no figure gives per pass: its forward is FlashAttention-2's at 1 / 1.4 of its speed (the FA2
#     paper, section 4.1: FA2 is "around 1.3-1.5x faster than FlashAttention in Triton in the forward pass and
#     around 2x faster in the backward pass"; 1.4, the middle), its backward fitted (a grid over d0, c and k; figure
#     and causal in closed form) on the 24 "FlashAttention Triton" cells of the FA2 paper's A100 forward + backward
#     figure (section 2), the forward held. Its H100 figures keep the A100's ratio to FlashAttention-2 (no published
#     measurement of this kernel on H100).
# Shown, not fitted: FlashAttention-2 on A100 (section 2, forward + backward, 24 cells; the A100's figures are
# the H100's scaled to its hd128 16k unmasked cell, one cell), and one H200 with PyTorch 2.11's FlashAttention-2
# and cuDNN 9.19 (bench/validation/h200_kernel_suite_2026-11-28.json, 112 cells), against the flat figure each
# device had before (0.62 of peak on A100, 0.35 on H100 and H200, both passes).
import json
import math
import os
import re
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(here))
from fit_output import write_or_check  # noqa: E402

root = os.path.dirname(os.path.dirname(here))
SOURCE = os.path.join(root, "bench", "llm", "sources", "flash_attention.md")
H200 = os.path.join(root, "bench", "validation", "h200_kernel_suite_2026-11-28.json")
OUT = os.path.join(here, "attention.md")
PEAK = {"h100": 989.4, "a100": 312.0, "h200": 989.4}  # dense fp16/bf16 TFLOP/s (models/zoo/data/devices.yaml)
FLAT = {"a100": 0.62, "h100": 0.35, "h200": 0.35}


def section(text, n):
    return re.search(r"^## %d\..*?(?=^## )" % n, text, re.S | re.M).group(0)


def rows(sec):
    return [[x.strip() for x in line.strip("|").split("|")] for line in sec.splitlines()
            if line.startswith("| H100") or line.startswith("| A100")]


def seqlen(x):
    return int(x[:-1]) * 1024 if x.endswith("k") else int(x)


def num(x):
    return float(x.replace("~", ""))


def head(d, d0):
    d = min(d, 128)
    return (d / (d + d0)) / (128 / (128 + d0))


def sequence(S, causal, p):
    n = S / 128
    return p["causal"] * n / (n + p["k"]) if causal else n / (n + p["c"])


def fraction(p, d, causal, S):
    return p["figure"] * head(d, p["d0"]) * sequence(S, causal, p)


def fit(points):
    """points: (head dim, causal, seq, TFLOP/s) on H100. Returns figure, causal, d0, c, k."""
    best = None
    for d0 in range(0, 202, 2):
        for ci in range(0, 41):
            c = ci / 10
            for ki in range(0, 41):
                k = ki / 5
                p = {"figure": 1.0, "causal": 1.0, "d0": d0, "c": c, "k": k}
                a = [math.log(y / PEAK["h100"] / fraction(p, d, ca, S)) for d, ca, S, y in points if not ca]
                b = [math.log(y / PEAK["h100"] / fraction(p, d, ca, S)) for d, ca, S, y in points if ca]
                la = sum(a) / len(a)
                lb = sum(b) / len(b) if b else la
                err = sum((x - la) ** 2 for x in a) + sum((x - lb) ** 2 for x in b)
                if best is None or err < best[0] - 1e-12:
                    best = (err, {"figure": math.exp(la), "causal": math.exp(lb - la), "d0": d0, "c": c, "k": k})
    return best[1]


def both(fwd, bwd, d, causal, S, scale=1.0):
    """Forward + backward TFLOP/s as a fraction of peak: 3.5 F over the two passes' times."""
    return 3.5 / (1 / (scale * fraction(fwd, d, causal, S)) + 2.5 / (scale * fraction(bwd, d, causal, S)))


TRITON_FORWARD = 1.4  # FlashAttention-2 over FlashAttention in Triton, forward (the FA2 paper: 1.3 to 1.5)


def fit_triton(fwd2, scale, cells):
    """FlashAttention in Triton on the A100 forward + backward cells (head dim, causal, seq, TFLOP/s): its forward
    FlashAttention-2's (H100 units) over TRITON_FORWARD, its backward fitted with the forward held. Figures in H100
    units (the A100's over `scale`), as FlashAttention-2's are."""
    fwd = dict(fwd2, figure=round(fwd2["figure"] / TRITON_FORWARD, 3))
    best = None
    for d0 in range(0, 202, 2):
        for ci in range(0, 41):
            for ki in range(0, 41):
                p = {"figure": 1.0, "causal": 1.0, "d0": d0, "c": ci / 10, "k": ki / 5}
                logs = {False: [], True: []}
                for d, ca, S, y in cells:
                    # the backward's time: the cell's less the forward's; its figure at this shape
                    t = 3.5 / (y / PEAK["a100"]) - 1 / (scale * fraction(fwd, d, ca, S))
                    if t <= 0:
                        break
                    logs[ca].append(math.log(2.5 / (t * scale * fraction(p, d, ca, S))))
                else:
                    la = sum(logs[False]) / len(logs[False])
                    lb = sum(logs[True]) / len(logs[True])
                    err = sum((x - la) ** 2 for x in logs[False]) + sum((x - lb) ** 2 for x in logs[True])
                    if best is None or err < best[0] - 1e-12:
                        best = (err, dict(p, figure=math.exp(la), causal=math.exp(lb - la)))
    return fwd, rounded(best[1])


def rounded(p):
    return {"figure": round(p["figure"], 3), "causal": round(p["causal"], 3), "d0": p["d0"], "c": round(p["c"], 1),
            "k": round(p["k"], 1)}


def main():
    text = open(SOURCE).read()
    s2, s3, s4, s5 = (rows(section(text, n)) for n in (2, 3, 4, 5))
    pts = {("flash2", "forward"): [(int(c[3]), c[4] == "True", seqlen(c[5]), num(c[8])) for c in s4 if int(c[3]) <= 128],
           ("cudnn", "forward"): [(int(c[3]), c[4] == "True", seqlen(c[5]), num(c[10])) for c in s4 if int(c[3]) <= 128],
           ("flash2", "backward"): [(int(c[3]), c[4] == "True", seqlen(c[5]), num(c[8])) for c in s5],
           ("cudnn", "backward"): [(int(c[3]), c[4] == "True", seqlen(c[5]), num(c[9])) for c in s5]}
    P = {key: rounded(fit(v)) for key, v in pts.items()}
    # FlashAttention-2's causal backward from its forward + backward figure (section 3), the rest held.
    fb = [(int(c[3]), c[4] == "True", seqlen(c[5]), num(c[9])) for c in s3]
    best = None
    for ki in range(0, 61):
        for mi in range(70, 111):
            bwd = dict(P[("flash2", "backward")], causal=mi / 100, k=ki / 5)
            err = sum(math.log(PEAK["h100"] * both(P[("flash2", "forward")], bwd, d, ca, S) / y) ** 2
                      for d, ca, S, y in fb if ca)
            if best is None or err < best[0] - 1e-12:
                best = (err, mi / 100, ki / 5)
    for b in ("flash2", "cudnn"):
        P[(b, "backward")]["causal"], P[(b, "backward")]["k"] = best[1], round(best[2], 1)
    a100 = [(int(c[3]), c[4] == "True", seqlen(c[5]), num(c[11])) for c in s2]
    ref = next(y for d, ca, S, y in a100 if d == 128 and not ca and S == 16384)
    scale = ref / (PEAK["a100"] * both(P[("flash2", "forward")], P[("flash2", "backward")], 128, False, 16384))
    triton = [(int(c[3]), c[4] == "True", seqlen(c[5]), num(c[10])) for c in s2]
    t_fwd, t_bwd = fit_triton(P[("flash2", "forward")], scale, triton)
    P[("flash_triton", "forward")], P[("flash_triton", "backward")] = t_fwd, t_bwd

    out = []
    w = out.append
    w("## Fused attention kernels: the shape model and its checks")
    w("")
    w("Written by `bench/kernels/attention_fit.py` (its header says how); the constants below are models/zoo/attention.cpp's")
    w("and models/zoo/data/devices.yaml's, held to this file by tests/models/zoo/attention_test.cpp. TFLOP/s count FLOPs as")
    w("FlashAttention's benchmark does (4 B S^2 H D, halved when causal; backward 2.5 x forward).")
    w("")
    w("### Fitted on H100 (the FA3 paper's Figures 5 and 6, FlashAttention-2's own H100 figure for the causal backward),")
    w("### flash_triton on A100 (the FA2 paper's forward + backward figure)")
    w("")
    w("| backend | pass | figure (H100) | causal | d0 | c | k |")
    w("|---|---|---:|---:|---:|---:|---:|")
    for (b, p), v in P.items():
        w(f"| {b} | {p} | {v['figure']:.3f} | {v['causal']:.3f} | {v['d0']} | {v['c']:.1f} | {v['k']:.1f} |")
    a_fwd = round(P[("flash2", "forward")]["figure"] * scale, 3)
    a_bwd = round(P[("flash2", "backward")]["figure"] * scale, 3)
    w("")
    w(f"A100's FlashAttention-2 figures: the H100's times {scale:.3f}, from section 2's hd128 16k unmasked cell"
      f" ({ref:.0f} TFLOP/s): forward {a_fwd:.3f}, backward {a_bwd:.3f}.")
    w("")
    t_fwd = round(P[("flash_triton", "forward")]["figure"] * scale, 3)
    t_bwd = round(P[("flash_triton", "backward")]["figure"] * scale, 3)
    w(f"flash_triton (FlashAttention in Triton): its forward FlashAttention-2's over {TRITON_FORWARD} (the FA2 paper's"
      " section 4.1), its backward fitted on the 24 A100 cells below with the forward held; the figures above are the")
    w(f"A100's over the same {scale:.3f} (no H100 measurement of this kernel). A100's flash_triton figures: forward"
      f" {t_fwd:.3f}, backward {t_bwd:.3f}.")
    w("")

    def table(title, cells):
        w(f"### {title}")
        w("")
        w("| cell | measured | model | error | flat figure | error |")
        w("|---|---:|---:|---:|---:|---:|")
        errs, flat = [], []
        for name, y, m, f in cells:
            errs.append(m / y - 1)
            flat.append(f / y - 1)
            w(f"| {name} | {y:.0f} | {m:.0f} | {100 * (m / y - 1):+.1f} % | {f:.0f} | {100 * (f / y - 1):+.1f} % |")
        w("")
        w(f"Mean absolute error {100 * sum(map(abs, errs)) / len(errs):.1f} % (mean {100 * sum(errs) / len(errs):+.1f} %,"
          f" largest {100 * max(map(abs, errs)):.1f} %); the flat figure {100 * sum(map(abs, flat)) / len(flat):.1f} %"
          f" (largest {100 * max(map(abs, flat)):.1f} %).")
        w("")

    def fit_cells(b, p):
        for d, ca, S, y in pts[(b, p)]:
            yield (f"{b} {p} hd{d} {'causal' if ca else 'none'} {S}", y,
                   PEAK["h100"] * fraction(P[(b, p)], d, ca, S), PEAK["h100"] * FLAT["h100"])

    table("Fit: H100 (FA3 paper, FlashAttention 2.5.8 and cuDNN 9.1.1)",
          [c for key in pts for c in fit_cells(*key)])
    table("Fit: A100, FlashAttention in Triton forward + backward (the FA2 paper's figure; the forward from its text)",
          [(f"flash_triton fwd+bwd hd{d} {'causal' if ca else 'none'} {S}", y,
            PEAK["a100"] * both(P[("flash_triton", "forward")], P[("flash_triton", "backward")], d, ca, S, scale),
            PEAK["a100"] * FLAT["a100"]) for d, ca, S, y in triton])
    table("Check: A100, FlashAttention-2 forward + backward (its README figure; one cell sets the A100's figures)",
          [(f"flash2 fwd+bwd hd{d} {'causal' if ca else 'none'} {S}", y,
            PEAK["a100"] * both(P[("flash2", "forward")], P[("flash2", "backward")], d, ca, S, scale),
            PEAK["a100"] * FLAT["a100"]) for d, ca, S, y in a100])
    h200 = json.load(open(H200))
    cells = []
    for r in h200["attention"]:
        p = "forward" if r["pass"] == "fwd" else "backward"
        cells.append((f"{r['backend']} {p} hd{r['head_dim']} {'causal' if r['causal'] else 'none'} {r['seq']}",
                      r["tflops"], PEAK["h200"] * fraction(P[(r["backend"], p)], r["head_dim"], r["causal"], r["seq"]),
                      PEAK["h200"] * FLAT["h200"]))
    table("Check: one H200, PyTorch 2.11's FlashAttention-2 and cuDNN 9.19 (the H100's figures; measured 2026-11-28)",
          cells)
    text_out = "\n".join(out) + "\n"
    return write_or_check(OUT, text_out, "attention_fit")


if __name__ == "__main__":
    sys.exit(main())
