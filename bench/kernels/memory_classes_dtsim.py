# dtsim's own figures for bench/kernels/memory_classes_h200.py: runs the dtsim binary (--dtsim) with the analytical
# engine on scenarios/llama3_8l_pytorch_h200.yaml (the Llama-3-shaped step bench/validation/h200_llama_probe_2026-11-30
# .json measured), on variants of it (--set overrides: other dtypes, kernels and a GPT-like block) and on ResNet-50
# (scenarios/quickstart.yaml on one h200), and reads each run's metrics.json (the step) and trace.json (every op's time
# and FLOPs in the first iteration); `dtsim kernels` on the step gives each op's class (GEMM, attention, ...). The
# section it writes holds memory_classes_model.py's OPS to those runs: for each count a run exercises, the script's
# time for the op at the run's shape against the run's, and its FLOPs; the script stops on a difference. Standard
# library only.
import json
import os
import re
import subprocess
import sys
import tempfile

from memory_classes_model import LLAMA, OPS, RESNET50, ROOT, as_count, dtsim_time, n_of, rate_of

STEP = os.path.join("scenarios", "llama3_8l_pytorch_h200.yaml")
RESNET = os.path.join("scenarios", "quickstart.yaml")
FP32 = ["model.dtype=fp32", "model.grad_dtype=fp32"]
PURE = ["framework.mixed_precision=pure"]
# One block of the step's shape with GELU, LayerNorm (two-pass, fused), biases and eager attention.
GPT = ["model.transformer.layers=1", "model.transformer.gated_mlp=false", "model.transformer.rms_norm=false",
       "model.transformer.bias=true", "model.transformer.flash_attention=false", "framework.attention_kernels=eager",
       "framework.pointwise_kernels=fused"]
FUSED = ["model.transformer.layers=1", "framework.pointwise_kernels=fused"]
ONE_H200 = ["cluster.device=h200", "cluster.nodes=1", "cluster.devices_per_node=1"]
# name -> (scenario, --set overrides)
VARIANTS = {
    "step": (STEP, []),
    "eager bf16": (STEP, ["model.transformer.layers=1"] + PURE),
    "eager fp32": (STEP, ["model.transformer.layers=1"] + FP32),
    "fused": (STEP, FUSED),
    "fused bf16": (STEP, FUSED + PURE),
    "gpt bf16": (STEP, GPT + PURE),
    "gpt fp32": (STEP, GPT + FP32),
    "foreach": (STEP, ["framework.optimizer_kernels=foreach"]),
    "momentum": (STEP, ["model.optimizer=momentum", "framework.optimizer_kernels=foreach"]),
    "resnet50": (RESNET, ONE_H200),
    "resnet50 b256": (RESNET, ONE_H200 + ["model.batch_per_worker=256"]),
}


class Run:
    """One `dtsim run`: the step (metrics.json) and its first iteration's ops (trace.json), by name with the
    micro-batch dropped and the layer number as L*: calls, time of one call, FLOPs of one call."""

    def __init__(self, out):
        metrics = json.load(open(os.path.join(out, "metrics.json")))
        self.step = metrics["iteration_time_s"]["mean"]
        events = [e for e in json.load(open(os.path.join(out, "trace.json")))["traceEvents"] if e.get("ph") == "X"]
        first = min(e["args"]["iteration"] for e in events)
        self.ops = {}
        for e in events:
            if e["args"]["iteration"] != first or e["args"].get("rank", 0) != 0:
                continue
            name = re.sub(r"\bL\d+ ", "L* ", re.sub(r" mb\d+$", "", e["name"]))
            self.ops.setdefault(name, []).append((e["dur"] * 1e-6, e["args"].get("flops", 0)))
        calls = [t for c in self.ops.values() for t, _ in c]
        # The trace covers the step and nothing else (each time rounded to the nanosecond).
        assert abs(sum(calls) - self.step) <= 1e-9 * len(calls), (sum(calls), self.step)

    def total(self, name):
        return sum(t for t, _ in self.ops[name])

    def call(self, name):
        return self.ops[name][0][0]

    def flops(self, name):
        return self.ops[name][0][1]

    def names(self, pattern=r".*"):
        return [n for n in self.ops if re.fullmatch(pattern, n)]


def kernel_classes(binary, scenario):
    """`dtsim kernels`' class of each row, as (name pattern, class): its `*` one word of the op's name."""
    out = subprocess.run([binary, "kernels", scenario], capture_output=True, text=True, cwd=ROOT)
    if out.returncode:
        sys.exit(f"memory_classes_h200: {binary} kernels: {out.stderr.strip()}")
    lines = out.stdout.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("kernel "))
    col = lines[head].index("class")
    rows = []
    for line in lines[head + 1:]:
        if not line.strip():
            break
        pattern = " ".join(re.escape(w).replace(r"\*", r"\S+") for w in line[:col].split())
        rows.append((pattern, line[col:].split()[0]))
    return rows


class Dtsim:
    """The runs of VARIANTS and the step's op classes."""

    def __init__(self, binary):
        if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
            sys.exit(f"memory_classes_h200: no dtsim binary at {binary} (build it, or pass --dtsim PATH)")
        self.runs = {}
        with tempfile.TemporaryDirectory() as tmp:
            for i, (name, (scenario, sets)) in enumerate(VARIANTS.items()):
                out = os.path.join(tmp, str(i))
                cmd = [binary, "run", scenario, "--engine", "analytical", "--out", out]
                for s in sets:
                    cmd += ["--set", s]
                done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
                if done.returncode:
                    sys.exit(f"memory_classes_h200: {' '.join(cmd)}: {done.stderr.strip()}")
                self.runs[name] = Run(out)
        self.step = self.runs["step"]
        patterns = kernel_classes(binary, STEP)
        self.cls = {}
        for name in self.step.ops:
            found = {c for p, c in patterns if re.fullmatch(p, name)}
            assert len(found) == 1, (name, found)  # every op of the step in one class of `dtsim kernels`
            self.cls[name] = found.pop()
        self.by_class = {}
        for name, c in self.cls.items():
            self.by_class[c] = self.by_class.get(c, 0.0) + self.step.total(name)

    def bpe(self, variant, name, elements, cls="elementwise"):
        """Bytes an element one call of the op moves in that run: its time at its class's rate over `elements`."""
        return self.runs[variant].call(name) * rate_of(cls) / elements


def checks():
    """(variant, dtsim op, OPS kernel, dtype, the probe-style row's shape) for each count a run exercises."""
    s = json.load(open(LLAMA))["shape"]
    t, h, f, v = s["seq"] * s["micro_batch"], s["hidden"], s["ffn"], s["vocab"]
    kvd = s["kv_heads"] * h // s["heads"]
    p = json.load(open(LLAMA))["parameters"]
    scores = [t * s["heads"], s["seq"]]  # micro-batch 1: heads x sequence rows of sequence columns
    out = [("step", "fwd L* qkv input cast", "cast_fp32_to_bf16", "mixed", [t, h]),
           ("step", "bwd L* qkv input cast bwd", "cast_bf16_to_fp32", "mixed", [t, h]),
           ("step", "embedding embedding dropout", "dropout_fwd", "fp32", [t, h]),
           ("step", "head cross-entropy", "cross_entropy_fwd", "fp32", [t, v]),
           ("step", "head cross-entropy bwd", "cross_entropy_bwd", "fp32", [t, v]),
           ("step", "optimizer step", "adamw_fused", "fp32", [p]),
           ("foreach", "optimizer step", "adamw_foreach", "fp32", [p]),
           ("momentum", "optimizer step", "sgd_momentum_foreach", "fp32", [p])]
    for variant, dt in (("step", "bf16"), ("eager fp32", "fp32")):
        out += [(variant, "fwd L* rotary", "rotary_fwd_eager", dt, [t, h + kvd]),
                (variant, "bwd L* rotary bwd", "rotary_bwd_eager", dt, [t, h + kvd]),
                (variant, "fwd L* activation", "swiglu_fwd", dt, [t, f]),
                (variant, "bwd L* activation bwd", "swiglu_bwd", dt, [t, f])]
    for variant, dt in (("fused", "fp32"), ("fused bf16", "bf16")):
        out += [(variant, "fwd L* ln1", "rms_norm_fwd", dt, [t, h]), (variant, "bwd L* ln1 bwd", "rms_norm_bwd", dt,
                                                                      [t, h])]
    for variant, dt in (("gpt bf16", "bf16"), ("gpt fp32", "fp32")):
        out += [(variant, "fwd L* ln1", "layer_norm_fwd", dt, [t, h]),
                (variant, "bwd L* ln1 bwd", "layer_norm_bwd", dt, [t, h]),
                (variant, "fwd L* activation", "gelu_fwd", dt, [t, f]),
                (variant, "bwd L* activation bwd", "gelu_bwd", dt, [t, f]),
                (variant, "fwd L* softmax", "softmax_fwd", dt, scores),
                (variant, "bwd L* softmax bwd", "softmax_bwd", dt, scores),
                (variant, "fwd L* attention dropout", "dropout_fwd", dt, scores),
                (variant, "bwd L* proj bias grad", "bias_grad", dt, [t, h]),
                (variant, "fwd L* q layout copy", "heads_permute_copy", dt, [t, h]),
                (variant, "fwd L* q layout copy", "transpose_copy", dt, [t, h]),
                (variant, "embedding embedding", "embedding_fwd", dt, [t, h, v]),
                (variant, "embedding embedding bwd", "embedding_bwd", dt, [t, h, v])]
    bn = resnet_conv1_bn()
    out += [("resnet50", "fwd conv1.bn", "batch_norm_fwd", "fp16", bn),
            ("resnet50", "bwd conv1.bn", "batch_norm_bwd", "fp16", bn),
            ("resnet50", "fwd conv1.relu", "relu_fwd", "fp16", [bn[0] * bn[1], bn[2] * bn[3]]),
            ("resnet50", "bwd conv1.relu", "relu_bwd", "fp16", [bn[0] * bn[1], bn[2] * bn[3]])]
    return out


def resnet_conv1_bn():
    """The shape (batch, channels, side, side) of ResNet-50's first batch norm in scenarios/quickstart.yaml."""
    batch = int(re.search(r"batch_per_worker:\s*(\d+)", open(os.path.join(ROOT, RESNET)).read()).group(1))
    row = next(line for line in open(RESNET50) if line.strip().startswith("- [conv1.bn,"))
    f = [x.strip() for x in row.strip()[3:-1].split(",")]
    c = int(f[2]) // 2  # weight and bias per channel
    side = round((int(f[5]) / c) ** 0.5)
    return [batch, c, side, side]


def held_to_runs(w, dt, summary):
    """The section: OPS's counts against the runs; exits when one differs. `summary`: the per-kernel table's
    (kernel, dtype) rows."""
    rows, bad = [], []
    for variant, op, kernel, dtype, shape in checks():
        r = {"kernel": kernel, "dtype": dtype, "shape": shape}
        cls, nbytes, flops, _ = OPS[kernel]
        run = dt.runs[variant]
        elements = shape[0] if len(shape) == 1 else n_of(r)
        if kernel.startswith("batch_norm"):
            elements = shape[0] * shape[1] * shape[2] * shape[3]
        mine, theirs = dtsim_time(r), run.call(op)
        same_flops = abs(flops(r) - run.flops(op)) <= 1e-9 * max(1.0, flops(r))
        if abs(mine / theirs - 1) > 1e-3 or not same_flops:
            bad.append(f"{kernel} {dtype} ({variant}: {op}): {mine * 1e6:.3f} us, {flops(r):.0f} FLOPs here, "
                       f"{theirs * 1e6:.3f} us, {run.flops(op):.0f} in the run")
        rows.append((kernel, dtype, variant, op, "x".join(str(x) for x in shape), as_count(nbytes(r) / elements),
                     as_count(theirs * rate_of(cls) / elements), as_count(flops(r) / elements),
                     as_count(run.flops(op) / elements)))
    if bad:
        sys.exit("memory_classes_h200: OPS disagrees with dtsim (update memory_classes_model.py to the code):\n  " +
                 "\n  ".join(bad))
    w("### The counts above against dtsim runs")
    w("")
    w("Each row of the per-kernel table prices an op by memory_classes_model.py's reading of dtsim's code; here each "
      "count is held to `dtsim run` (the analytical engine) on the same op, run by this script: the Llama step "
      f"({STEP}) as it is and with the overrides below, and ResNet-50 ({RESNET} on one h200). A call's time in the "
      "run at its class's rate is the bytes dtsim charges; the script's time for the op at the run's shape must "
      "agree within 0.1 % and its FLOPs exactly, or the script stops. Runs:")
    w("")
    for name, (scenario, sets) in VARIANTS.items():
        w(f"- {name}: `{scenario}`" + (" `--set " + " --set ".join(sets) + "`" if sets else ""))
    w("")
    w("| kernel | dtype | run | dtsim op | shape | B an element: here | run | FLOPs an element: here | run |")
    w("|---|---|---|---|---|---:|---:|---:|---:|")
    for row in rows:
        w("| " + " | ".join(row) + " |")
    w("")
    held = {k for _, _, k, _, _ in checks()}
    others = sorted(f"{k} {d}" for k, d in summary if (k, d) not in {(c[2], c[3]) for c in checks()} and k in held)
    w(f"{len(rows)} counts held, each as the run gives it. Not exercised by a run: "
      + ", ".join(k for k in OPS if k not in held) + " (no dtsim op of their own, or one whose traffic mixes them "
      "with others: their counts are the code's as read here); and, of kernels held in another dtype, the table's "
      + ", ".join(others) + " rows (the same formula with the element's bytes; cross_entropy's bf16 rows are shown "
      "at 2B and 4B, not at dtsim's fused loss on bf16 logits).")
    w("")
