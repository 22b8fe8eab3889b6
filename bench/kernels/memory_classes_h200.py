#!/usr/bin/env python3
# The memory-bound classes of issue #46 on one H200, each against what dtsim charges for the same op. Writes
# bench/kernels/memory_classes_h200.md (or, with --check, says whether that file is what this script writes).
# Standard library only; nothing here changes dtsim.
#
# Data: bench/validation/h200_memory_probe_2026-11-30.json, scripts/torch_memory_probe.py on one NVIDIA H200
# (PyTorch 2.11.0+cu130, bench/validation/h200_env_2026-11-30.txt): each row one op (a backward: one
# torch.autograd.grad of a graph made once) called 30 times back to back between two CUDA events, so a row is the
# op's kernels plus whatever the host adds when it issues them slower than the GPU runs them. Its `bytes` are the
# probe's count (every input read once, every output written once); this script counts them again as dtsim does.
# Beside it: the same kinds a first time (bench/published/h200_memory_kernels.json, 2026-11-27: repeatability),
# NeuSight's fp32 kernels on seven GPUs (bench/kernels/published/neusight_memory_kernels.csv, through
# memory_fit.py's loader: the cross-GPU question), and one training step of a Llama-3-shaped model on the same kind
# of H200 (bench/validation/h200_llama_probe_2026-11-30.json and its Kineto trace,
# tests/calibrate/data/h200_llama_step.json.gz: every kernel with the operator that issued it, its shapes and dtypes).
#
# dtsim's rule for these classes (models/zoo/kernel.cpp, kernel_cost): softmax, elementwise, norm and embedding
# kernels move their bytes at mem_bandwidth x `memory` (the zoo's h200: 4,800 GB/s x 0.89), or their FLOPs at the
# fp32 peak if that is slower; layout_copy at mem_bandwidth x `layout_copy` (0.22); a two-pass norm adds the bytes of
# its second read that miss L2 (models/zoo/reread.cpp); the optimizer step is an elementwise op of its traffic
# (models/cost/cost_model.cpp, update_time). The bytes of each op are counted in models/parallel/transformer_ops.cpp,
# models/parallel/pointwise.cpp, core/plan/optimizer_step.cpp and the ResNet-50 layer table
# (models/zoo/data/models/resnet50.yaml through core/plan/worker.cpp, layer_op); OPS below says which for each
# kernel. The device figures are read from models/zoo/data/devices.yaml and kL2RowShare from models/zoo/reread.hpp,
# so this file follows the zoo.
#
# Sections: the per-kernel table; the cross-GPU question (the H200's fp32 shares of add's rate beside NeuSight's);
# the mechanisms behind the largest misses, each with a rule, the rows that fit it and the rows that check it (never
# the same); and the Llama step's memory-bound kernels by operator (trace_groups) against dtsim's closed forms for
# the same ops and against those rules. The only dtsim numbers not recomputed here are DTSIM_STEP, DTSIM_GEMM and
# DTSIM_ATTENTION (`dtsim kernels` at commit 4290288).
#
# Rows kept: a row is the device's time only when the GPU, not the host, is the slower; the host's time per call is
# taken as the kernel's time at its smallest shape (2048 x 1024: 4 to 42 MB, 1 to 10 us of traffic at the copy rate,
# measured 6 to 114 us), and a row is kept when it takes at least twice that. Kernels without that shape (the loss,
# the embedding, batch norm, the optimizers: 64 us and up) keep every row.
import gzip
import json
import os
import re
import statistics
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(here))
sys.path.insert(0, here)
from fit_output import write_or_check  # noqa: E402
import memory_fit  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(here))
PROBE = os.path.join(ROOT, "bench", "validation", "h200_memory_probe_2026-11-30.json")
EARLIER = os.path.join(ROOT, "bench", "published", "h200_memory_kernels.json")
LLAMA = os.path.join(ROOT, "bench", "validation", "h200_llama_probe_2026-11-30.json")
TRACE = os.path.join(ROOT, "tests", "calibrate", "data", "h200_llama_step.json.gz")
ZOO = os.path.join(ROOT, "models", "zoo", "data", "devices.yaml")
REREAD = os.path.join(ROOT, "models", "zoo", "reread.hpp")
OUT = os.path.join(here, "memory_classes_h200.md")
# `dtsim kernels scenarios/llama3_8l_pytorch_h200.yaml` at commit 4290288 (the only numbers here not computed from
# the repository's files): the step, its GEMMs and its attention.
DTSIM_STEP, DTSIM_GEMM, DTSIM_ATTENTION = 0.503, 0.320, 0.0614
ROWS_PER_SM = 16  # rows_resident_per_sm(90), models/zoo/reread.cpp: 2,048 threads / 128, 32 blocks


def zoo_h200():
    """The h200 entry's figures this script uses, read from the zoo."""
    text = open(ZOO).read()
    entry = text[text.index("\n  h200:") + 1:]
    end = re.search(r"\n  [a-z0-9_]+:\n", entry)
    entry = entry[:end.start()] if end else entry

    def number(key):
        return float(re.search(r"\n\s+" + key + r":\s*([0-9.]+)", entry).group(1))
    l2 = re.search(r"\n\s+l2:\s*([0-9]+)MiB", entry).group(1)
    share = float(re.search(r"kL2RowShare = ([0-9.]+)", open(REREAD).read()).group(1))
    return {"bw": number("mem_bandwidth") * 1e9, "fp32": number("fp32") * 1e12, "memory": number("memory"),
            "layout_copy": number("layout_copy"), "sms": number("sms"), "l2": float(l2) * (1 << 20), "f": share}


Z = zoo_h200()
COPY_RATE = Z["bw"] * Z["memory"]  # what every memory-bound class but layout_copy streams at
B = {"fp32": 4, "bf16": 2, "fp16": 2}


def reread_miss(row_bytes, nbytes):
    """Bytes of a second read that come from memory (models/zoo/reread.cpp, reread_memory_bytes)."""
    hit = min(1.0, Z["f"] * Z["l2"] / (Z["sms"] * ROWS_PER_SM * row_bytes))
    return nbytes * (1 - hit)


# Per probe kernel: the dtsim op that is the same work, what it counts and where. `bytes(r)` and `flops(r)` take the
# row; `cls` the class (its rate); `code` the function that counts the bytes; `note` how they compare with the
# probe's own count.
def n_of(r):
    return r["shape"][0] * r["shape"][1]


def elem(r):
    return B.get(r["dtype"], 2)


def norm_bytes(passes_fwd):
    def f(r):
        n, b, h = n_of(r), elem(r), r["shape"][1]
        if passes_fwd:
            return 2 * n * b + reread_miss(h * b, n * b)
        return 5 * n * b + reread_miss(2 * h * b, 2 * n * b)
    return f


def ce(r, fwd):
    n = n_of(r)
    if r["dtype"] == "fp32":
        return n * (8 if fwd else 16)
    return n * elem(r) * (2 if fwd else 4)


def bn(r, fwd):
    batch, c, side, _ = r["shape"]
    n = batch * c * side * side
    return ((2 * c if fwd else 4 * c) + (3 if fwd else 5) * n) * elem(r)


def emb(r, fwd):
    t, h, _ = r["shape"]
    return (2 if fwd else 3) * t * h * elem(r)


def opt(per_param):
    return lambda r: per_param * r["shape"][0]


OPS = {
    "add": ("elementwise", lambda r: 3 * n_of(r) * elem(r), lambda r: n_of(r),
            "transformer_ops.cpp dropout_residual: x, the residual and the sum (3B; +1 B mask with dropout)"),
    "accumulate_fp32": ("elementwise", lambda r: 12 * n_of(r), lambda r: n_of(r),
                        "transformer_ops.cpp gemm_casts: .grad += the cast gradient, 12 B"),
    "gelu_fwd": ("elementwise", lambda r: 2 * n_of(r) * elem(r), lambda r: 8 * n_of(r),
                 "transformer_ops.cpp activation: 2B"),
    "gelu_bwd": ("elementwise", lambda r: 4 * n_of(r) * elem(r), lambda r: 16 * n_of(r),
                 "transformer_ops.cpp backward_of: twice the forward, 4B (the kernel: 3B)"),
    "relu_fwd": ("elementwise", lambda r: 2 * n_of(r) * elem(r), lambda r: 0,
                 "resnet50.yaml relu rows through worker.cpp layer_op: 2 passes"),
    "relu_bwd": ("elementwise", lambda r: 3 * n_of(r) * elem(r), lambda r: 0,
                 "resnet50.yaml relu rows through worker.cpp layer_op: 3 passes"),
    "layer_norm_fwd": ("norm", norm_bytes(True), lambda r: 5 * n_of(r),
                       "transformer_ops.cpp norm, pointwise.cpp norm_traffic: 2B + the L2 misses of a second read "
                       "(norm_kernel two_pass, reread.cpp)"),
    "layer_norm_bwd": ("norm", norm_bytes(False), lambda r: 10 * n_of(r),
                       "the same: 5B (dx, then dw over x and dy again) + two rows' second read"),
    "rms_norm_fwd": ("norm", norm_bytes(True), lambda r: 4 * n_of(r),
                     "as layer_norm_fwd, fused (F.rms_norm is one kernel in PyTorch 2.11; under pointwise_kernels "
                     "eager dtsim prices it op by op instead: 36 B an element in bf16, 28 in fp32)"),
    "rms_norm_bwd": ("norm", norm_bytes(False), lambda r: 8 * n_of(r),
                     "as layer_norm_bwd, fused (eager: 92 B an element)"),
    "softmax_fwd": ("softmax", lambda r: 2 * n_of(r) * elem(r), lambda r: 5 * n_of(r),
                    "transformer_ops.cpp attention_core softmax: 2B"),
    "softmax_bwd": ("softmax", lambda r: 4 * n_of(r) * elem(r), lambda r: 10 * n_of(r),
                    "backward_of: 4B (the kernel: 3B)"),
    "cast_fp32_to_bf16": ("elementwise", lambda r: 6 * n_of(r), lambda r: 0, "transformer_ops.cpp cast: 4 + 2 B"),
    "cast_bf16_to_fp32": ("elementwise", lambda r: 6 * n_of(r), lambda r: 0, "transformer_ops.cpp cast: 4 + 2 B"),
    "swiglu_fwd": ("elementwise", lambda r: 5 * n_of(r) * elem(r), lambda r: 8 * n_of(r),
                   "pointwise.cpp swiglu_traffic, eager (silu, then the product): 5B; fused 3B"),
    "swiglu_bwd": ("elementwise", lambda r: 9 * n_of(r) * elem(r), lambda r: 16 * n_of(r),
                   "swiglu_traffic eager: 9B (the product's two gradients, silu's); fused 6B"),
    "dropout_fwd": ("elementwise", lambda r: n_of(r) * (2 * elem(r) + 1), lambda r: n_of(r),
                    "transformer_ops.cpp attention and embedding dropout: 2B + 1 B mask"),
    "bias_grad": ("elementwise", lambda r: n_of(r) * elem(r), lambda r: 0,
                  "transformer_ops.cpp bias_gradient: the output gradient read once"),
    "transpose_copy": ("layout_copy", lambda r: 2 * n_of(r) * elem(r), lambda r: 0,
                       "transformer_ops.cpp layout_copy: 2B at layout_copy (dtsim has no 2-D transpose: nearest)"),
    "heads_permute_copy": ("layout_copy", lambda r: 2 * n_of(r) * elem(r), lambda r: 0,
                           "transformer_ops.cpp layout_copy (eager attention's q, k, v and context copies): 2B"),
    "rotary_fwd_eager": ("elementwise", lambda r: n_of(r) * (20 if r["dtype"] == "bf16" else 8), lambda r: 3 * n_of(r),
                         "pointwise.cpp rotary_traffic, eager (torchtitan's complex product): 16 + 2B in bf16, 8 B "
                         "in fp32; the probe ran Hugging Face's rotate_half"),
    "rotary_bwd_eager": ("elementwise", lambda r: n_of(r) * (20 if r["dtype"] == "bf16" else 8), lambda r: 3 * n_of(r),
                         "the same backward"),
    "zero": ("elementwise", lambda r: n_of(r) * elem(r), lambda r: 0,
             "no op of its own (the zero-filled gradient inside cross_entropy_traffic's 16): one write"),
    "cross_entropy_fwd": ("softmax", lambda r: ce(r, True), lambda r: 5 * n_of(r),
                          "transformer_ops.cpp head_forward, pointwise.cpp cross_entropy_traffic: log_softmax on fp32 "
                          "logits, 8 B (bf16 logits: no dtsim op; shown at 2B)"),
    "cross_entropy_bwd": ("elementwise", lambda r: ce(r, False), lambda r: n_of(r),
                          "head_backward: the zero-filled gradient and log_softmax's, 16 B (bf16: shown at 4B)"),
    "embedding_fwd": ("embedding", lambda r: emb(r, True), lambda r: 0,
                      "transformer_ops.cpp embedding_forward: 2 T h B"),
    "embedding_bwd": ("embedding", lambda r: emb(r, False), lambda r: r["shape"][0] * r["shape"][1],
                      "transformer_ops.cpp embedding_backward: 3 T h B (no term for the table)"),
    "batch_norm_fwd": ("norm", lambda r: bn(r, True), lambda r: 0,
                       "resnet50.yaml bn rows through worker.cpp layer_op: 3 passes (+ its weights)"),
    "batch_norm_bwd": ("norm", lambda r: bn(r, False), lambda r: 0, "the same backward: 5 passes"),
    "adamw_fused": ("elementwise", opt(28), lambda r: 12 * r["shape"][0],
                    "optimizer_step.cpp adam, fused: 7 fp32 accesses a parameter, 28 B (cost_model.cpp update_time)"),
    "adamw_foreach": ("elementwise", opt(92), lambda r: 12 * r["shape"][0],
                      "optimizer_step.cpp adam, foreach: PyTorch 1.11's 9 ops, 23 accesses, 92 B"),
    "sgd_momentum_foreach": ("elementwise", opt(44), lambda r: 4 * r["shape"][0],
                             "optimizer_step.cpp momentum, foreach: 4 ops, 11 accesses, 44 B (weight decay on)"),
}
# The table's order, by class.
GROUPS = [
    ("elementwise", ["add", "accumulate_fp32", "relu_fwd", "relu_bwd", "gelu_fwd", "gelu_bwd", "swiglu_fwd",
                     "swiglu_bwd", "dropout_fwd", "bias_grad", "zero"]),
    ("casts", ["cast_fp32_to_bf16", "cast_bf16_to_fp32"]),
    ("norms", ["layer_norm_fwd", "layer_norm_bwd", "rms_norm_fwd", "rms_norm_bwd", "batch_norm_fwd",
               "batch_norm_bwd"]),
    ("softmax and the loss", ["softmax_fwd", "softmax_bwd", "cross_entropy_fwd", "cross_entropy_bwd"]),
    ("rotary (eager)", ["rotary_fwd_eager", "rotary_bwd_eager"]),
    ("embedding", ["embedding_fwd", "embedding_bwd"]),
    ("layout copies", ["transpose_copy", "heads_permute_copy"]),
    ("optimizer passes", ["adamw_fused", "adamw_foreach", "sgd_momentum_foreach"]),
]


def rate_of(cls):
    return Z["bw"] * Z["layout_copy"] if cls == "layout_copy" else COPY_RATE


def dtsim_time(r):
    cls, nbytes, flops, _ = OPS[r["kernel"]]
    return max(nbytes(r) / rate_of(cls), flops(r) / Z["fp32"])


def p90(values):
    s = sorted(values)
    return s[min(len(s) - 1, int(0.9 * len(s)))]


def fmt_us(s):
    return f"{s * 1e6:,.0f}" if s >= 1e-4 else f"{s * 1e6:.1f}"


def shape_text(r):
    return " x ".join(str(x) for x in r["shape"])


def kept_rows(rows):
    """The rows where the device, not the host, sets the time (header: Rows kept)."""
    floor = {}
    for r in rows:
        if r["shape"] == [2048, 1024]:
            floor[r["kernel"]] = min(floor.get(r["kernel"], 1.0), r["seconds"])
    return [r for r in rows if r["seconds"] >= 2 * floor.get(r["kernel"], 0.0)], floor


def verdict(ratio):
    if ratio < 0.95:
        return f"fast by {100 * (1 - ratio):.0f} %"
    if ratio > 1.05:
        return f"slow by {100 * (ratio - 1):.0f} %"
    return "within 5 %"


NEUSIGHT = {"relu": "relu_fwd", "gelu": "gelu_fwd", "ln": "layer_norm_fwd", "softmax": "softmax_fwd"}
NAMES = {"relu": "ReLU", "gelu": "GELU", "ln": "LayerNorm", "softmax": "softmax"}


def neusight_shares():
    """Per (GPU, op): the op's streaming rate over add's (memory_fit.py's fits: shapes of at least 256 MB and 768
    columns, time = dispatch + bytes / rate by least squares)."""
    shapes = memory_fit.load()
    fits = {}
    for key, pts in shapes.items():
        big = [p for p in pts if p[0] >= memory_fit.MIN_BYTES and p[2] >= memory_fit.MIN_COLUMNS]
        if len(big) >= 5:
            fits[key] = memory_fit.line([(b, t) for b, t, _ in big])
    return {(d, o): fits[(d, o)][1] / fits[(d, "add")][1] for (d, o) in fits if o != "add" and (d, "add") in fits}


def cross_gpu(w, rows, summary):
    shares = neusight_shares()
    devices = sorted(memory_fit.BW, key=lambda d: (d not in memory_fit.FIT, d))
    h200 = {}
    for shape in ([8192, 4096], [16384, 8192]):
        at = {r["kernel"]: r["bytes"] / r["seconds"] for r in rows if r["dtype"] == "fp32" and r["shape"] == shape}
        h200[tuple(shape)] = {o: at[k] / at["add"] for o, k in NEUSIGHT.items() if k in at}
    w("### The cross-GPU question: the H200's fp32 shares beside NeuSight's seven GPUs")
    w("")
    w("Each op's streaming rate over `add`'s on the same GPU (the elements read and written, 4 bytes each; NeuSight's "
      "from memory_fit.py's fits, the H200's at each of its two largest shapes). A share that carries across GPUs is "
      "one number a class could take; memory_fit.py fitted LayerNorm 0.78 and softmax 0.75 on V100 and A100 40GB.")
    w("")
    w("| GPU | L2 | " + " | ".join(NAMES[o] for o in NEUSIGHT) + " |")
    w("|---|---:|" + "---:|" * len(NEUSIGHT))
    for d in devices:
        cells = [f"{shares[(d, o)]:.2f}" if (d, o) in shares else "-" for o in NEUSIGHT]
        w(f"| {d}{' (fit)' if d in memory_fit.FIT else ''} | {memory_fit.GPU[d][1] >> 20} MB | " + " | ".join(cells) +
          " |")
    for shape, s in h200.items():
        w(f"| NVIDIA H200, {shape[0]} x {shape[1]} | 50 MB | " + " | ".join(f"{s[o]:.2f}" for o in NEUSIGHT) + " |")
    w("")
    ln_fp32 = ", ".join(f"{summary[(k, 'fp32')][0]:.2f}" for k in ("layer_norm_fwd", "layer_norm_bwd",
                                                                     "rms_norm_fwd", "rms_norm_bwd"))
    fitted = {o: statistics.median(shares[(d, o)] for d in memory_fit.FIT) for o in ("ln", "softmax")}
    h200_ln = "-".join(f"{v['ln']:.2f}" for v in sorted(h200.values(), key=lambda v: v["ln"]))
    h200_sm = "-".join(f"{v['softmax']:.2f}" for v in sorted(h200.values(), key=lambda v: v["softmax"]))
    verdicts = []
    for o in NEUSIGHT:
        seven = [shares[(d, o)] for d in devices if (d, o) in shares]
        lo, hi = min(seven), max(seven)
        mine = [s[o] for s in h200.values()]
        tol = 0.03  # the shares' noise: the two H200 runs agree within 3 %, NeuSight's fits within a few
        if lo - tol <= min(mine) and max(mine) <= hi + tol:
            where = "within their range"
        elif max(mine) < lo - tol:
            where = "below all of them"
        else:
            where = "at the low end, below it at the larger shape" if min(mine) < lo - tol else "above them"
        verdicts.append(f"{NAMES[o]} {min(mine):.2f}-{max(mine):.2f} against {lo:.2f}-{hi:.2f}: {where}")
    w("The H200 against the seven: " + "; ".join(verdicts) + ". ReLU and GELU stream as `add` does on every GPU "
      "(the share 1 that dtsim uses carries); LayerNorm and softmax do not carry as one share: memory_fit.py's "
      f"{fitted['ln']:.2f} and {fitted['softmax']:.2f} (the median of V100 and A100 40GB) miss the H200's {h200_ln} "
      f"and {h200_sm}: for all its 50 MB of L2 the H200 sits with the small-L2 V100, P100, T4 and P4, not with the "
      "A100s and L4. For LayerNorm the carrier is "
      "memory.md's second-read model (L2, SMs, row bytes), which dtsim already runs: the H200's fp32 LayerNorm "
      f"and RMSNorm stand at {ln_fp32} of measured (the table above); softmax has no such model yet (below). "
      "No other GPU in the repository has RMSNorm, SwiGLU, rotary, "
      "dropout, the loss, the embedding, batch norm, the optimizers or the copies measured: their cross-GPU "
      "question is open, and each rule below says what a second GPU would check.")
    w("")


def bert_large_params():
    """BertForSequenceClassification with transformers' BertConfig defaults (vocabulary 30,522, 512 positions, 2
    token types) at hidden 1024, 24 layers, FFN 4096, 2 labels, as scripts/torch_profile_probe.py builds it."""
    h, f, layers = 1024, 4096, 24
    embeddings = (30522 + 512 + 2) * h + 2 * h
    layer = 4 * (h * h + h) + (h * f + f) + (f * h + h) + 2 * 2 * h
    return embeddings + layers * layer + (h * h + h) + (2 * h + 2)


BERT_TENSORS = 5 + 24 * 16 + 2 + 2  # embeddings (3 tables, a norm's 2), 16 a layer, the pooler's 2, the classifier's 2
LLAMA_TENSORS = 8 * 9 + 3  # 9 a block (2 norms, q, k, v, o, gate, up, down), the embedding, the final norm, the head


def resnet50_bn_elements():
    """ResNet-50's batch-norm rows (models/zoo/data/models/resnet50.yaml): forward and backward traffic elements and
    parameters per sample... parameters once."""
    fwd = bwd = params = 0.0
    for line in open(os.path.join(ROOT, "models", "zoo", "data", "models", "resnet50.yaml")):
        line = line.strip()
        if not line.startswith("- ["):
            continue
        f = [x.strip() for x in line[3:-1].split(",")]
        if f[1] == "norm":
            params += float(f[2])
            fwd += float(f[9])
            bwd += float(f[10])
    return fwd, bwd, params


def med_err(pairs):
    """Median and largest |model / measured - 1| over (model, measured) pairs, and the signed median."""
    e = [m / t - 1 for m, t in pairs]
    return statistics.median(abs(x) for x in e), max(abs(x) for x in e), statistics.median(e)


def probe_mechanisms(w, kept, summary):
    probe = json.load(open(PROBE))["rows"]
    w("### The largest misses: mechanisms, and a rule for each with what fits it and what checks it")
    w("")
    # 1. The optimizer passes.
    fused = [r for r in probe if r["kernel"] == "adamw_fused"]
    fit = [r for r in fused if r["bytes"] >= 1e9]
    opt_share = statistics.median(r["bytes"] / r["seconds"] / Z["bw"] for r in fit)
    llama = json.load(open(LLAMA))
    t_llama = trace_groups()["optimizer (fused AdamW)"][0]
    p_llama = llama["parameters"]
    prof = json.load(open(os.path.join(ROOT, "bench", "validation", "h200_torch_profile_2026-11-27b.json")))
    bert_t = sum(k[1] for k in prof["bert_large_amp_s384_b32_sdpa_adam_profile"]["top_kernels_ms_per_step"]
                 if "FusedOptimizer" in k[0]) * 1e-3
    p_bert = bert_large_params()
    foreach = {r["shape"][0]: r for r in probe if r["kernel"] == "adamw_foreach"}
    sgd = {r["shape"][0]: r for r in probe if r["kernel"] == "sgd_momentum_foreach"}
    big = 400_000_000
    e_each = med_err([(84 * r["shape"][0] / (opt_share * Z["bw"]), r["seconds"]) for r in foreach.values()] +
                     [(32 * r["shape"][0] / (opt_share * Z["bw"]), r["seconds"]) for r in sgd.values()])
    w(f"**Optimizer passes (fused AdamW at {summary[('adamw_fused', 'fp32')][1]:.2f} of 4.8 TB/s, dtsim "
      f"{Z['memory']:.2f}).** One multi-tensor kernel reads the parameter, gradient and two moments and writes three "
      "back: seven fp32 streams at once in chunks of 65,536 elements a block (MultiTensorApply.cuh), the moments' "
      "arithmetic with a square root and a division an element. dtsim's 28 B a parameter is right; the rate is not. "
      f"Rule: a multi-tensor share, fitted on the probe's fused AdamW over 100M and 400M parameters: {opt_share:.3f} "
      f"of the data sheet ({opt_share / Z['memory']:.2f} of the copy figure). Checked, not fitted: the Llama step's "
      f"fused AdamW ({p_llama / 1e9:.2f} B parameters in {LLAMA_TENSORS} tensors) measured {t_llama * 1e3:.1f} ms, "
      "the share "
      f"gives {28 * p_llama / (opt_share * Z['bw']) * 1e3:.1f} ms (dtsim now {28 * p_llama / COPY_RATE * 1e3:.1f}); "
      f"BERT-Large's fused Adam ({p_bert / 1e6:.1f} M parameters in {BERT_TENSORS} tensors, bench/validation/"
      f"h200_torch_profile_2026-11-27b.json) {bert_t * 1e3:.2f} ms, the share gives "
      f"{28 * p_bert / (opt_share * Z['bw']) * 1e3:.2f} ms (now {28 * p_bert / COPY_RATE * 1e3:.2f}): with many small "
      "tensors the kernel runs slower still (a per-tensor term would take it; the 25M-parameter rows, "
      f"{min(r['fraction_of_peak'] for r in fused):.2f}, point the same way). torch.optim's foreach step in PyTorch "
      "2.11 is not 1.11's list that dtsim counts: AdamW's decoupled decay, lerp, mul, addcmul, sqrt, div, add and "
      "addcdiv read and write 21 tensors a parameter (84 B, dtsim 92), SGD with momentum and no decay 8 (32 B, "
      f"dtsim 44 with decay); at 400M they reach {84 * big / foreach[big]['seconds'] / Z['bw']:.2f} and "
      f"{32 * big / sgd[big]['seconds'] / Z['bw']:.2f} of 4.8 TB/s, near the fused kernel's share: one multi-tensor "
      "share for the class, with the op lists brought to PyTorch 2.x (and weight decay a setting), puts the six "
      f"foreach rows within {100 * e_each[1]:.0f} % (median {100 * e_each[0]:.0f} %). A second GPU's optimizer "
      "step (any PyTorch training profile) checks the share "
      "across GPUs.")
    w("")
    # 2. Casts.
    earlier = json.load(open(EARLIER))["rows"]
    up_fit = [r for r in earlier if r["kernel"] == "cast_bf16_to_fp32" and r["bytes"] >= 2e8]
    down_fit = [r for r in earlier if r["kernel"] == "cast_fp32_to_bf16" and r["bytes"] >= 2e8]
    up_share = statistics.median(r["bytes"] / r["seconds"] / Z["bw"] for r in up_fit)
    down_share = statistics.median(r["bytes"] / r["seconds"] / Z["bw"] for r in down_fit)
    up_new = [r for r in kept if r["kernel"] == "cast_bf16_to_fp32"]
    g = trace_groups()
    up_t, up_b = g["casts up, bf16 to fp32"][0], g["casts up, bf16 to fp32"][2]
    down_t, down_b = g["casts down, fp32 to bf16"][0], g["casts down, fp32 to bf16"][2]
    e_up = med_err([(r["bytes"] / (up_share * Z["bw"]), r["seconds"]) for r in up_new])
    w(f"**Casts up (bf16 to fp32 at {summary[('cast_bf16_to_fp32', 'mixed')][1]:.2f}, down at "
      f"{summary[('cast_fp32_to_bf16', 'mixed')][1]:.2f}).** PyTorch 2.11 has a vectorized kernel for fp32 to bf16 "
      "(`vectorized_elementwise_kernel<8, bfloat16_copy_kernel_cuda>`) but copies bf16 to fp32 through the generic "
      "`direct_copy_kernel_cuda` as an `unrolled_elementwise_kernel`, without vector loads (the Llama trace's kernel "
      "names). dtsim prices both at the copy figure. Rule: the up-cast's own share, fitted on the first H200 run's "
      f"up-casts of at least 200 MB (2026-11-27): {up_share:.3f} of 4.8 TB/s (down-casts there: {down_share:.3f}, "
      f"the copy figure stands). Repeated by this run's {len(up_new)} up-casts of the same shapes (median error "
      f"{100 * e_up[0]:.1f} %, largest {100 * e_up[1]:.1f} %) and checked on "
      f"the Llama step's {g['casts up, bf16 to fp32'][1]} up-cast kernels ({up_b / 1e9:.1f} GB): "
      f"{up_t * 1e3:.1f} ms measured, {up_b / (up_share * Z['bw']) * 1e3:.1f} ms by the share "
      f"({up_b / COPY_RATE * 1e3:.1f} at the copy figure); its {g['casts down, fp32 to bf16'][1]} down-casts "
      f"({down_b / 1e9:.1f} GB) {down_t * 1e3:.1f} ms, {down_b / COPY_RATE * 1e3:.1f} at the copy figure. The "
      "count matters as much (the step's table below): autocast casts a Linear's input once per Linear, so "
      "Hugging Face's "
      "separate q, k, v and gate, up projections cast each norm's output five times a layer where dtsim's fused qkv "
      "and fc1 cast it twice, and autograd casts the fp32 residual's gradient down for each bf16 branch. On another "
      "GPU the same pair of probe rows decides whether the up-cast's share carries (it is a kernel choice, so it "
      "should, at that GPU's vector width).")
    w("")
    # 3. The loss.
    ce_rows = [r for r in probe if r["kernel"].startswith("cross_entropy")]

    def ce_model(r):
        n, b = n_of(r), elem(r)
        return n * b * (4 if r["kernel"].endswith("fwd") else 5) / COPY_RATE
    parts = []
    for k in ("cross_entropy_fwd", "cross_entropy_bwd"):
        for dt in ("fp32", "bf16"):
            rs = [r for r in ce_rows if r["kernel"] == k and r["dtype"] == dt]
            e = med_err([(ce_model(r), r["seconds"]) for r in rs])
            parts.append(f"{k.split('_')[-1]} {dt}: median {100 * e[2]:+.1f} % (largest |error| {100 * e[1]:.1f} %)")
    ls = g["loss: log_softmax forward"]
    lb = g["loss: log_softmax backward, nll's zero fill"]
    n_logits = llama["shape"]["seq"] * llama["shape"]["vocab"] * llama["shape"]["micro_batch"]
    m = llama["shape"]["micro_batches"]
    w(f"**The loss over the vocabulary (forward {summary[('cross_entropy_fwd', 'fp32')][1]:.2f}, backward "
      f"{summary[('cross_entropy_bwd', 'fp32')][1]:.2f} of 4.8 TB/s as dtsim counts them).** A row of 32,000 to "
      "128,256 logits does not fit in shared memory, so PyTorch's log_softmax runs `cunn_SoftMaxForward`, not its "
      "shared-memory or register variants: it reads the row for the maximum, again for the sum of exponentials and "
      "again to write the output: three reads and a write, where dtsim counts one of each. Backward, nll_loss's "
      "gradient is a zero-filled tensor of the logits' shape (one write) and `cunn_SoftMaxBackward` reads the "
      "gradient for its sum, then the gradient and the output again to write the input's gradient: five passes, "
      "where dtsim counts four. Rule: those pass counts (16 B and 20 B an fp32 logit; 8 and 10 in bf16) at the copy "
      f"figure, nothing fitted. Checked on the probe's 24 rows: " + "; ".join(parts) + ". And on the Llama step "
      f"({m} x {n_logits / 1e6:.0f} M fp32 logits): log_softmax {ls[0] * 1e3:.2f} ms measured, "
      f"{m * n_logits * 16 / COPY_RATE * 1e3:.2f} by the rule (dtsim now {m * n_logits * 8 / COPY_RATE * 1e3:.2f}); "
      f"its backward with the fill {lb[0] * 1e3:.2f} ms, {m * n_logits * 20 / COPY_RATE * 1e3:.2f} by the rule "
      f"(now {m * n_logits * 16 / COPY_RATE * 1e3:.2f}). A fused loss (Megatron's, flash-attn's) is a different "
      "kernel and keeps dtsim's counts until measured. Which kernel runs is decided by whether a row fits a block's "
      "shared memory; from 32,000 columns up it did not here (those rows run like the 128,256 ones), and that limit "
      "is per GPU: the rule carries if it reads it.")
    w("")
    # 4. Rotary and the strided kernels.
    hp = [r for r in kept if r["kernel"] == "heads_permute_copy"]
    r_strided = statistics.median(n_of(r) / r["seconds"] for r in hp)

    def rotary_model(r):
        n = n_of(r)
        return 3.5 * n / r_strided + 3 * n * elem(r) / COPY_RATE
    rot = [r for r in kept if r["kernel"].startswith("rotary")]
    e_rot = {dt: med_err([(rotary_model(r), r["seconds"]) for r in rot if r["dtype"] == dt]) for dt in ("fp32", "bf16")}
    rt = g["rotary (rotate_half)"]
    s = llama["shape"]
    rot_elements = s["seq"] * (s["hidden"] + s["kv_heads"] * s["hidden"] // s["heads"]) * s["layers"] * m
    w(f"**Rotary embedding as Hugging Face writes it (eager, {summary[('rotary_fwd_eager', 'bf16')][1]:.2f} of "
      f"4.8 TB/s in bf16 as dtsim counts it, {summary[('rotary_fwd_eager', 'fp32')][1]:.2f} in fp32).** "
      "`x * cos + rotate_half(x) * sin` is five kernels forward (neg of one half, cat of the halves, two products, "
      "the sum) and five backward (two products, neg, cat, the sum), about ten passes over the tensor where dtsim's "
      "eager rotary (torchtitan's complex product) counts 16 + 2B bytes (20 in bf16, as it happens ten passes of "
      "2 B) and in fp32 only 8 B. Worse than the count is the kernel: the half is a strided view, cos and sin "
      "broadcast over the heads, and in a model the queries are a transposed view of their projection, so "
      "TensorIterator runs its generic strided kernel (`elementwise_kernel<128, 4>`, no vector loads), whose time "
      "follows elements rather than bytes. Rule: a strided-kernel element rate, fitted on the probe's heads-permute "
      f"copies (the same generic copy path): {r_strided / 1e9:.0f} G elements/s; the rotation's strided kernels "
      "touch 3.5 elements per element forward and backward (neg a half, cat, two products), the sum streams at the "
      f"copy figure when its operands are contiguous. Checked on the probe's rotary rows: fp32 median error "
      f"{100 * e_rot['fp32'][2]:+.1f} %, bf16 {100 * e_rot['bf16'][2]:+.1f} %; on the Llama step, where all five run "
      f"strided (4.5 elements each way): {rt[0] * 1e3:.1f} ms measured ({rt[1]} kernels), "
      f"{2 * 4.5 * rot_elements / r_strided * 1e3:.1f} ms by the rule, dtsim now "
      f"{2 * 20 * rot_elements / COPY_RATE * 1e3:.1f}. The cat kernel (`CatArrayBatchedCopy`) is the slowest of "
      "the five (about 0.6 of the rate); torchtitan's complex form and fused rotary kernels are other kernels. The "
      "element rate is a per-GPU number (SMs x clock x the index arithmetic per element): a second GPU's permute "
      "copies fit it there.")
    w("")
    # 5. The embedding's backward.
    zeros = {r["dtype"]: r["bytes"] / r["seconds"] for r in kept
             if r["kernel"] == "zero" and r["shape"] == [16384, 8192]}
    emb_rows = [r for r in probe if r["kernel"] == "embedding_bwd"]

    def fill_s(r):
        t, h, v = r["shape"]
        return v * h * elem(r) / zeros[r["dtype"]]
    fit_rows = [r for r in emb_rows if r["shape"][0] == 8192]
    r_seg = statistics.median(r["shape"][0] * r["shape"][1] / (r["seconds"] - fill_s(r)) for r in fit_rows)
    chk = [r for r in emb_rows if r["shape"][0] != 8192]
    e_emb = med_err([(fill_s(r) + r["shape"][0] * r["shape"][1] / r_seg, r["seconds"]) for r in chk])
    eb = g["embedding backward (fill, sort, segment sums)"]
    tok = s["seq"] * s["micro_batch"]
    emb_rule = m * (s["vocab"] * s["hidden"] * 4 / zeros["fp32"] + tok * s["hidden"] / r_seg)
    w(f"**The embedding's backward ({summary[('embedding_bwd', 'fp32')][1]:.2f} of 4.8 TB/s in fp32 as dtsim counts "
      "it).** PyTorch's dense embedding backward zero-fills a gradient of the whole table (vocabulary x hidden: 2.1 "
      "GB at 128,256 x 4,096 in fp32), sorts the token ids (cub's radix sort), finds each id's segment and sums the "
      "rows of each segment in fp32 partials before scattering them (`compute_grad_weight`, `sum_and_scatter`). "
      "dtsim counts 3 T h B and no table. Rule: the fill at the zero kernel's rate (the probe's `zero` rows, not "
      f"fitted here) plus T h elements at a segment-sum rate, fitted on the 4 rows of 8,192 tokens: "
      f"{r_seg / 1e9:.0f} G elements/s, the same in fp32 and bf16 (so not bytes). Checked on the 2 rows of 16,384 "
      f"tokens: median error {100 * e_emb[2]:+.1f} % (largest {100 * e_emb[1]:.1f} %); on the Llama step's "
      f"embedding backward ({eb[1]} kernels): {eb[0] * 1e3:.2f} ms measured, {emb_rule * 1e3:.2f} by the rule, "
      f"dtsim now {m * 3 * tok * s['hidden'] * 4 / COPY_RATE * 1e3:.2f}. (A tied embedding adds the output layer's "
      "weight gradient to it instead; the fill and the sort stay.)")
    w("")
    # 6. Memory-bound backwards counted as twice the forward.
    w(f"**Backwards that dtsim counts as twice the forward (GELU backward {summary[('gelu_bwd', 'fp32')][0]:.2f} x "
      f"measured in fp32, softmax backward {summary[('softmax_bwd', 'fp32')][0]:.2f}).** `backward_of` gives a "
      "memory-bound op twice its forward's bytes, four passes, where GELU's, ReLU's and softmax's backward read the "
      "saved tensor and the output gradient and write the input gradient: three. Rule: three passes for a "
      "one-input pointwise op or a row softmax (the norms and SwiGLU already carry their own counts). It makes fp32 "
      "GELU's backward right (slow by a third now) and moves bf16 GELU's and softmax's further from the measurement, "
      "where the kernels are not streaming (below). Nothing to fit; NeuSight has no backwards to check on.")
    w("")
    # 7. Layout copies.
    rates = {}
    for k in ("heads_permute_copy", "transpose_copy"):
        for dt in ("fp32", "bf16"):
            rs = [r for r in kept if r["kernel"] == k and r["dtype"] == dt]
            rates[(k, dt)] = statistics.median(n_of(r) / r["seconds"] for r in rs)
    bert_elems = 25.2e6 / 2 / 2  # elements of one BERT-Large permute copy (25.2 MB read plus written, fp16)
    w(f"**Layout copies (the zoo's layout_copy {Z['layout_copy']:.2f}: the heads permute of this probe reaches "
      f"{summary[('heads_permute_copy', 'fp32')][1]:.2f} in fp32 and {summary[('heads_permute_copy', 'bf16')][1]:.2f} "
      f"in bf16, the 2-D transpose {summary[('transpose_copy', 'fp32')][1]:.2f} and "
      f"{summary[('transpose_copy', 'bf16')][1]:.2f}).** A copy of a permuted view runs the same generic strided "
      "kernel as the rotation, and its rate follows elements: the heads permute (runs of 128 contiguous elements) at "
      f"{rates[('heads_permute_copy', 'fp32')] / 1e9:.0f} and {rates[('heads_permute_copy', 'bf16')] / 1e9:.0f} G "
      f"elements/s in fp32 and bf16, the 2-D transpose (one side strided an element at a time, a 32-byte sector "
      f"for each 2 or 4 useful bytes) at {rates[('transpose_copy', 'fp32')] / 1e9:.0f} and "
      f"{rates[('transpose_copy', 'bf16')] / 1e9:.0f}. The zoo's 0.22 came from BERT-Large's eager attention "
      f"(fp16, heads of 64, {bert_elems / 1e6:.1f} M elements a copy in 47.9 us: {bert_elems / 47.9e-6 / 1e9:.0f} G "
      "elements/s), three times slower per element than this probe's heads permute: a copy of 6 M elements is "
      "short enough for its launch and tail to count, and heads of 64 halve the contiguous run. Rule: layout copies "
      "by elements at the strided rate (the rotary rule's), with a fixed time a kernel; fitted on this probe's "
      "permutes, checked on BERT's copies (bench/validation/h200_torch_profile_2026-11-27b.json) and the Llama "
      "step's repeat_kv and head copies. Until then 0.22 overprices large permutes 1.5 to 2.5 times.")
    w("")
    # 8. Batch norm.
    bn_rows = {k: [r for r in kept if r["kernel"] == k and r["dtype"] == "fp16"] for k in ("batch_norm_fwd",
                                                                                          "batch_norm_bwd")}
    bn_ratio = {k: statistics.median(dtsim_time(r) / r["seconds"] for r in rs) for k, rs in bn_rows.items()}
    fwd_el, bwd_el, bn_params = resnet50_bn_elements()
    prof_a = json.load(open(os.path.join(ROOT, "bench", "validation", "h200_torch_profile_2026-11-27a.json")))
    top = prof_a["resnet50_amp_b256_profile"]["top_kernels_ms_per_step"]
    bn_f = sum(k[1] for k in top if "batchnorm_fw" in k[0]) * 1e-3
    bn_b = sum(k[1] for k in top if "batchnorm_bw" in k[0]) * 1e-3
    now_f = (fwd_el * 256 + bn_params) * 2 / COPY_RATE
    now_b = (bwd_el * 256 + 2 * bn_params) * 2 / COPY_RATE
    f32 = {k: [r for r in kept if r["kernel"] == k and r["dtype"] == "fp32"] for k in bn_rows}
    worst = {k: min(rs, key=lambda r: dtsim_time(r) / r["seconds"]) for k, rs in f32.items()}
    w(f"**Batch norm (training statistics; fp16 channels-last at {bn_ratio['batch_norm_fwd']:.2f} and "
      f"{bn_ratio['batch_norm_bwd']:.2f} of measured forward and backward, fp32 NCHW down to "
      f"{dtsim_time(worst['batch_norm_fwd']) / worst['batch_norm_fwd']['seconds']:.2f} and "
      f"{dtsim_time(worst['batch_norm_bwd']) / worst['batch_norm_bwd']['seconds']:.2f} at "
      f"{shape_text(worst['batch_norm_fwd'])}).** dtsim's ResNet-50 table counts 3 passes forward and 5 backward at "
      f"the copy figure; the fp16 channels-last kernels take {1 / bn_ratio['batch_norm_fwd']:.1f} and "
      f"{1 / bn_ratio['batch_norm_bwd']:.2f} times that (medians), fp32 NCHW with 64 channels of 112 x 112 three to "
      "five times (the probe kept no trace of which kernel PyTorch chose; few channels, each reduced over batch x "
      "height x width, so little parallelism, is the likely cause). Rule: a batch-norm share per layout, fitted on "
      "the probe's fp16 channels-last rows (the ratios above); checked on ResNet-50's AMP step at batch 256 "
      "(bench/validation/h200_torch_profile_2026-11-27a.json, "
      f"its cuDNN batch-norm kernels among the 25 longest, so a lower bound): forward {bn_f * 1e3:.2f} ms measured, "
      f"{now_f / bn_ratio['batch_norm_fwd'] * 1e3:.2f} by the share, {now_f * 1e3:.2f} now; backward "
      f"{bn_b * 1e3:.2f}, {now_b / bn_ratio['batch_norm_bwd'] * 1e3:.2f}, {now_b * 1e3:.2f}.")
    w("")
    # 9. bf16 kernels that do not stream.
    rate = {}
    for k, dt in (("gelu_fwd", "bf16"), ("gelu_fwd", "fp32"), ("softmax_fwd", "bf16"), ("softmax_fwd", "fp32"),
                  ("dropout_fwd", "bf16"), ("dropout_fwd", "fp32")):
        big = summary[(k, dt)][2]
        rate[(k, dt)] = n_of(big) / big["seconds"]
    w("**Kernels bound by their arithmetic, not their bytes (bf16 GELU forward, softmax over 1,024 to 8,192 "
      "columns, dropout).** At half the bytes an element, bf16 GELU does the same fp32 erf: "
      f"{rate[('gelu_fwd', 'bf16')] / 1e9:.0f} G elements/s against fp32's {rate[('gelu_fwd', 'fp32')] / 1e9:.0f} "
      "(which streams); the attention-shaped softmax (a variant that keeps the row on chip, one block a row) runs "
      f"{rate[('softmax_fwd', 'fp32')] / 1e9:.0f} and {rate[('softmax_fwd', 'bf16')] / 1e9:.0f} G elements/s in "
      "fp32 and bf16, the same in both, so not bytes; dropout (Philox random numbers and a mask byte an element) "
      f"reaches {summary[('dropout_fwd', 'fp32')][1]:.2f} and {summary[('dropout_fwd', 'bf16')][1]:.2f} of 4.8 TB/s "
      f"({rate[('dropout_fwd', 'fp32')] / 1e9:.0f} and {rate[('dropout_fwd', 'bf16')] / 1e9:.0f} G elements/s: "
      "neither its bytes nor a fixed element rate set it alone). "
      "dtsim's compute term charges these 1 to 8 FLOPs an element at the fp32 peak (67 TFLOP/s: 8 to 67 T "
      "elements/s), a bound they never meet. Rule: an element-rate ceiling per op (max(bytes / rate, elements / "
      "ceiling)), fitted "
      "on the H200's bf16 rows; whether it carries is a second GPU's bf16 rows (NeuSight has fp32 only, where these "
      "ops stream). In a Llama step none of these runs (no dropout, flash attention); in BERT or a GPT with dropout "
      "and eager attention they do.")
    w("")


TRACE_GROUPS = None


def trace_groups():
    """The Llama step's kernels (its Kineto trace) by the groups the step table compares: group -> (seconds,
    kernels, bytes of the casts)."""
    global TRACE_GROUPS
    if TRACE_GROUPS is not None:
        return TRACE_GROUPS
    trace = json.load(gzip.open(TRACE))["traceEvents"]
    ops = {e["args"].get("External id"): e for e in trace if e.get("cat") == "cpu_op"}
    groups = {}

    def add(name, seconds, nbytes=0.0):
        t, n, b = groups.get(name, (0.0, 0, 0.0))
        groups[name] = (t + seconds, n + 1, b + nbytes)
    for e in trace:
        if e.get("cat") != "kernel":
            continue
        kname = e["name"]
        op = ops.get(e["args"].get("External id"), {})
        name = op.get("name", "")
        args = op.get("args", {})
        dims = args.get("Input Dims", [])
        types = args.get("Input type", [])
        t = e["dur"] * 1e-6
        numel = 1
        first = dims[0] if dims and isinstance(dims[0], list) else []
        for x in first:
            numel *= x if isinstance(x, int) else 1
        if re.search(r"nvjet|cutlass|gemm|xmma", kname) and "sdpa" not in kname:
            add("GEMMs", t)
        elif re.search(r"sdpa|flash|cudnn::fusion", kname):
            add("attention", t)
        elif "_fused_rms_norm" in name:
            add("RMSNorm (fused F.rms_norm)", t)
        elif "_fused_adamw" in name:
            add("optimizer (fused AdamW)", t)
        elif name == "aten::copy_" and types[:2] == ["float", "c10::BFloat16"]:
            # The kernel covers its share of the op's elements (an op of over 2^31 bytes runs as two kernels).
            grid = e["args"].get("grid", [0])[0] * e["args"].get("block", [0])[0]
            add("casts up, bf16 to fp32", t, 6 * min(numel, grid * 4))
        elif name == "aten::copy_" and types[:2] == ["c10::BFloat16", "float"]:
            grid = e["args"].get("grid", [0])[0] * e["args"].get("block", [0])[0]
            add("casts down, fp32 to bf16", t, 6 * min(numel, grid * 8))
        elif name == "aten::copy_" or (name == "aten::sum" and len(first) == 5):
            add("repeat_kv and head-layout copies", t)
        elif name == "aten::add_" and types[:2] == ["float", "float"] and len(first) == 2:
            add(".grad accumulation", t)
        elif name in ("aten::add", "aten::add_") and len(first) == 3 and first[-1] == 4096:
            add("residual adds and gradient sums", t)
        elif name in ("aten::silu", "aten::silu_backward") or (name == "aten::mul" and first[-1:] == [14336]):
            add("SwiGLU (eager)", t)
        elif name in ("aten::neg", "aten::cat", "aten::mul", "aten::add", "aten::add_") and (
                len(first) == 4 or (first and isinstance(first[0], list) and len(first[0]) == 4)):
            add("rotary (rotate_half)", t)
        elif name == "aten::_log_softmax":
            add("loss: log_softmax forward", t)
        elif name in ("aten::_log_softmax_backward_data", "aten::nll_loss_backward") or (
                name == "aten::fill_" and dims and dims[0] == [8192, 128256]):
            add("loss: log_softmax backward, nll's zero fill", t)
        elif name == "aten::embedding_dense_backward" or (name == "aten::fill_" and dims and
                                                         dims[0] == [128256, 4096]):
            add("embedding backward (fill, sort, segment sums)", t)
        else:
            add("other", t)
    TRACE_GROUPS = groups
    return groups


def llama_step(w, kept):
    """The Llama-3-shaped step's memory-bound kernels by group: the trace against dtsim's closed forms for the same
    ops (transformer_ops.cpp, pointwise.cpp, optimizer_step.cpp, hybrid/work.cpp, as `dtsim kernels
    scenarios/llama3_8l_pytorch_h200.yaml` lists them) and against the rules above."""
    llama = json.load(open(LLAMA))
    s = llama["shape"]
    g = trace_groups()
    probe = json.load(open(PROBE))["rows"]
    earlier = json.load(open(EARLIER))["rows"]
    T, h, L, m, V, f = s["seq"] * s["micro_batch"], s["hidden"], s["layers"], s["micro_batches"], s["vocab"], s["ffn"]
    kvd = s["kv_heads"] * h // s["heads"]
    P = llama["parameters"]
    th = T * h
    W = L * (h * (h + 2 * kvd) + h * h + 3 * f * h) + V * h  # the weights autocast casts: the blocks' and the head's
    # The rules' fitted numbers, as the section above fits them.
    opt_share = statistics.median(r["bytes"] / r["seconds"] / Z["bw"] for r in probe
                                  if r["kernel"] == "adamw_fused" and r["bytes"] >= 1e9)
    up_share = statistics.median(r["bytes"] / r["seconds"] / Z["bw"] for r in earlier
                                 if r["kernel"] == "cast_bf16_to_fp32" and r["bytes"] >= 2e8)
    r_strided = statistics.median(n_of(r) / r["seconds"] for r in kept if r["kernel"] == "heads_permute_copy")
    zero32 = next(r["bytes"] / r["seconds"] for r in kept if r["kernel"] == "zero" and r["dtype"] == "fp32" and
                  r["shape"] == [16384, 8192])
    r_seg = statistics.median(r["shape"][0] * r["shape"][1] / (r["seconds"] - r["shape"][2] * r["shape"][1] *
                              B[r["dtype"]] / next(z["bytes"] / z["seconds"] for z in kept if z["kernel"] == "zero"
                                                   and z["dtype"] == r["dtype"] and z["shape"] == [16384, 8192]))
                              for r in probe if r["kernel"] == "embedding_bwd" and r["shape"][0] == 8192)
    c = COPY_RATE
    rot = T * (h + kvd) * L * m  # elements rotated per step (queries and keys)
    # A fused two-pass RMSNorm on the fp32 residual stream (autocast): forward and backward bytes an element.
    norm_rule = (2 * L + 1) * m * (8 * th + reread_miss(h * 4, th * 4) +
                                   20 * th + reread_miss(2 * h * 4, 2 * th * 4)) / c
    # Strided copies: repeat_kv's k and v expanded to the query heads, the context transposed back to tokens, and
    # k's and v's gradients back to their projections' layout (elements); the backward's sums over the repeats
    # stream their bf16 bytes.
    layout_rule = L * m * ((2 * th + th + 2 * T * kvd) / r_strided + 2 * (th + T * kvd) * 2 / c)
    rows = [
        ("RMSNorm (fused F.rms_norm)", "ln1, ln2, final norm: eager op by op, 28 + 92 B an fp32 element",
         (2 * L + 1) * m * 120 * th / c, norm_rule,
         "one fused two-pass kernel in PyTorch 2.11, not op by op"),
        ("casts up, bf16 to fp32", "logits cast; weight and input casts' backward: 6 B, 2 inputs a layer",
         m * (T * V + W + (2 * L + 1) * th) * 6 / c, m * (T * V + W + (5 * L + 1) * th) * 6 / (up_share * Z["bw"]),
         f"the up-cast's share ({up_share:.2f}); an input cast per Linear (5 a layer)"),
        ("casts down, fp32 to bf16", "weight and input casts; the logits cast's backward",
         m * (T * V + W + (2 * L + 1) * th) * 6 / c, m * (T * V + W + (7 * L + 1) * th) * 6 / c,
         "an input cast per Linear, and the residual branches' gradients cast down (2 a layer)"),
        ("optimizer (fused AdamW)", "optimizer step: 28 B a parameter", 28 * P / c, 28 * P / (opt_share * Z["bw"]),
         f"the multi-tensor share ({opt_share:.3f})"),
        ("rotary (rotate_half)", "rotary, eager: 20 B an element each way", 2 * 20 * rot / c,
         2 * 4.5 * rot / r_strided, f"five strided kernels each way at {r_strided / 1e9:.0f} G elements/s"),
        ("loss: log_softmax forward", "cross-entropy: 8 B a logit", m * 8 * T * V / c, m * 16 * T * V / c,
         "three reads and a write"),
        ("loss: log_softmax backward, nll's zero fill", "cross-entropy bwd: 16 B a logit", m * 16 * T * V / c,
         m * 20 * T * V / c, "the fill and four passes"),
        ("repeat_kv and head-layout copies", "none (cuDNN takes the 8 key-value heads as they are)", 0.0,
         layout_rule, "the model's repeat_kv and transposes as strided copies, its sums streaming"),
        ("embedding backward (fill, sort, segment sums)", "embedding bwd: 3 T h B", m * 3 * th * 4 / c,
         m * (V * h * 4 / zero32 + th / r_seg), f"the table's fill and {r_seg / 1e9:.0f} G elements/s"),
        ("SwiGLU (eager)", "activation, eager: 5 + 9 B an element of 14,336", L * m * T * f * 14 * 2 / c, None, ""),
        ("residual adds and gradient sums", "dropout+residual: 11 B fwd, 22 bwd (with a mask byte); the "
         "embedding's dropout, 9 B each way", m * (L * 2 * (11 + 22) + 2 * 9) * th / c, None, ""),
        (".grad accumulation", "weight cast bwd's 12 B x (m - 1) / m", W * 12 * (m - 1) / c, None, ""),
        ("gradient unscale and norm", "3 passes over bf16 gradients", 3 * P * 2 / c, None, ""),
    ]
    w("### The Llama-3-shaped step: where the memory-bound classes put dtsim's step")
    w("")
    w(f"bench/validation/h200_llama_probe_2026-11-30.json measured {llama['plain']['step_s_median'] * 1e3:.1f} ms a "
      f"step ({L} layers of Meta-Llama-3-8B, sequence {s['seq']}, {m} micro-batches, bf16 autocast, fused AdamW); "
      f"`dtsim run scenarios/llama3_8l_pytorch_h200.yaml` gives {DTSIM_STEP * 1e3:.0f} ms "
      f"({100 * (DTSIM_STEP / llama['plain']['step_s_median'] - 1):+.1f} %). Its trace "
      "(tests/calibrate/data/h200_llama_step.json.gz) ties each kernel to the operator that issued it; the groups "
      "below are those operators, and dtsim's column the same ops as `dtsim kernels` lists them (its closed forms "
      "here; at commit 4290288 they match the listing: norms 32.0 ms, optimizer 18.3, rotary 6.3, loss 3.9 + 7.9). "
      "Sorted by how far dtsim is from the measurement now.")
    w("")
    w("| group | kernels | measured (ms) | dtsim now (ms) | dtsim's ops | with the rules above (ms) | the rule |")
    w("|---|---:|---:|---:|---|---:|---|")
    tot = [0.0, 0.0, 0.0]
    for name, ops, now, rule, why in sorted(rows, key=lambda r: -abs(r[2] - g.get(r[0], (0.0, 0))[0])):
        t, n = g.get(name, (0.0, 0, 0.0))[:2]
        eff = rule if rule is not None else now
        tot[0] += t
        tot[1] += now
        tot[2] += eff
        w(f"| {name} | {n} | {t * 1e3:.1f} | {now * 1e3:.1f} | {ops} | "
          f"{'-' if rule is None else f'{rule * 1e3:.1f}'} | {why or 'unchanged'} |")
    w(f"| all of these | | {tot[0] * 1e3:.1f} | {tot[1] * 1e3:.1f} | | {tot[2] * 1e3:.1f} | |")
    w("")
    w(f"The GEMMs ({g['GEMMs'][0] * 1e3:.1f} ms measured) and attention ({g['attention'][0] * 1e3:.1f} ms) are "
      f"outside this file (dtsim at 4290288: {DTSIM_GEMM * 1e3:.0f} and {DTSIM_ATTENTION * 1e3:.1f} ms). "
      "Of the step's memory-bound kernels dtsim now puts "
      f"{tot[1] * 1e3:.0f} ms where the GPU spent {tot[0] * 1e3:.0f}; its near-agreement on the whole step is "
      "GEMMs priced slow and RMSNorm priced op by op covering casts, rotary, the loss, the optimizer and the copies "
      "priced fast. The residual adds and gradient sums (a mixed fp32 + bf16 add runs unrolled at about half the "
      "copy figure; autograd sums the gradients of a tensor read by several Linears: 3 a layer), the .grad sums "
      "(the embedding's, which dtsim does not cast, is missing) and the unscale-and-norm (the probe runs no "
      "GradScaler and no clipping; dtsim adds it here) are counts, not rates: a framework setting each.")
    w("")
    after = DTSIM_STEP + tot[2] - tot[1]
    measured = llama["plain"]["step_s_median"]
    w(f"With every rule the memory-bound kernels come to {tot[2] * 1e3:.0f} ms and dtsim's step to about "
      f"{after * 1e3:.0f} ms ({100 * (after / measured - 1):+.1f} %), the rest of its error then the GEMMs'.")
    w("")
    w("### Recommended changes, by their effect on this step")
    w("")
    effects = sorted(((name, (rule - now) * 1e3, why) for name, _, now, rule, why in rows if rule is not None),
                     key=lambda e: -abs(e[1]))
    for i, (name, eff, why) in enumerate(effects, 1):
        w(f"{i}. {name}: {eff:+.1f} ms ({why}).")
    w("")
    w("Each rule's fit and check are the section above: shares and rates fitted on probe rows (or the first H200 "
      "run), checked on other rows and on the Llama step, never on the rows that fitted them; RMSNorm and the loss "
      "take pass counts from the kernels' source and nothing fitted. For a GPT (LayerNorm, GELU, tied embedding, "
      "vocabulary 50,304) the same rules apply but RMSNorm's: its loss runs at 50,304 columns (still the "
      "three-read kernel), its casts and optimizer as here, its attention through SDPA (no repeat_kv).")
    w("")


def main():
    probe = json.load(open(PROBE))
    rows = [r for r in probe["rows"] if r["kernel"] in OPS]
    kept, floor = kept_rows(rows)
    out = []
    w = out.append
    w("## Memory-bound classes on an H200, each against dtsim's cost of the same op")
    w("")
    w("Written by `bench/kernels/memory_classes_h200.py` (its header says how) from")
    w(f"`bench/validation/h200_memory_probe_2026-11-30.json` ({len(probe['rows'])} rows, {probe['device']}, PyTorch "
      f"{probe['torch']}; scripts/torch_memory_probe.py).")
    w(f"dtsim's rate for these classes on the zoo's h200: {Z['bw'] / 1e9:,.0f} GB/s x memory {Z['memory']:.2f} = "
      f"{COPY_RATE / 1e9:,.0f} GB/s (models/zoo/kernel.cpp, kernel_cost: `bandwidth = device.mem_bandwidth * "
      f"p.memory`, the default branch), layout copies at x layout_copy {Z['layout_copy']:.2f} = "
      f"{Z['bw'] * Z['layout_copy'] / 1e9:,.0f} GB/s; a two-pass norm's second read from L2 with f = {Z['f']:.2f} "
      "(models/zoo/reread.cpp). Each row's dtsim time is that op's bytes as dtsim counts them (the table's last "
      "column: where) at that rate, or its FLOPs at the fp32 peak where slower (never, here); the ratio is dtsim / "
      "measured: below 1 dtsim is fast (too optimistic), above 1 slow.")
    w("")
    dropped = len(rows) - len(kept)
    w(f"Rows kept: {len(kept)} of {len(rows)}; {dropped} were left out as the host's time (each under twice its "
      "kernel's time at 2048 x 1024, which the host sets: "
      + ", ".join(f"{k} {v * 1e6:.0f} us" for k, v in sorted(floor.items(), key=lambda kv: kv[1])[:4]) + ", ... "
      f"up to {max(floor.values()) * 1e6:.0f} us for the eager rotary's backward).")
    # Repeatability: the kinds measured twice.
    earlier = {(r["kernel"], r["dtype"], tuple(r["shape"])): r["seconds"] for r in json.load(open(EARLIER))["rows"]}
    diffs = [abs(r["seconds"] / earlier[(r["kernel"], r["dtype"], tuple(r["shape"]))] - 1) for r in kept
             if (r["kernel"], r["dtype"], tuple(r["shape"])) in earlier]
    w(f"The {len(diffs)} kept rows measured a first time on 2026-11-27 (bench/published/h200_memory_kernels.json) "
      f"moved by a median {100 * statistics.median(diffs):.1f} % (largest {100 * max(diffs):.1f} %): differences "
      "under a few per cent below are noise.")
    w("")
    # The per-class table.
    w("### Per kernel: measured against dtsim")
    w("")
    w("Median over the kept rows of the kernel and dtype, and its largest shape; `share` is what the kernel "
      "reaches counted as dtsim counts its bytes, over the data sheet's 4.8 TB/s (dtsim's figure: "
      f"{Z['memory']:.2f}, layout copies {Z['layout_copy']:.2f}).")
    w("")
    w("| class | kernel | dtype | rows | largest shape | measured (us) | dtsim (us) | dtsim / measured: median "
      "(range) | dtsim is | share | dtsim counts (where) |")
    w("|---|---|---|---:|---|---:|---:|---:|---|---:|---|")
    summary = {}
    for group, kernels in GROUPS:
        for k in kernels:
            dtypes = sorted({r["dtype"] for r in kept if r["kernel"] == k}, key=lambda d: (d != "fp32", d))
            for dt in dtypes:
                rs = [r for r in kept if r["kernel"] == k and r["dtype"] == dt]
                ratios = [dtsim_time(r) / r["seconds"] for r in rs]
                big = max(rs, key=lambda r: r["bytes"])
                cls, nbytes, _, code = OPS[k]
                share = nbytes(big) / big["seconds"] / Z["bw"]
                med = statistics.median(ratios)
                summary[(k, dt)] = (med, share, big)
                w(f"| {group} | {k} | {dt} | {len(rs)} | {shape_text(big)} | {fmt_us(big['seconds'])} | "
                  f"{fmt_us(dtsim_time(big))} | {med:.2f} ({min(ratios):.2f}-{max(ratios):.2f}) | {verdict(med)} | "
                  f"{share:.2f} | {code} |")
    w("")
    cross_gpu(w, kept, summary)
    probe_mechanisms(w, kept, summary)
    llama_step(w, kept)
    text = "\n".join(out) + "\n"
    return write_or_check(OUT, text, "memory_classes_h200")


if __name__ == "__main__":
    sys.exit(main())
