# The Llama-3-shaped training step of bench/kernels/memory_classes_h200.md: its memory-bound kernels as the H200 ran
# them, by the operator that issued each (the step's Kineto trace, tests/calibrate/data/h200_llama_step.json.gz, from
# bench/validation/h200_llama_probe_2026-11-30.json), against what dtsim charges for the same ops (its run of
# scenarios/llama3_8l_pytorch_h200.yaml, memory_classes_dtsim.py: every figure of dtsim's column and the bytes it
# names are read from that run) and against the rules the mechanisms section fits (on probe rows: bench/validation/
# h200_memory_probe_2026-11-30.json and bench/published/h200_memory_kernels.json). Standard library only.
import gzip
import json
import re
import statistics

from memory_classes_model import B, COPY_RATE, EARLIER, LLAMA, PROBE, TRACE, Z, as_count, n_of, reread_miss

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


def forward_of(name):
    """The forward op of a dtsim backward op's name ("bwd L* qkv weight cast bwd" -> "fwd L* qkv weight cast")."""
    name = name[:-len(" bwd")]
    return "fwd " + name[4:] if name.startswith("bwd ") else name


def dtsim_groups(dt):
    """dtsim's memory-bound ops of the step (every op `dtsim kernels` classes neither gemm nor attention), summed by
    the groups of the step table; a weight cast's backward is its cast (its forward's time) and the .grad sum (the
    rest: transformer_ops.cpp gemm_casts). Returns group -> seconds, and the ops in no group."""
    run = dt.step
    g, left = {}, []

    def put(group, t):
        g[group] = g.get(group, 0.0) + t
    for name in run.ops:
        t = run.total(name)
        if dt.cls[name] in ("gemm", "attention"):
            continue
        if re.search(r" (ln1|ln2|final norm)( bwd)?$", name):
            put("RMSNorm (fused F.rms_norm)", t)
        elif name.endswith("weight cast bwd"):
            cast = run.total(forward_of(name))
            put("casts up, bf16 to fp32", cast)
            put(".grad accumulation", t - cast)
        elif name.endswith("input cast bwd") or name == "head logits cast":
            put("casts up, bf16 to fp32", t)
        elif name.endswith(("input cast", "weight cast")) or name == "head logits cast bwd":
            put("casts down, fp32 to bf16", t)
        elif re.search(r" rotary( bwd)?$", name):
            put("rotary (rotate_half)", t)
        elif name == "optimizer step":
            put("optimizer (fused AdamW)", t)
        elif name == "head cross-entropy":
            put("loss: log_softmax forward", t)
        elif name == "head cross-entropy bwd":
            put("loss: log_softmax backward, nll's zero fill", t)
        elif "layout copy" in name:
            put("repeat_kv and head-layout copies", t)
        elif name == "embedding embedding bwd":
            put("embedding backward (fill, sort, segment sums)", t)
        elif re.search(r" activation( bwd)?$", name):
            put("SwiGLU (eager)", t)
        elif "dropout" in name:
            put("residual adds and gradient sums", t)
        elif name == "gradient unscale and norm":
            put(name, t)
        else:
            left.append(name)
    return g, left


def llama_step(w, kept, dt):
    """The Llama-3-shaped step's memory-bound kernels by group: the trace against dtsim's run of the same step and
    against the rules of the section before."""
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
    # What dtsim's run charges, by group, and the bytes an element its ops move (their time at the copy figure).
    now, left = dtsim_groups(dt)
    run = dt.step

    def shown(name, elements):
        return as_count(dt.bpe("step", name, elements))
    inputs = len(run.names(r"bwd L\* \S+ input cast bwd"))
    grad_bytes = now[".grad accumulation"] * c / (W * (m - 1)) if m > 1 else 0.0
    rot_fwd, rot_bwd = shown("fwd L* rotary", T * (h + kvd)), shown("bwd L* rotary bwd", T * (h + kvd))
    emb_drop = (shown("embedding embedding dropout", th), shown("embedding embedding dropout bwd", th))
    rows = [
        ("RMSNorm (fused F.rms_norm)", f"ln1, ln2, final norm: eager op by op, {shown('fwd L* ln1', th)} + "
         f"{shown('bwd L* ln1 bwd', th)} B an fp32 element", norm_rule,
         "one fused two-pass kernel in PyTorch 2.11, not op by op"),
        ("casts up, bf16 to fp32", f"logits cast; weight and input casts' backward: "
         f"{shown('bwd L* qkv input cast bwd', th)} B, {inputs} inputs a layer",
         m * (T * V + W + (5 * L + 1) * th) * 6 / (up_share * Z["bw"]),
         f"the up-cast's share ({up_share:.2f}); an input cast per Linear (5 a layer)"),
        ("casts down, fp32 to bf16", "weight and input casts; the logits cast's backward",
         m * (T * V + W + (7 * L + 1) * th) * 6 / c,
         "an input cast per Linear, and the residual branches' gradients cast down (2 a layer)"),
        ("optimizer (fused AdamW)", f"optimizer step: {shown('optimizer step', P)} B a parameter",
         dt.bpe("step", "optimizer step", P) * P / (opt_share * Z["bw"]), f"the multi-tensor share ({opt_share:.3f})"),
        ("rotary (rotate_half)", "rotary, eager: " + (f"{rot_fwd} B an element each way" if rot_fwd == rot_bwd else
                                                      f"{rot_fwd} B an element forward, {rot_bwd} backward"),
         2 * 4.5 * rot / r_strided, f"five strided kernels each way at {r_strided / 1e9:.0f} G elements/s"),
        ("loss: log_softmax forward", f"cross-entropy: {shown('head cross-entropy', T * V)} B a logit",
         m * 16 * T * V / c, "three reads and a write"),
        ("loss: log_softmax backward, nll's zero fill", f"cross-entropy bwd: {shown('head cross-entropy bwd', T * V)} "
         "B a logit", m * 20 * T * V / c, "the fill and four passes"),
        ("repeat_kv and head-layout copies", f"none (cuDNN takes the {s['kv_heads']} key-value heads as they are)"
         if "repeat_kv and head-layout copies" not in now else "eager attention's layout copies",
         layout_rule, "the model's repeat_kv and transposes as strided copies, its sums streaming"),
        ("embedding backward (fill, sort, segment sums)", f"embedding bwd: {shown('embedding embedding bwd', th)} B "
         "an element of T h", m * (V * h * 4 / zero32 + th / r_seg),
         f"the table's fill and {r_seg / 1e9:.0f} G elements/s"),
        ("SwiGLU (eager)", f"activation, eager: {shown('fwd L* activation', T * f)} + "
         f"{shown('bwd L* activation bwd', T * f)} B an element of {f:,}", None, ""),
        ("residual adds and gradient sums", f"dropout+residual: {shown('fwd L* attn dropout+residual', th)} B fwd, "
         f"{shown('bwd L* attn dropout+residual bwd', th)} bwd (with a mask byte); the embedding's dropout, " +
         (f"{emb_drop[0]} B each way" if emb_drop[0] == emb_drop[1] else f"{emb_drop[0]} and {emb_drop[1]} B"),
         None, ""),
        (".grad accumulation", f"weight casts' backward beyond the cast: {as_count(grad_bytes)} B a weight x (m - 1)",
         None, ""),
        ("gradient unscale and norm",
         f"{as_count(dt.bpe('step', 'gradient unscale and norm', P) / 2)} passes over bf16 "
         "gradients", None, ""),
    ]
    rows = [(name, ops, now.get(name, 0.0), rule, why) for name, ops, rule, why in rows]
    measured = llama["plain"]["step_s_median"]
    w("### The Llama-3-shaped step: where the memory-bound classes put dtsim's step")
    w("")
    w(f"bench/validation/h200_llama_probe_2026-11-30.json measured {measured * 1e3:.1f} ms a "
      f"step ({L} layers of Meta-Llama-3-8B, sequence {s['seq']}, {m} micro-batches, bf16 autocast, fused AdamW); "
      f"`dtsim run scenarios/llama3_8l_pytorch_h200.yaml` gives {run.step * 1e3:.0f} ms "
      f"({100 * (run.step / measured - 1):+.1f} %). Its trace "
      "(tests/calibrate/data/h200_llama_step.json.gz) ties each kernel to the operator that issued it; the groups "
      "below are those operators, and dtsim's column the time its run of the scenario (memory_classes_dtsim.py) "
      "gives the same ops, named with their bytes an element (their time at the copy figure); a weight cast's "
      "backward counts its cast as a cast up and the rest as the .grad sum. "
      + (f"dtsim's other memory-bound ops, in no group: {', '.join(left)} "
         f"({sum(run.total(n) for n in left) * 1e3:.2f} ms). " if left else "") +
      "Sorted by how far dtsim is from the measurement now.")
    w("")
    w("| group | kernels | measured (ms) | dtsim now (ms) | dtsim's ops | with the rules above (ms) | the rule |")
    w("|---|---:|---:|---:|---|---:|---|")
    tot = [0.0, 0.0, 0.0]
    for name, ops, now_s, rule, why in sorted(rows, key=lambda r: -abs(r[2] - g.get(r[0], (0.0, 0))[0])):
        t, n = g.get(name, (0.0, 0, 0.0))[:2]
        eff = rule if rule is not None else now_s
        tot[0] += t
        tot[1] += now_s
        tot[2] += eff
        w(f"| {name} | {n} | {t * 1e3:.1f} | {now_s * 1e3:.1f} | {ops} | "
          f"{'-' if rule is None else f'{rule * 1e3:.1f}'} | {why or 'unchanged'} |")
    w(f"| all of these | | {tot[0] * 1e3:.1f} | {tot[1] * 1e3:.1f} | | {tot[2] * 1e3:.1f} | |")
    w("")
    w(f"The GEMMs ({g['GEMMs'][0] * 1e3:.1f} ms measured) and attention ({g['attention'][0] * 1e3:.1f} ms) are "
      f"outside this file (dtsim's run: {dt.by_class['gemm'] * 1e3:.0f} and {dt.by_class['attention'] * 1e3:.1f} "
      "ms, its ops `dtsim kernels` classes gemm and attention). Of the step's memory-bound kernels dtsim now puts "
      f"{tot[1] * 1e3:.0f} ms where the GPU spent {tot[0] * 1e3:.0f}; its near-agreement on the whole step is "
      "GEMMs priced slow and RMSNorm priced op by op covering casts, rotary, the loss, the optimizer and the copies "
      "priced fast. The residual adds and gradient sums (a mixed fp32 + bf16 add runs unrolled at about half the "
      "copy figure; autograd sums the gradients of a tensor read by several Linears: 3 a layer), the .grad sums "
      "(the embedding's, which dtsim does not cast, is missing) and the unscale-and-norm (the probe runs no "
      "GradScaler and no clipping; dtsim adds it here) are counts, not rates: a framework setting each.")
    w("")
    after = run.step + tot[2] - tot[1]
    w(f"With every rule the memory-bound kernels come to {tot[2] * 1e3:.0f} ms and dtsim's step to about "
      f"{after * 1e3:.0f} ms ({100 * (after / measured - 1):+.1f} %), the rest of its error then the GEMMs'.")
    w("")
    w("### Recommended changes, by their effect on this step")
    w("")
    effects = sorted(((name, (rule - now_s) * 1e3, why) for name, _, now_s, rule, why in rows if rule is not None),
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
