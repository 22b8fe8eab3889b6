# The H200 memory probe's rows against dtsim, for bench/kernels/memory_classes_h200.md: which rows are the device's
# time (not the host's), the per-kernel table (measured against the time memory_classes_model.py's counts give at the
# zoo's h200 rates), the cross-GPU question (the H200's fp32 shares of add's rate beside NeuSight's seven GPUs,
# through memory_fit.py's fits of bench/kernels/published/neusight_memory_kernels.csv) and the mechanisms behind the
# largest misses, each with a rule, the rows that fit it and the rows that check it (never the same). Data:
# bench/validation/h200_memory_probe_2026-11-30.json, bench/published/h200_memory_kernels.json (the same kinds a first
# time), bench/validation/h200_torch_profile_2026-11-27a.json and -27b.json (ResNet-50's and BERT-Large's steps), the
# Llama step's trace (memory_classes_llama.py's groups); every figure of dtsim's is the code's data or its runs
# (memory_classes_dtsim.py). Standard library only.
import json
import os
import statistics

import memory_fit
from memory_classes_llama import trace_groups
from memory_classes_model import (BW_TEXT, COPY_RATE, EARLIER, GROUPS, LLAMA, OPS, PROBE, ROOT, Z, as_count,
                                  dtsim_time, elem, fmt_us, med_err, n_of, resnet50_bn, shape_text, times, verdict)

def kept_rows(rows):
    """The rows where the device, not the host, sets the time (header: Rows kept)."""
    floor = {}
    for r in rows:
        if r["shape"] == [2048, 1024]:
            floor[r["kernel"]] = min(floor.get(r["kernel"], 1.0), r["seconds"])
    return [r for r in rows if r["seconds"] >= 2 * floor.get(r["kernel"], 0.0)], floor


def notes(sim):
    """The figures OPS's notes name that only a run gives: eager RMSNorm, fused SwiGLU, the loss on bf16 logits."""
    sh = json.load(open(LLAMA))["shape"]
    t = sh["seq"] * sh["micro_batch"]
    th, tf, tv = t * sh["hidden"], t * sh["ffn"], t * sh["vocab"]

    def pair(op, what):
        b16, b32 = as_count(sim.bpe("eager bf16", op, th)), as_count(sim.bpe("eager fp32", op, th))
        return f"{b16} B {what}" if b16 == b32 else f"{b16} B {what} in bf16, {b32} in fp32"
    return {"rms_eager_fwd": pair("fwd L* ln1", "an element"), "rms_eager_bwd": pair("bwd L* ln1 bwd", "an element"),
            "swiglu_fused_fwd": as_count(sim.bpe("fused bf16", "fwd L* activation", tf) / 2) + "B",
            "swiglu_fused_bwd": as_count(sim.bpe("fused bf16", "bwd L* activation bwd", tf) / 2) + "B",
            "ce_bf16": "dtsim's fused loss reads them at "
                       f"{as_count(sim.bpe('gpt bf16', 'head cross-entropy', tv))} B a "
                       f"logit forward, {as_count(sim.bpe('gpt bf16', 'head cross-entropy bwd', tv))} backward"}


def per_kernel(w, kept, sim):
    """The per-kernel table; returns (kernel, dtype) -> (median ratio, share, largest row)."""
    w("### Per kernel: measured against dtsim")
    w("")
    w("Median over the kept rows of the kernel and dtype, and its largest shape; `share` is what the kernel "
      f"reaches counted as dtsim counts its bytes, over the data sheet's {BW_TEXT} (dtsim's figure: "
      f"{Z['memory']:.2f}, layout copies {Z['layout_copy']:.2f}).")
    w("")
    w("| class | kernel | dtype | rows | largest shape | measured (us) | dtsim (us) | dtsim / measured: median "
      "(range) | dtsim is | share | dtsim counts (where) |")
    w("|---|---|---|---:|---|---:|---:|---:|---|---:|---|")
    summary = {}
    fill = notes(sim)
    for group, kernels in GROUPS:
        for k in kernels:
            dtypes = sorted({r["dtype"] for r in kept if r["kernel"] == k}, key=lambda d: (d != "fp32", d))
            for dt_ in dtypes:
                rs = [r for r in kept if r["kernel"] == k and r["dtype"] == dt_]
                ratios = [dtsim_time(r) / r["seconds"] for r in rs]
                big = max(rs, key=lambda r: r["bytes"])
                cls, nbytes, _, code = OPS[k]
                share = nbytes(big) / big["seconds"] / Z["bw"]
                med = statistics.median(ratios)
                summary[(k, dt_)] = (med, share, big)
                w(f"| {group} | {k} | {dt_} | {len(rs)} | {shape_text(big)} | {fmt_us(big['seconds'])} | "
                  f"{fmt_us(dtsim_time(big))} | {med:.2f} ({min(ratios):.2f}-{max(ratios):.2f}) | {verdict(med)} | "
                  f"{share:.2f} | {code.format(**fill)} |")
    w("")
    return summary


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
    fitted = {o: statistics.median(shares[(d, o)] for d in memory_fit.FIT) for o in ("ln", "softmax")}
    w("### The cross-GPU question: the H200's fp32 shares beside NeuSight's seven GPUs")
    w("")
    w("Each op's streaming rate over `add`'s on the same GPU (the elements read and written, 4 bytes each; NeuSight's "
      "from memory_fit.py's fits, the H200's at each of its two largest shapes). A share that carries across GPUs is "
      f"one number a class could take; memory_fit.py fitted LayerNorm {fitted['ln']:.2f} and softmax "
      f"{fitted['softmax']:.2f} on V100 and A100 40GB.")
    w("")
    w("| GPU | L2 | " + " | ".join(NAMES[o] for o in NEUSIGHT) + " |")
    w("|---|---:|" + "---:|" * len(NEUSIGHT))
    for d in devices:
        cells = [f"{shares[(d, o)]:.2f}" if (d, o) in shares else "-" for o in NEUSIGHT]
        w(f"| {d}{' (fit)' if d in memory_fit.FIT else ''} | {memory_fit.GPU[d][1] >> 20} MB | " + " | ".join(cells) +
          " |")
    for shape, s in h200.items():
        w(f"| NVIDIA H200, {shape[0]} x {shape[1]} | {Z['l2'] / (1 << 20):.0f} MB | " +
          " | ".join(f"{s[o]:.2f}" for o in NEUSIGHT) + " |")
    w("")
    ln_fp32 = ", ".join(f"{summary[(k, 'fp32')][0]:.2f}" for k in ("layer_norm_fwd", "layer_norm_bwd",
                                                                     "rms_norm_fwd", "rms_norm_bwd"))
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
      f"and {h200_sm}: for all its {Z['l2'] / (1 << 20):.0f} MB of L2 the H200 sits with the small-L2 V100, P100, T4 "
      "and P4, not with the "
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



def probe_mechanisms(w, kept, summary, sim):
    """The mechanisms section; dtsim's figures from its runs (sim, memory_classes_dtsim.Dtsim)."""
    probe = json.load(open(PROBE))["rows"]
    llama = json.load(open(LLAMA))
    s = llama["shape"]
    m = s["micro_batches"]
    tok = s["seq"] * s["micro_batch"]
    run = sim.step
    w("### The largest misses: mechanisms, and a rule for each with what fits it and what checks it")
    w("")
    # 1. The optimizer passes.
    fused = [r for r in probe if r["kernel"] == "adamw_fused"]
    fit = [r for r in fused if r["bytes"] >= 1e9]
    opt_share = statistics.median(r["bytes"] / r["seconds"] / Z["bw"] for r in fit)
    t_llama = trace_groups()["optimizer (fused AdamW)"][0]
    p_llama = llama["parameters"]
    prof = json.load(open(os.path.join(ROOT, "bench", "validation", "h200_torch_profile_2026-11-27b.json")))
    bert_t = sum(k[1] for k in prof["bert_large_amp_s384_b32_sdpa_adam_profile"]["top_kernels_ms_per_step"]
                 if "FusedOptimizer" in k[0]) * 1e-3
    p_bert = bert_large_params()
    foreach = {r["shape"][0]: r for r in probe if r["kernel"] == "adamw_foreach"}
    sgd = {r["shape"][0]: r for r in probe if r["kernel"] == "sgd_momentum_foreach"}
    big = 400_000_000
    adam_b = sim.bpe("step", "optimizer step", p_llama)  # dtsim's bytes a parameter: fused, foreach; SGD's foreach
    each_b, sgd_b = sim.bpe("foreach", "optimizer step", p_llama), sim.bpe("momentum", "optimizer step", p_llama)
    e_each = med_err([(84 * r["shape"][0] / (opt_share * Z["bw"]), r["seconds"]) for r in foreach.values()] +
                     [(32 * r["shape"][0] / (opt_share * Z["bw"]), r["seconds"]) for r in sgd.values()])
    w(f"**Optimizer passes (fused AdamW at {summary[('adamw_fused', 'fp32')][1]:.2f} of {BW_TEXT}, dtsim "
      f"{Z['memory']:.2f}).** One multi-tensor kernel reads the parameter, gradient and two moments and writes three "
      "back: seven fp32 streams at once in chunks of 65,536 elements a block (MultiTensorApply.cuh), the moments' "
      "arithmetic with a square root and a division an element. "
      f"dtsim's {as_count(adam_b)} B a parameter is right; the "
      "rate is not. "
      f"Rule: a multi-tensor share, fitted on the probe's fused AdamW over 100M and 400M parameters: {opt_share:.3f} "
      f"of the data sheet ({opt_share / Z['memory']:.2f} of the copy figure). Checked, not fitted: the Llama step's "
      f"fused AdamW ({p_llama / 1e9:.2f} B parameters in {LLAMA_TENSORS} tensors) measured {t_llama * 1e3:.1f} ms, "
      "the share "
      f"gives {adam_b * p_llama / (opt_share * Z['bw']) * 1e3:.1f} ms (dtsim now "
      f"{run.total('optimizer step') * 1e3:.1f}); "
      f"BERT-Large's fused Adam ({p_bert / 1e6:.1f} M parameters in {BERT_TENSORS} tensors, bench/validation/"
      f"h200_torch_profile_2026-11-27b.json) {bert_t * 1e3:.2f} ms, the share gives "
      f"{adam_b * p_bert / (opt_share * Z['bw']) * 1e3:.2f} ms (now {adam_b * p_bert / COPY_RATE * 1e3:.2f}): with "
      "many small "
      "tensors the kernel runs slower still (a per-tensor term would take it; the 25M-parameter rows, "
      f"{min(r['fraction_of_peak'] for r in fused):.2f}, point the same way). torch.optim's foreach step in PyTorch "
      "2.11 is not 1.11's list that dtsim counts: AdamW's decoupled decay, lerp, mul, addcmul, sqrt, div, add and "
      f"addcdiv read and write 21 tensors a parameter (84 B, dtsim {as_count(each_b)}), SGD with momentum and no "
      f"decay 8 (32 B, dtsim {as_count(sgd_b)} with decay); at 400M they reach "
      f"{84 * big / foreach[big]['seconds'] / Z['bw']:.2f} and "
      f"{32 * big / sgd[big]['seconds'] / Z['bw']:.2f} of {BW_TEXT}, near the fused kernel's share: one multi-tensor "
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
      f"up-casts of at least 200 MB (2026-11-27): {up_share:.3f} of {BW_TEXT} (down-casts there: {down_share:.3f}, "
      f"the copy figure stands). Repeated by this run's {len(up_new)} up-casts of the same shapes (median error "
      f"{100 * e_up[0]:.1f} %, largest {100 * e_up[1]:.1f} %) and checked on "
      f"the Llama step's {g['casts up, bf16 to fp32'][1]} up-cast kernels ({up_b / 1e9:.1f} GB): "
      f"{up_t * 1e3:.1f} ms measured, {up_b / (up_share * Z['bw']) * 1e3:.1f} ms by the share "
      f"({up_b / COPY_RATE * 1e3:.1f} at the copy figure); its {g['casts down, fp32 to bf16'][1]} down-casts "
      f"({down_b / 1e9:.1f} GB) {down_t * 1e3:.1f} ms, {down_b / COPY_RATE * 1e3:.1f} at the copy figure. The "
      "count matters as much (the step's table below): autocast casts a Linear's input once per Linear, so "
      "Hugging Face's "
      "separate q, k, v and gate, up projections cast each norm's output five times a layer where dtsim's fused qkv "
      f"and fc1 cast it {times(len(run.names(r'fwd L[*] [^ ]+ input cast')))}, and autograd casts the fp32 "
      "residual's gradient down for each bf16 branch. On another "
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
    ce_b = [sim.bpe("step", op, n_logits) for op in ("head cross-entropy", "head cross-entropy bwd")]
    w(f"**The loss over the vocabulary (forward {summary[('cross_entropy_fwd', 'fp32')][1]:.2f}, backward "
      f"{summary[('cross_entropy_bwd', 'fp32')][1]:.2f} of {BW_TEXT} as dtsim counts them).** A row of 32,000 to "
      "128,256 logits does not fit in shared memory, so PyTorch's log_softmax runs `cunn_SoftMaxForward`, not its "
      "shared-memory or register variants: it reads the row for the maximum, again for the sum of exponentials and "
      f"again to write the output: three reads and a write, where dtsim counts {as_count(ce_b[0] / 4)} passes "
      f"({as_count(ce_b[0])} B an fp32 logit). Backward, nll_loss's "
      "gradient is a zero-filled tensor of the logits' shape (one write) and `cunn_SoftMaxBackward` reads the "
      "gradient for its sum, then the gradient and the output again to write the input's gradient: five passes, "
      f"where dtsim counts {as_count(ce_b[1] / 4)}. Rule: those pass counts (16 B and 20 B an fp32 logit; 8 and 10 "
      f"in bf16) at the copy figure, nothing fitted. Checked on the probe's {len(ce_rows)} rows: " + "; ".join(parts) +
      ". And on the Llama step "
      f"({m} x {n_logits / 1e6:.0f} M fp32 logits): log_softmax {ls[0] * 1e3:.2f} ms measured, "
      f"{m * n_logits * 16 / COPY_RATE * 1e3:.2f} by the rule (dtsim now {run.total('head cross-entropy') * 1e3:.2f}); "
      f"its backward with the fill {lb[0] * 1e3:.2f} ms, {m * n_logits * 20 / COPY_RATE * 1e3:.2f} by the rule "
      f"(now {run.total('head cross-entropy bwd') * 1e3:.2f}). A fused loss (Megatron's, flash-attn's) is a different "
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
    rotated = tok * (s["hidden"] + s["kv_heads"] * s["hidden"] // s["heads"])
    rot_elements = rotated * s["layers"] * m
    rb16, rb32 = sim.bpe("step", "fwd L* rotary", rotated), sim.bpe("eager fp32", "fwd L* rotary", rotated)
    w(f"**Rotary embedding as Hugging Face writes it (eager, {summary[('rotary_fwd_eager', 'bf16')][1]:.2f} of "
      f"{BW_TEXT} in bf16 as dtsim counts it, {summary[('rotary_fwd_eager', 'fp32')][1]:.2f} in fp32).** "
      "`x * cos + rotate_half(x) * sin` is five kernels forward (neg of one half, cat of the halves, two products, "
      "the sum) and five backward (two products, neg, cat, the sum), about ten passes over the tensor where dtsim's "
      f"eager rotary (torchtitan's complex product) counts {as_count(rb16)} B an element in bf16 (as it happens "
      f"{as_count(rb16 / 2)} passes of 2 B) and in fp32 only {as_count(rb32)} B. Worse than the count is the kernel: "
      "the half is a strided view, cos and sin "
      "broadcast over the heads, and in a model the queries are a transposed view of their projection, so "
      "TensorIterator runs its generic strided kernel (`elementwise_kernel<128, 4>`, no vector loads), whose time "
      "follows elements rather than bytes. Rule: a strided-kernel element rate, fitted on the probe's heads-permute "
      f"copies (the same generic copy path): {r_strided / 1e9:.0f} G elements/s; the rotation's strided kernels "
      "touch 3.5 elements per element forward and backward (neg a half, cat, two products), the sum streams at the "
      f"copy figure when its operands are contiguous. Checked on the probe's rotary rows: fp32 median error "
      f"{100 * e_rot['fp32'][2]:+.1f} %, bf16 {100 * e_rot['bf16'][2]:+.1f} %; on the Llama step, where all five run "
      f"strided (4.5 elements each way): {rt[0] * 1e3:.1f} ms measured ({rt[1]} kernels), "
      f"{2 * 4.5 * rot_elements / r_strided * 1e3:.1f} ms by the rule, dtsim now "
      f"{(run.total('fwd L* rotary') + run.total('bwd L* rotary bwd')) * 1e3:.1f}. The cat kernel "
      "(`CatArrayBatchedCopy`) is the slowest of "
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
    emb_rule = m * (s["vocab"] * s["hidden"] * 4 / zeros["fp32"] + tok * s["hidden"] / r_seg)
    w(f"**The embedding's backward ({summary[('embedding_bwd', 'fp32')][1]:.2f} of {BW_TEXT} in fp32 as dtsim counts "
      "it).** PyTorch's dense embedding backward zero-fills a gradient of the whole table (vocabulary x hidden: 2.1 "
      "GB at 128,256 x 4,096 in fp32), sorts the token ids (cub's radix sort), finds each id's segment and sums the "
      "rows of each segment in fp32 partials before scattering them (`compute_grad_weight`, `sum_and_scatter`). "
      f"dtsim counts {as_count(sim.bpe('step', 'embedding embedding bwd', tok * s['hidden']))} B an fp32 element "
      "of T h "
      "and no table. Rule: the fill at the zero kernel's rate (the probe's `zero` rows, not "
      f"fitted here) plus T h elements at a segment-sum rate, fitted on the 4 rows of 8,192 tokens: "
      f"{r_seg / 1e9:.0f} G elements/s, the same in fp32 and bf16 (so not bytes). Checked on the 2 rows of 16,384 "
      f"tokens: median error {100 * e_emb[2]:+.1f} % (largest {100 * e_emb[1]:.1f} %); on the Llama step's "
      f"embedding backward ({eb[1]} kernels): {eb[0] * 1e3:.2f} ms measured, {emb_rule * 1e3:.2f} by the rule, "
      f"dtsim now {run.total('embedding embedding bwd') * 1e3:.2f}. (A tied embedding adds the output layer's "
      "weight gradient to it instead; the fill and the sort stay.)")
    w("")
    # 6. Memory-bound backwards counted as twice the forward (its ratio read from a run's softmax).
    gpt = sim.runs["gpt bf16"]
    bo = gpt.call("bwd L* softmax bwd") / gpt.call("fwd L* softmax")
    gelu = summary[('gelu_bwd', 'fp32')][0]
    w(f"**Backwards that dtsim counts as {times(bo)} the forward (GELU backward "
      f"{summary[('gelu_bwd', 'fp32')][0]:.2f} x "
      f"measured in fp32, softmax backward {summary[('softmax_bwd', 'fp32')][0]:.2f}).** `backward_of` gives a "
      f"memory-bound op {times(bo)} its forward's bytes, {as_count(2 * bo)} passes, where GELU's, ReLU's and "
      "softmax's backward read the "
      "saved tensor and the output gradient and write the input gradient: three. Rule: three passes for a "
      "one-input pointwise op or a row softmax (the norms and SwiGLU already carry their own counts). It makes fp32 "
      f"GELU's backward right ({verdict(gelu)} now) and moves bf16 GELU's and softmax's further from the measurement, "
      "where the kernels are not streaming (below). Nothing to fit; NeuSight has no backwards to check on.")
    w("")
    # 7. Layout copies.
    rates = {}
    for k in ("heads_permute_copy", "transpose_copy"):
        for dt in ("fp32", "bf16"):
            rs = [r for r in kept if r["kernel"] == k and r["dtype"] == dt]
            rates[(k, dt)] = statistics.median(n_of(r) / r["seconds"] for r in rs)
    bert_elems = Z["bert_copy_bytes"] / 2 / 2  # elements of one BERT-Large permute copy (read plus written, fp16)
    bert_rate = bert_elems / Z["bert_copy_s"]
    over = [summary[("heads_permute_copy", d)][0] for d in ("fp32", "bf16")]
    w(f"**Layout copies (the zoo's layout_copy {Z['layout_copy']:.2f}: the heads permute of this probe reaches "
      f"{summary[('heads_permute_copy', 'fp32')][1]:.2f} in fp32 and {summary[('heads_permute_copy', 'bf16')][1]:.2f} "
      f"in bf16, the 2-D transpose {summary[('transpose_copy', 'fp32')][1]:.2f} and "
      f"{summary[('transpose_copy', 'bf16')][1]:.2f}).** A copy of a permuted view runs the same generic strided "
      "kernel as the rotation, and its rate follows elements: the heads permute (runs of 128 contiguous elements) at "
      f"{rates[('heads_permute_copy', 'fp32')] / 1e9:.0f} and {rates[('heads_permute_copy', 'bf16')] / 1e9:.0f} G "
      f"elements/s in fp32 and bf16, the 2-D transpose (one side strided an element at a time, a 32-byte sector "
      f"for each 2 or 4 useful bytes) at {rates[('transpose_copy', 'fp32')] / 1e9:.0f} and "
      f"{rates[('transpose_copy', 'bf16')] / 1e9:.0f}. The zoo's {Z['layout_copy']:.2f} came from BERT-Large's "
      f"eager attention (fp16, heads of 64, {bert_elems / 1e6:.1f} M elements a copy in "
      f"{Z['bert_copy_s'] * 1e6:.1f} us: {bert_rate / 1e9:.0f} G elements/s), "
      f"{rates[('heads_permute_copy', 'bf16')] / bert_rate:.1f} times slower per element than this probe's bf16 "
      f"heads permute: a copy of {bert_elems / 1e6:.0f} M elements is "
      "short enough for its launch and tail to count, and heads of 64 halve the contiguous run. Rule: layout copies "
      "by elements at the strided rate (the rotary rule's), with a fixed time a kernel; fitted on this probe's "
      "permutes, checked on BERT's copies (bench/validation/h200_torch_profile_2026-11-27b.json) and the Llama "
      f"step's repeat_kv and head copies. Until then {Z['layout_copy']:.2f} overprices large permutes "
      f"{min(over):.1f} to {max(over):.1f} times.")
    w("")
    # 8. Batch norm.
    bn_rows = {k: [r for r in kept if r["kernel"] == k and r["dtype"] == "fp16"] for k in ("batch_norm_fwd",
                                                                                          "batch_norm_bwd")}
    bn_ratio = {k: statistics.median(dtsim_time(r) / r["seconds"] for r in rs) for k, rs in bn_rows.items()}
    passes = resnet50_bn()
    b256 = sim.runs["resnet50 b256"]
    prof_a = json.load(open(os.path.join(ROOT, "bench", "validation", "h200_torch_profile_2026-11-27a.json")))
    top = prof_a["resnet50_amp_b256_profile"]["top_kernels_ms_per_step"]
    bn_f = sum(k[1] for k in top if "batchnorm_fw" in k[0]) * 1e-3
    bn_b = sum(k[1] for k in top if "batchnorm_bw" in k[0]) * 1e-3
    now_f = sum(b256.total(n) for n in b256.names(r"fwd \S+\.bn"))
    now_b = sum(b256.total(n) for n in b256.names(r"bwd \S+\.bn"))
    f32 = {k: [r for r in kept if r["kernel"] == k and r["dtype"] == "fp32"] for k in bn_rows}
    worst = {k: min(rs, key=lambda r: dtsim_time(r) / r["seconds"]) for k, rs in f32.items()}
    w(f"**Batch norm (training statistics; fp16 channels-last at {bn_ratio['batch_norm_fwd']:.2f} and "
      f"{bn_ratio['batch_norm_bwd']:.2f} of measured forward and backward, fp32 NCHW down to "
      f"{dtsim_time(worst['batch_norm_fwd']) / worst['batch_norm_fwd']['seconds']:.2f} and "
      f"{dtsim_time(worst['batch_norm_bwd']) / worst['batch_norm_bwd']['seconds']:.2f} at "
      f"{shape_text(worst['batch_norm_fwd'])}).** dtsim's ResNet-50 table counts {as_count(passes[0])} passes forward "
      f"and {as_count(passes[1])} backward at "
      f"the copy figure; the fp16 channels-last kernels take {1 / bn_ratio['batch_norm_fwd']:.1f} and "
      f"{1 / bn_ratio['batch_norm_bwd']:.2f} times that (medians), fp32 NCHW with 64 channels of 112 x 112 three to "
      "five times (the probe kept no trace of which kernel PyTorch chose; few channels, each reduced over batch x "
      "height x width, so little parallelism, is the likely cause). Rule: a batch-norm share per layout, fitted on "
      "the probe's fp16 channels-last rows (the ratios above); checked on ResNet-50's AMP step at batch 256 "
      "(bench/validation/h200_torch_profile_2026-11-27a.json, "
      f"its cuDNN batch-norm kernels among the 25 longest, so a lower bound): forward {bn_f * 1e3:.2f} ms measured, "
      f"{now_f / bn_ratio['batch_norm_fwd'] * 1e3:.2f} by the share, {now_f * 1e3:.2f} now; backward "
      f"{bn_b * 1e3:.2f}, {now_b / bn_ratio['batch_norm_bwd'] * 1e3:.2f}, {now_b * 1e3:.2f} (dtsim's run of "
      "ResNet-50 at batch 256 on the h200).")
    w("")
    # 9. bf16 kernels that do not stream.
    rate = {}
    for k, dt in (("gelu_fwd", "bf16"), ("gelu_fwd", "fp32"), ("softmax_fwd", "bf16"), ("softmax_fwd", "fp32"),
                  ("dropout_fwd", "bf16"), ("dropout_fwd", "fp32")):
        big = summary[(k, dt)][2]
        rate[(k, dt)] = n_of(big) / big["seconds"]
    per = [OPS[k][2](summary[(k, "fp32")][2]) / n_of(summary[(k, "fp32")][2])
           for k in ("gelu_fwd", "softmax_fwd", "dropout_fwd")]
    w("**Kernels bound by their arithmetic, not their bytes (bf16 GELU forward, softmax over 1,024 to 8,192 "
      "columns, dropout).** At half the bytes an element, bf16 GELU does the same fp32 erf: "
      f"{rate[('gelu_fwd', 'bf16')] / 1e9:.0f} G elements/s against fp32's {rate[('gelu_fwd', 'fp32')] / 1e9:.0f} "
      "(which streams); the attention-shaped softmax (a variant that keeps the row on chip, one block a row) runs "
      f"{rate[('softmax_fwd', 'fp32')] / 1e9:.0f} and {rate[('softmax_fwd', 'bf16')] / 1e9:.0f} G elements/s in "
      "fp32 and bf16, the same in both, so not bytes; dropout (Philox random numbers and a mask byte an element) "
      f"reaches {summary[('dropout_fwd', 'fp32')][1]:.2f} and {summary[('dropout_fwd', 'bf16')][1]:.2f} of {BW_TEXT} "
      f"({rate[('dropout_fwd', 'fp32')] / 1e9:.0f} and {rate[('dropout_fwd', 'bf16')] / 1e9:.0f} G elements/s: "
      "neither its bytes nor a fixed element rate set it alone). "
      f"dtsim's compute term charges these {as_count(min(per))} to {as_count(max(per))} FLOPs an element at the fp32 "
      "peak "
      f"({Z['fp32'] / 1e12:.0f} TFLOP/s: {Z['fp32'] / max(per) / 1e12:.0f} to {Z['fp32'] / min(per) / 1e12:.0f} T "
      "elements/s), a bound they never meet. Rule: an element-rate ceiling per op (max(bytes / rate, elements / "
      "ceiling)), fitted "
      "on the H200's bf16 rows; whether it carries is a second GPU's bf16 rows (NeuSight has fp32 only, where these "
      "ops stream). In a Llama step none of these runs (no dropout, flash attention); in BERT or a GPT with dropout "
      "and eager attention they do.")
    w("")
