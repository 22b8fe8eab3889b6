#!/usr/bin/env python3
"""Writes one dtsim scenario per published LLM training measurement (bench/llm/README.md).

  python3 bench/llm/make_scenarios.py        (rewrites bench/llm/scenarios/*.yaml, rows.csv and skipped.md)

The measurements are bench/llm/sources/<source>.csv, copied as the sources print them (each file's .md beside it
says where every column comes from, at which commit). A row becomes a scenario by its source's rule (RULES below):
what the source states is copied, what it leaves unstated is set once for every row of that source, never per row,
and both are written at the top of the scenario. A row no rule can model yet is listed in skipped.md with why.
"""
import csv
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# Line rates of the platforms, per direction (data sheets): what a user knows of a cluster.
NVLINK = {"a100": "300GB/s", "h100": "450GB/s"}

# Llama 3 shapes: Meta's model cards, as torchtitan's model args write them (bench/llm/sources/torchtitan.md).
LLAMA3 = {
    "8B": dict(layers=32, hidden=4096, heads=32, kv_heads=8, ffn=14336),
    "70B": dict(layers=80, hidden=8192, heads=64, kv_heads=8, ffn=28672),
    "405B": dict(layers=126, hidden=16384, heads=128, kv_heads=8, ffn=53248),
}


class Skip(Exception):
    """A row this rule cannot model yet; the message says why (skipped.md)."""


def number(text):
    try:
        return float(text.replace(",", "").replace("%", "").strip())
    except ValueError:
        raise Skip(f"'{text}' is not a number") from None


def whole(text):
    value = number(text)
    if value != int(value):
        raise Skip(f"'{text}' is not a whole number")
    return int(value)


def model_lines(shape, seq_len, vocab, **flags):
    fields = dict(shape, seq_len=seq_len, vocab=vocab, **flags)
    return "  transformer: {" + ", ".join(f"{k}: {str(v).lower() if isinstance(v, bool) else v}"
                                          for k, v in fields.items()) + "}"


def fp8_lines(recipe):
    """model.fp8: the linear layers' GEMMs in fp8 with Transformer Engine's delayed scaling or current (per-tensor,
    dynamic) scaling; the model keeps model.dtype (bf16). None: no fp8."""
    return [f"  fp8: {recipe}"] if recipe else []


def cluster_lines(device, gpus, per_node, nvlink, nic_count, nic_rate):
    nodes = max(1, gpus // per_node)
    local = min(gpus, per_node)
    return "\n".join([
        "cluster:",
        f"  nodes: {nodes}",
        f"  devices_per_node: {local}",
        f"  device: {device}",
        f"  intra_node: {{kind: nvlink, rate: {nvlink}, latency: 2us}}",
        f"  nic: {{count: {nic_count}, rate: {nic_rate}, latency: 2us}}",
    ])


def strategy_lines(tensor=1, pipeline=1, context=1, data=1, zero=0, micro_batch=1, global_batch=1, recompute="none",
                   sequence_parallel=False, schedule=None):
    lines = ["strategy:", "  kind: hybrid", f"  tensor: {tensor}"]
    if pipeline > 1:
        pipe = f"  pipeline: {{stages: {pipeline}"
        if schedule:
            pipe += f", schedule: {schedule}"
        lines.append(pipe + "}")
    if context > 1:
        lines.append(f"  context: {context}")
    lines += [f"  data: {data}", f"  zero: {zero}", f"  micro_batch: {micro_batch}", f"  global_batch: {global_batch}",
              f"  recompute: {recompute}"]
    if sequence_parallel:
        lines.append("  sequence_parallel: true")
    return "\n".join(lines)


# --- mosaicml/llm-foundry: MPT on A100 40/80 GB and H100 with PyTorch FSDP (Composer) -------------------------------
MPT_STATES = """\
The source states: the model size (its yaml gives layers, d_model, heads, expansion 4, vocab 50368), sequence length,
GPUs, micro-batch, gradient accumulation, global batch, precision, FSDP sharding strategy, activation checkpointing,
flash attention, and tokens/s/GPU (the throughput of the last logged steps, truncated to an integer); A100 tables:
1600 Gb/s node-to-node RoCE.
Assumed for every MPT row: 8 GPUs a node (MosaicML's platform; the README's GPU counts are multiples of 8); NVLink at
the platform's line rate; the 1600 Gb/s as 8 NICs of 200 Gb/s; H100 rows (network not stated) 8 NICs of 400 Gb/s,
the DGX H100's; MPT's shape as llm-foundry builds it (no biases, LayerNorm, learned positions, tied embeddings);
FULL_SHARD as ZeRO-3 and SHARD_GRAD_OP as ZeRO-2 over every GPU; decoupled AdamW as Adam; amp_bf16 (FSDP mixed
precision DEFAULT: fp32 gradients reduced) as autocast with fp32 gradients, bf16 (PURE) as pure bf16; amp_fp8 as
amp_bf16 with fp8: delayed (Composer's amp_fp8 runs Transformer Engine's fp8_autocast with its DelayedScaling
recipe: mosaicml/composer @ fe7964f composer/core/precision.py L78-89; the benchmark script builds the linear layers
from Transformer Engine, fc_type te: bench/llm/sources/mpt.md)."""

MPT_DEVICES = {"a100_40gb": ("a100_40gb", "a100", "200Gbps"), "a100_80gb": ("a100_80gb", "a100", "200Gbps"),
               "h100_80gb": ("h100_sxm", "h100", "400Gbps")}


def mpt(row):
    device, platform, nic = MPT_DEVICES[row["gpu"]]
    gpus, seq = whole(row["gpus"]), whole(row["seq_len"])
    shape = dict(layers=whole(row["n_layers"]), hidden=whole(row["d_model"]), heads=whole(row["n_heads"]),
                 ffn=whole(row["ffn_hidden"]))
    pure = row["precision"] == "bf16"
    micro, gbs = whole(row["micro_batch"]), whole(row["global_batch"])
    zero = {"FULL_SHARD": 3, "SHARD_GRAD_OP": 2}[row["sharding"]]
    step = gbs * seq / (number(row["tokens_per_s_per_gpu"]) * gpus)
    body = "\n".join([
        "model:",
        "  name: transformer",
        model_lines(shape, seq, 50368, bias=False, tied_embeddings=True, flash_attention=True),
        "  dtype: bf16",
        *fp8_lines("delayed" if row["precision"] == "amp_fp8" else None),
        f"  grad_dtype: {'bf16' if pure else 'fp32'}",
        "  optimizer: adam",
        cluster_lines(device, gpus, 8, NVLINK[platform], 8, nic),
        strategy_lines(data=gpus, zero=zero, micro_batch=micro, global_batch=gbs,
                       recompute="full" if row["activation_checkpointing"] == "True" else "none"),
        "framework:",
        f"  mixed_precision: {'pure' if pure else 'autocast'}",
    ])
    name = f"mpt_{row['model']}_{row['gpu']}_{gpus}g_s{seq}_mb{micro}_{row['precision']}"
    published = f"{row['tokens_per_s_per_gpu']} tokens/s/GPU ({gbs} x {seq} tokens a step: {step:.4g} s)"
    return name, step, published, body


# --- pytorch/torchtitan: Llama 3 / 3.1 with FSDP2, TP, PP, CP ----------------------------------------------------------
TORCHTITAN_STATES = """\
The source states: the model (Llama 3 / 3.1 8B, 70B, 405B), GPUs, FSDP/TP/PP/CP degrees, local batch (per data-parallel
rank), global batch where printed, activation checkpointing mode, precision, torch.compile, and tokens/s/GPU.
Assumed for every torchtitan row: Llama 3's shapes (Meta's model cards: RMSNorm, SwiGLU, rotary, grouped-query
attention, vocab 128256, untied embeddings, no biases); sequence length 8192 where not printed (the train configs'
default); 8 GPUs a node with NVLink at the platform's line rate and 8 NICs of 400 Gb/s (H100) or 200 Gb/s (A100);
the H100 rows' 500 W parts as dtsim's h100_sxm (their clocks under that power cap are not published); FSDP2 as ZeRO-3;
selective checkpointing (per layer or per op) as selective recompute; bf16 with fp32 gradients reduced (FSDP2's
default mixed precision keeps fp32 master weights and reduces in fp32); flash attention (SDPA); float8 and float8
tensorwise as fp8: current (torchao's Float8Linear with dynamic per-tensor scaling, torchtitan's default:
pytorch/torchtitan @ 4d88a8a torchtitan/config_manager.py L524-527 and @ 9dec370, the 2024-12 benchmarks' commit,
L552-568, and torchtitan/float8.py L87 "only dynamic tensor scaling (the default) is supported"); FSDP2's float8
all-gathers not modelled (bf16 all-gathers)."""

TORCHTITAN_DEVICES = {"A100": ("a100_80gb", "a100", "200Gbps"), "H100": ("h100_sxm", "h100", "400Gbps")}


def torchtitan(row):
    if row["precision"] == "float8 rowwise":
        raise Skip("float8 rowwise: a scale per row of each operand (torchao's rowwise recipe, its own scaled GEMM); "
                   "dtsim's fp8 recipes scale per tensor")
    fp8 = "current" if row["precision"].split()[0] in ("float8", "fp8") else None
    gpu = row["gpu"].split()[0]
    if gpu not in TORCHTITAN_DEVICES:
        raise Skip(f"{row['gpu']}: not a device of this rule")
    device, platform, nic = TORCHTITAN_DEVICES[gpu]
    size = row["model"].split()[-1]
    gpus = whole(row["gpus"])
    fsdp = whole(row["fsdp_or_zero"].split()[-1])
    tp = whole(row["tp"]) if row["tp"] else 1
    pp = whole(row["pp"]) if row["pp"] else 1
    cp = whole(row["cp"]) if row["cp"] else 1
    if fsdp * tp * pp * cp != gpus:
        raise Skip(f"FSDP {fsdp} x TP {tp} x PP {pp} x CP {cp} is not the {gpus} GPUs")
    seq = whole(row["seq_len"]) if row["seq_len"] else 8192
    local = whole(row["micro_batch"])
    gbs = whole(row["global_batch"]) if row["global_batch"] else local * fsdp
    if pp > 1:
        raise Skip("pipeline rows: the micro-batch size of the pipeline schedule is not stated")
    recompute = "full" if row["recompute"].startswith("full") else "selective" if "selective" in row["recompute"] \
        else "none"
    step = gbs * seq / (number(row["tokens_per_s_per_gpu"]) * gpus)
    body = "\n".join([
        "model:",
        "  name: transformer",
        model_lines(LLAMA3[size], seq, 128256, rms_norm=True, gated_mlp=True, rotary=True, bias=False,
                    flash_attention=True),
        "  dtype: bf16",
        *fp8_lines(fp8),
        "  grad_dtype: fp32",
        "  optimizer: adam",
        cluster_lines(device, gpus, 8, NVLINK[platform], 8, nic),
        strategy_lines(tensor=tp, context=cp, data=fsdp, zero=3, micro_batch=local, global_batch=gbs,
                       recompute=recompute, sequence_parallel=tp > 1),
    ])
    notes = row["notes"]
    compiled = "compile" if any(m in notes for m in ("compile=yes", "torch.compile;", "+ torch.compile")) else "eager"
    async_tp = "_async_tp" if notes.startswith("async TP") or "AsyncTP" in notes or "Async TP" in notes else ""
    checkpointing = re.sub(r"[^a-z]+", "_", row["recompute"].lower()).strip("_") or "none"
    name = f"torchtitan_llama3_{size.lower()}_{device}_{gpus}g_tp{tp}_cp{cp}_mb{local}_{checkpointing}_{compiled}{async_tp}"
    if fp8:
        name += "_" + row["precision"].replace(" ", "_")
    published = f"{row['tokens_per_s_per_gpu']} tokens/s/GPU ({gbs} x {seq} tokens a step: {step:.4g} s)"
    return name, step, published, body


# --- bigscience-workshop/bigscience: BLOOM-176B layout search, Megatron-DeepSpeed on A100 80 GB -----------------------
BLOOM_STATES = """\
The source states: nodes (8 A100 80 GB each, NVLink, 4 Omni-Path links a node), the model's size and (where the
experiment says) layers, hidden and heads, TP, PP, DP, micro-batch, global batch, ZeRO stage where given, and seconds
per iteration (read at iteration 2 or later, as the file says).
Assumed for every BLOOM row: sequence 2048 and vocab 250880 (the production run's); BLOOM's shape (LayerNorm,
GeLU MLP of 4 x hidden, tied embeddings, biases, ALiBi positions as rotary: neither has parameters, and dtsim has no
ALiBi); bf16 where not given, with fp32 gradients; ZeRO-1 where not given (the file's runs use it); full activation checkpointing (the production run's, and
the file's TFLOPs formula assumes it); the 1F1B schedule (Megatron-DeepSpeed's); Omni-Path as 4 NICs of 100 Gb/s."""


def bloom(row):
    if row["notes"].startswith("DUPLICATE"):
        raise Skip("a repeat of an earlier row")
    for key in ("n_layers", "hidden", "heads", "tp", "pp", "dp", "micro_batch", "global_batch"):
        if not row[key]:
            raise Skip(f"{key} not stated for this experiment")
    gpus = whole(row["gpus"])
    tp, pp, dp = whole(row["tp"]), whole(row["pp"]), whole(row["dp"])
    if tp * pp * dp != gpus:
        raise Skip(f"TP {tp} x PP {pp} x DP {dp} is not the {gpus} GPUs")
    layers = whole(row["n_layers"])
    if layers % pp:
        raise Skip(f"{layers} layers do not split over {pp} stages")
    zero = 0 if row["fsdp_or_zero"] == "ZeRO-0" else 1
    shape = dict(layers=layers, hidden=whole(row["hidden"]), heads=whole(row["heads"]))
    micro, gbs = whole(row["micro_batch"]), whole(row["global_batch"])
    step = number(row["step_time_s"])
    body = "\n".join([
        "model:",
        "  name: transformer",
        model_lines(shape, 2048, 250880, positions=0, rotary=True, tied_embeddings=True, bias=True,
                    flash_attention=False),
        f"  dtype: {row['precision'] or 'bf16'}",
        "  grad_dtype: fp32",
        "  optimizer: adam",
        cluster_lines("a100_80gb", gpus, 8, NVLINK["a100"], 4, "100Gbps"),
        strategy_lines(tensor=tp, pipeline=pp, data=dp, zero=zero, micro_batch=micro, global_batch=gbs,
                       recompute="full", schedule="1f1b"),
    ])
    name = f"bloom_{row['model'].lower()}_{gpus}g_tp{tp}_pp{pp}_dp{dp}_mb{micro}_gbs{gbs}_{row['anchor'].split()[0]}"
    published = f"{row['step_time_s']} s an iteration"
    return name, step, published, body


RULES = {"mpt": (mpt, MPT_STATES), "torchtitan": (torchtitan, TORCHTITAN_STATES), "bloom": (bloom, BLOOM_STATES)}


def provenance(row):
    where = row.get("table_heading") or row.get("anchor") or ""
    return f"{row['repo']} @ {row['commit']}, {row['path']}: {where}"


def main():
    written, skipped = [], []
    folder = os.path.join(HERE, "scenarios")
    os.makedirs(folder, exist_ok=True)
    for old in os.listdir(folder):
        if old.endswith(".yaml"):
            os.remove(os.path.join(folder, old))
    for source, (rule, states) in RULES.items():
        with open(os.path.join(HERE, "sources", f"{source}.csv")) as f:
            rows = list(csv.DictReader(f))
        names = set()
        for number_in_file, row in enumerate(rows, start=2):
            try:
                name, step, published, body = rule(row)
            except Skip as why:
                skipped.append((source, number_in_file, str(why)))
                continue
            base, n = name, 2
            while name in names:
                name, n = f"{base}_{n}", n + 1
            names.add(name)
            shown = ", ".join(f"{k}={v}" for k, v in row.items() if v and k not in ("repo", "commit", "path"))
            header = [f"# {provenance(row)}", f"# bench/llm/sources/{source}.csv line {number_in_file}: {shown}",
                      f"# Published: {published}."]
            header += ["# " + line for line in states.splitlines()]
            text = "\n".join(header) + f"\nname: {name}\n" + body + "\nrun: {iterations: 1, warmup: 0, engine: analytical}\n"
            path = os.path.join(folder, f"{name}.yaml")
            with open(path, "w") as out:
                out.write(text)
            written.append((name, source, os.path.relpath(path, os.path.join(HERE, "..", "..")), step, published))
    with open(os.path.join(HERE, "rows.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["name", "source", "scenario", "published_step_s", "published"])
        for name, source, path, step, published in written:
            w.writerow([name, source, path, f"{step:.6g}", published])
    with open(os.path.join(HERE, "skipped.md"), "w") as f:
        f.write("# Published rows bench/llm does not model yet\n\nWritten by bench/llm/make_scenarios.py: the source, "
                "the row's line in bench/llm/sources/<source>.csv, and why.\n\n| source | line | why |\n|---|---:|---|\n")
        for source, line, why in skipped:
            f.write(f"| {source} | {line} | {why} |\n")
    print(f"{len(written)} scenarios, {len(skipped)} rows skipped", file=sys.stderr)


if __name__ == "__main__":
    main()
