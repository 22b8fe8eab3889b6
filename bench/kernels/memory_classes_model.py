# What dtsim charges for the memory-bound classes of issue #46, as bench/kernels/memory_classes_h200.py counts it (the
# modules memory_classes_*.py share it). From the code's data only: the zoo's h200 (models/zoo/data/devices.yaml:
# mem_bandwidth, the `memory` and `layout_copy` shares, the fp32 peak, SMs, L2, the compute capability, and the BERT
# copies its layout_copy note cites), the second read of a two-pass norm (models/zoo/reread.cpp: rows resident per SM
# at that compute capability; models/zoo/reread.hpp: kL2RowShare), ResNet-50's batch-norm rows
# (models/zoo/data/models/resnet50.yaml); and OPS, per kernel of the H200 memory probe, the dtsim op that is the same
# work: its bytes and FLOPs at the probe's shape, as the code counts them, and where. OPS is this script's reading of
# the code: memory_classes_dtsim.py holds each count to a dtsim run of the same op. Also the paths and the small
# helpers the memory_classes modules share. Standard library only.
#
# dtsim's rule for these classes (models/zoo/kernel.cpp, kernel_cost): softmax, elementwise, norm and embedding
# kernels move their bytes at mem_bandwidth x `memory`, or their FLOPs at the fp32 peak if that is slower;
# layout_copy at mem_bandwidth x `layout_copy`; a two-pass norm adds the bytes of its second read that miss L2
# (models/zoo/reread.cpp); the optimizer step is an elementwise op of its traffic (models/cost/cost_model.cpp,
# update_time). The bytes of each op are counted in models/parallel/transformer_ops.cpp, models/parallel/pointwise.cpp,
# core/plan/optimizer_step.cpp and the ResNet-50 layer table (through core/plan/worker.cpp, layer_op).
import os
import re
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PROBE = os.path.join(ROOT, "bench", "validation", "h200_memory_probe_2026-11-30.json")
EARLIER = os.path.join(ROOT, "bench", "published", "h200_memory_kernels.json")
LLAMA = os.path.join(ROOT, "bench", "validation", "h200_llama_probe_2026-11-30.json")
TRACE = os.path.join(ROOT, "tests", "calibrate", "data", "h200_llama_step.json.gz")
ZOO = os.path.join(ROOT, "models", "zoo", "data", "devices.yaml")
REREAD = os.path.join(ROOT, "models", "zoo", "reread.hpp")
REREAD_CPP = os.path.join(ROOT, "models", "zoo", "reread.cpp")
RESNET50 = os.path.join(ROOT, "models", "zoo", "data", "models", "resnet50.yaml")


def rows_resident_per_sm(cc):
    """models/zoo/reread.cpp's rows_resident_per_sm: min(threads / kThreadsPerRow, blocks) for compute capability cc
    (as 90), the threads and blocks of the branch that names cc, else the defaults."""
    text = open(REREAD_CPP).read()
    body = text[text.index("int rows_resident_per_sm"):]
    body = body[:body.index("\n}\n")]
    per_row = int(re.search(r"kThreadsPerRow = (\d+);", body).group(1))
    threads = int(re.search(r"int threads = (\d+);", body).group(1))
    blocks = int(re.search(r"int blocks = (\d+);", body).group(1))
    for cond, t, b in re.findall(r"if \(([^)]*)\) \{\s*threads = (\d+);\s*blocks = (\d+);", body):
        if cc in [int(x) for x in re.findall(r"cc == (\d+)", cond)]:
            threads, blocks = int(t), int(b)
    return min(threads // per_row, blocks)


def zoo_h200():
    """The h200 entry's figures these scripts use, read from the zoo."""
    text = open(ZOO).read()
    entry = text[text.index("\n  h200:") + 1:]
    end = re.search(r"\n  [a-z0-9_]+:\n", entry)
    entry = entry[:end.start()] if end else entry

    def number(key):
        return float(re.search(r"\n\s+" + key + r":\s*([0-9.]+)", entry).group(1))
    l2 = re.search(r"\n\s+l2:\s*([0-9]+)MiB", entry).group(1)
    share = float(re.search(r"kL2RowShare = ([0-9.]+)", open(REREAD).read()).group(1))
    cc = round(number("compute_capability") * 10)
    # The measurement layout_copy's note cites: BERT-Large's permuted-heads copies, MB each and us apiece.
    bert = re.search(r"([0-9.]+) MB each\) took ([0-9.]+) us\s+apiece", entry)
    return {"bw": number("mem_bandwidth") * 1e9, "fp32": number("fp32") * 1e12, "memory": number("memory"),
            "layout_copy": number("layout_copy"), "sms": number("sms"), "l2": float(l2) * (1 << 20), "f": share,
            "rows_per_sm": rows_resident_per_sm(cc), "bert_copy_bytes": float(bert.group(1)) * 1e6,
            "bert_copy_s": float(bert.group(2)) * 1e-6}


Z = zoo_h200()
COPY_RATE = Z["bw"] * Z["memory"]  # what every memory-bound class but layout_copy streams at
BW_TEXT = f"{Z['bw'] / 1e12:.1f} TB/s"  # the data sheet's bandwidth, the zoo's mem_bandwidth
B = {"fp32": 4, "bf16": 2, "fp16": 2}


def reread_miss(row_bytes, nbytes):
    """Bytes of a second read that come from memory (models/zoo/reread.cpp, reread_memory_bytes)."""
    hit = min(1.0, Z["f"] * Z["l2"] / (Z["sms"] * Z["rows_per_sm"] * row_bytes))
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
        return n * (16 if fwd else 20)
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
                     "eager dtsim prices it op by op instead: {rms_eager_fwd})"),
    "rms_norm_bwd": ("norm", norm_bytes(False), lambda r: 8 * n_of(r),
                     "as layer_norm_bwd, fused (eager: {rms_eager_bwd})"),
    "softmax_fwd": ("softmax", lambda r: 2 * n_of(r) * elem(r), lambda r: 5 * n_of(r),
                    "transformer_ops.cpp attention_core softmax: 2B"),
    "softmax_bwd": ("softmax", lambda r: 4 * n_of(r) * elem(r), lambda r: 10 * n_of(r),
                    "backward_of: 4B (the kernel: 3B)"),
    "cast_fp32_to_bf16": ("elementwise", lambda r: 6 * n_of(r), lambda r: 0, "transformer_ops.cpp cast: 4 + 2 B"),
    "cast_bf16_to_fp32": ("elementwise", lambda r: 6 * n_of(r), lambda r: 0, "transformer_ops.cpp cast: 4 + 2 B"),
    "swiglu_fwd": ("elementwise", lambda r: 5 * n_of(r) * elem(r), lambda r: 8 * n_of(r),
                   "pointwise.cpp swiglu_traffic, eager (silu, then the product): 5B; fused {swiglu_fused_fwd}"),
    "swiglu_bwd": ("elementwise", lambda r: 9 * n_of(r) * elem(r), lambda r: 16 * n_of(r),
                   "swiglu_traffic eager: 9B (the product's two gradients, silu's); fused {swiglu_fused_bwd}"),
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
    "rotary_bwd_eager": ("elementwise", lambda r: n_of(r) * (20 if r["dtype"] == "bf16" else 8), lambda r: 6 * n_of(r),
                         "the same backward"),
    "zero": ("elementwise", lambda r: n_of(r) * elem(r), lambda r: 0,
             "no op of its own (the zero-filled gradient inside cross_entropy_traffic's 20): one write"),
    "cross_entropy_fwd": ("softmax", lambda r: ce(r, True), lambda r: 5 * n_of(r),
                          "transformer_ops.cpp head_forward, pointwise.cpp cross_entropy_traffic: log_softmax on fp32 "
                          "logits, three reads and a write, 16 B (bf16 logits: shown at 2B; {ce_bf16})"),
    "cross_entropy_bwd": ("elementwise", lambda r: ce(r, False), lambda r: n_of(r),
                          "head_backward: the zero-filled gradient, the sum's read and log_softmax's write pass, 20 B (bf16: shown at 4B)"),
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


def flop_bound(r):
    """Whether dtsim's compute term, not its bytes, sets the row's time."""
    cls, nbytes, flops, _ = OPS[r["kernel"]]
    return flops(r) / Z["fp32"] > nbytes(r) / rate_of(cls)


def resnet50_bn():
    """The passes ResNet-50's batch-norm rows (resnet50.yaml) make over their activations, forward and backward
    (traffic / activations: the same on every row)."""
    passes = set()
    for line in open(RESNET50):
        f = [x.strip() for x in line.strip()[3:-1].split(",")] if line.strip().startswith("- [") else []
        if f and f[1] == "norm":
            passes.add((float(f[9]) / float(f[5]), float(f[10]) / float(f[5])))
    assert len(passes) == 1, passes
    return passes.pop()


def fmt_us(s):
    return f"{s * 1e6:,.0f}" if s >= 1e-4 else f"{s * 1e6:.1f}"


def as_count(x):
    """A count read back from a run: whole when it is whole (to 0.1 %), else two decimals."""
    return f"{round(x):,}" if abs(x - round(x)) <= 1e-3 * max(1.0, abs(x)) else f"{x:.2f}"


def times(x):
    """A ratio in words: once, twice, else N times."""
    if abs(x - round(x)) >= 1e-3:
        return f"{x:.2f} times"
    return {1: "once", 2: "twice"}.get(round(x), f"{as_count(x)} times")


def shape_text(r):
    return " x ".join(str(x) for x in r["shape"])


def verdict(ratio):
    if ratio < 0.95:
        return f"fast by {100 * (1 - ratio):.0f} %"
    if ratio > 1.05:
        return f"slow by {100 * (ratio - 1):.0f} %"
    return "within 5 %"


def med_err(pairs):
    """Median and largest |model / measured - 1| over (model, measured) pairs, and the signed median."""
    e = [m / t - 1 for m, t in pairs]
    return statistics.median(abs(x) for x in e), max(abs(x) for x in e), statistics.median(e)
