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
NVLINK = {"a100": "300GB/s", "h100": "450GB/s", "b200": "900GB/s"}

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
                   sequence_parallel=False, schedule=None, virtual_stages=1, recompute_every=1):
    lines = ["strategy:", "  kind: hybrid", f"  tensor: {tensor}"]
    if pipeline > 1:
        pipe = f"  pipeline: {{stages: {pipeline}"
        if schedule:
            pipe += f", schedule: {schedule}"
        if virtual_stages > 1:
            pipe += f", virtual_stages: {virtual_stages}"
        lines.append(pipe + "}")
    if context > 1:
        lines.append(f"  context: {context}")
    lines += [f"  data: {data}", f"  zero: {zero}", f"  micro_batch: {micro_batch}", f"  global_batch: {global_batch}",
              f"  recompute: {recompute}"]
    if recompute_every > 1:
        lines.append(f"  recompute_every: {recompute_every}")
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
FULL_SHARD as ZeRO-3 and SHARD_GRAD_OP as ZeRO-2 over every GPU; decoupled AdamW as Adam (its kernels by the fsdp preset: Composer's for-loop, docs/engines.md, Framework
presets); amp_bf16 (FSDP mixed
precision DEFAULT: fp32 gradients reduced) as autocast with fp32 gradients, bf16 (PURE) as pure bf16; amp_fp8 as
amp_bf16 with fp8: delayed (Composer's amp_fp8 runs Transformer Engine's fp8_autocast with its DelayedScaling
recipe: mosaicml/composer @ fe7964f composer/core/precision.py L78-89; the benchmark script builds the linear layers
from Transformer Engine, fc_type te: bench/llm/sources/mpt.md).
The attention kernel, from the script that made each table (bench/llm/sources/mpt.md, Attention): llm-foundry's
attn_impl: triton (FlashAttention in Triton, framework.attention_backend: flash_triton), submit_benchmarks.py's default
at 300cc5c58 and b2a43a147, for every table but the large-scale H100 one, whose sweep.py (5e85bd62d) ran 1b, 3b, 7b
and 70b with attn_impl: flash (FlashAttention-2, flash2) and 13b and 30b with triton."""

MPT_DEVICES = {"a100_40gb": ("a100_40gb", "a100", "200Gbps"), "a100_80gb": ("a100_80gb", "a100", "200Gbps"),
               "h100_80gb": ("h100_sxm", "h100", "400Gbps")}


# The large-scale table's models that sweep.py (mosaicml/llm-foundry @ 5e85bd62d) ran with --attn_impl flash.
MPT_LARGE_SCALE_FLASH = {"1b", "3b", "7b", "70b"}


def mpt(row):
    device, platform, nic = MPT_DEVICES[row["gpu"]]
    large_scale = row["table_heading"].startswith("H100 80GB BF16 (Large Scale")
    attention = "flash2" if large_scale and row["model"] in MPT_LARGE_SCALE_FLASH else "flash_triton"
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
        "  preset: fsdp",
        f"  mixed_precision: {'pure' if pure else 'autocast'}",
        f"  attention_backend: {attention}",
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
the H100 rows' parts as dtsim's h100_sxm_hbm2e (the sources: 96 GB of HBM2e at 2.4 TB/s, a 500 W limit; the SXM's
peaks, as their clocks under that limit are not published); FSDP2 as ZeRO-3;
selective op checkpointing (the 2024-12 tables' "selective": the 8B train config's selective_ac_option 'op',
train_configs/llama3_8b.toml @ 9dec370) as selective_op, torchtitan's per-op policy; selective layer checkpointing as
full recompute of every second block (selective_ac_option's default 2, torchtitan/config_manager.py @ 4d88a8a
L492-494); bf16 with the torchtitan preset (FSDP2's default mixed precision: bf16 compute, gradients reduced in fp32;
fused AdamW; RMSNorm, rotary, SwiGLU and the loss op by op as PyTorch eager runs them: docs/engines.md, Framework
presets), and with torch.compile the blocks compiled (framework.pointwise_kernels: compiled_blocks, torchtitan's
apply_compile: each TransformerBlock, not the final norm and the loss);
flash attention (SDPA); float8 and float8
tensorwise as fp8: current (torchao's Float8Linear with dynamic per-tensor scaling, torchtitan's default:
pytorch/torchtitan @ 4d88a8a torchtitan/config_manager.py L524-527 and @ 9dec370, the 2024-12 benchmarks' commit,
L552-568, and torchtitan/float8.py L87 "only dynamic tensor scaling (the default) is supported"); FSDP2's float8
all-gathers not modelled (bf16 all-gathers)."""

TORCHTITAN_DEVICES = {"A100": ("a100_80gb", "a100", "200Gbps"), "H100": ("h100_sxm_hbm2e", "h100", "400Gbps")}


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
    every = 1
    if row["recompute"].startswith("full"):
        recompute = "full"
    elif row["recompute"] == "selective layer":
        recompute, every = "full", 2
    elif row["recompute"].startswith("selective"):
        recompute = "selective_op"
    else:
        recompute = "none"
    notes = row["notes"]
    compiled = "compile" if any(m in notes for m in ("compile=yes", "torch.compile;", "+ torch.compile")) else "eager"
    step = gbs * seq / (number(row["tokens_per_s_per_gpu"]) * gpus)
    body = "\n".join([
        "model:",
        "  name: transformer",
        model_lines(LLAMA3[size], seq, 128256, rms_norm=True, gated_mlp=True, rotary=True, bias=False,
                    flash_attention=True),
        "  dtype: bf16",
        *fp8_lines(fp8),
        "  optimizer: adam",
        cluster_lines(device, gpus, 8, NVLINK[platform], 8, nic),
        strategy_lines(tensor=tp, context=cp, data=fsdp, zero=3, micro_batch=local, global_batch=gbs,
                       recompute=recompute, sequence_parallel=tp > 1, recompute_every=every),
        "framework:",
        "  preset: torchtitan",
        *(["  pointwise_kernels: compiled_blocks"] if compiled == "compile" else []),
    ])
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
ALiBi; dtsim's rotary pass over the queries and keys, which ALiBi does not run, is 0.3 % of a step); bf16 where not given; the megatron_deepspeed preset (DeepSpeed's bf16 optimizer: fp32 gradients reduced
after the pipeline's flush, apex FusedAdam: docs/engines.md, Framework presets); ZeRO-1 where not given (the file's runs use it); full activation checkpointing (the production run's, and
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
        "  optimizer: adam",
        cluster_lines("a100_80gb", gpus, 8, NVLINK["a100"], 4, "100Gbps"),
        strategy_lines(tensor=tp, pipeline=pp, data=dp, zero=zero, micro_batch=micro, global_batch=gbs,
                       recompute="full", schedule="1f1b"),
        "framework:",
        "  preset: megatron_deepspeed",
    ])
    name = f"bloom_{row['model'].lower()}_{gpus}g_tp{tp}_pp{pp}_dp{dp}_mb{micro}_gbs{gbs}_{row['anchor'].split()[0]}"
    published = f"{row['step_time_s']} s an iteration"
    return name, step, published, body


# --- NVIDIA NeMo / Megatron-Core family: DGX H100 and the layout as Megatron runs it --------------------------------
# DGX H100: 8 GPUs a node, NVLink 4 (NVLINK["h100"]), 8 ConnectX-7 NICs of 400 Gb/s (mlcommons/training_results_v4.0
# NVIDIA/systems/*.json; NVIDIA's DGX H100 data sheet).
DGX_H100_NICS = (8, "400Gbps")

# Shapes: bench/llm/sources/shapes.md (file and line of every value).
GPT3 = dict(bias=True, tied_embeddings=True, flash_attention=True)  # LayerNorm, GeLU, learned positions
LLAMA = dict(rms_norm=True, gated_mlp=True, rotary=True, bias=False, tied_embeddings=False, flash_attention=True)
NEMOTRON = dict(rotary=True, bias=False, tied_embeddings=False, flash_attention=True)  # LayerNorm, squared ReLU


def megatron_layout(gpus, tp, pp, cp, vp, layers):
    """The data-parallel size of a Megatron layout (GPUs / (TP x PP x CP)), checked as Megatron would."""
    if gpus % (tp * pp * cp):
        raise Skip(f"TP {tp} x PP {pp} x CP {cp} does not divide the {gpus} GPUs")
    if layers % (pp * vp):
        raise Skip(f"{layers} layers do not split over {pp} stages x {vp} virtual stages")
    return gpus // (tp * pp * cp)


# DGX B200: 8 GPUs a node, NVLink 5 (NVLINK["b200"]: 1.8 TB/s a GPU both ways), 8 ConnectX-7 NICs of 400 Gb/s (NVIDIA
# DGX B200 data sheet, 2024; docs/collectives.md, the dgx_b200 preset).
DGX_H100 = ("h100_sxm", NVLINK["h100"], *DGX_H100_NICS)
DGX_B200 = ("b200", NVLINK["b200"], 8, "400Gbps")


def megatron_lines(shape, seq, vocab, flags, fp8, grad_dtype, gpus, tp, pp, cp, vp, dp, zero, micro, gbs, recompute,
                   tp_overlap=None, system=DGX_H100):
    device, nvlink, nics, nic_rate = system
    return "\n".join([
        "model:",
        "  name: transformer",
        model_lines(shape, seq, vocab, **flags),
        "  dtype: bf16",
        *fp8_lines(fp8),
        *([f"  grad_dtype: {grad_dtype}"] if grad_dtype else []),
        "  optimizer: adam",
        cluster_lines(device, gpus, 8, nvlink, nics, nic_rate),
        strategy_lines(tensor=tp, pipeline=pp, context=cp, data=dp, zero=zero, micro_batch=micro, global_batch=gbs,
                       recompute=recompute, sequence_parallel=tp > 1,
                       schedule="interleaved" if vp > 1 else "1f1b", virtual_stages=vp),
        "framework:",
        "  preset: nemo",
        *([f"  tp_comm_overlap: {'true' if tp_overlap else 'false'}"] if tp_overlap is not None else []),
    ])


def fine_tuning(row):
    """The row's task from its notes (task=...); LoRA rows are skipped here: dtsim trains every weight."""
    task = re.search(r"task=(\w+)", row["notes"]).group(1)
    if task == "LoRA":
        raise Skip("LoRA fine-tuning: the base weights are frozen (no weight gradients, no optimizer for them); "
                   "dtsim trains every weight")
    return task


def degree(text):
    """A TP/PP/CP/VP/EP cell: 'n/a' or empty is 1."""
    return 1 if text.strip() in ("", "n/a") else whole(text)


# --- NVIDIA/NeMo: NeMo 24.07 performance summary (and 24.03 long-sequence table), DGX-H100, FP8 -----------------------
NEMO_STATES = """\
The source states: the model, GPUs (DGX-H100), FP8 precision, global and micro batch, sequence length, TP/PP/CP/VP,
tokens/s/GPU (the container: NeMo 24.07).
Assumed for every NeMo row: the shapes of NeMo-Framework-Launcher 24.07's training configs (GPT3: LayerNorm, GeLU,
biases, learned positions, tied embeddings; Llama: RMSNorm, SwiGLU, rotary, no biases, untied; Nemotron: LayerNorm,
squared-ReLU MLP of two matrices, rotary, no biases, untied) and the vocabularies of NeMo's performance scripts
(bench/llm/sources/shapes.md); DGX H100 nodes: 8 GPUs, NVLink at its line rate, 8 NICs of 400 Gb/s; DP = GPUs / (TP
x PP x CP); the interleaved schedule where VP > 1, else 1F1B; sequence parallelism where TP > 1 and the distributed
optimizer (ZeRO-1), as every launcher config of these models sets them (sequence_parallel, optim
distributed_fused_adam: NVIDIA/NeMo-Framework-Launcher @ 8325688 launcher_scripts/conf/training/*); recompute as
those configs set it: none, Nemotron-340B selective (nemotron/nemotron_340b.yaml L122); TP communication overlap as
those configs set it (ub_tp_comm_overlap: on for GPT3-20B, Llama 2 70B, Llama 3 70B, Nemotron-8B and 22B; off for
GPT3-175B, Nemotron-340B and the TP-1 models: gpt3/*.yaml L149, llama/*.yaml L136-138, nemotron/*.yaml L156-158;
with TP 1 or no sequence parallelism it does nothing either way); FP8 as fp8: delayed (the
configs' fp8 knobs are Transformer Engine's DelayedScaling recipe, fp8_hybrid, amax history 1024, max: gpt3/175b.yaml
L143-148); the nemo preset (docs/engines.md, Framework presets): gradient reduction overlapped with the backward, and
in fp32 (here too NeMo gives the distributed optimizer fp32 as its dtype and no grad_sync_dtype, which Apex's
DistributedFusedAdam then reduces gradients in: NVIDIA/NeMo @ e2de75c
nemo/collections/nlp/models/language_modeling/megatron_base_model.py L795-796); TE's fused attention as flash
attention."""

NEMO_SHAPES = {
    "GPT3-5B": (dict(layers=24, hidden=4096, heads=32, ffn=16384), 51200, GPT3),
    "GPT3-20B": (dict(layers=44, hidden=6144, heads=48, ffn=24576), 51200, GPT3),
    "GPT3-175B": (dict(layers=96, hidden=12288, heads=96, ffn=49152), 51200, GPT3),
    "LLAMA2-7B": (dict(layers=32, hidden=4096, heads=32, ffn=11008), 32000, LLAMA),
    "LLAMA2-13B": (dict(layers=40, hidden=5120, heads=40, ffn=13824), 32000, LLAMA),
    "LLAMA2-70B": (dict(layers=80, hidden=8192, heads=64, kv_heads=8, ffn=28672), 32000, LLAMA),
    "LLAMA3-8B": (dict(LLAMA3["8B"]), 128256, LLAMA),
    "LLAMA3-70B": (dict(LLAMA3["70B"]), 128256, LLAMA),
    "Nemotron-8B": (dict(layers=32, hidden=4096, heads=32, ffn=16384), 256000, NEMOTRON),
    "Nemotron-22B": (dict(layers=40, hidden=6144, heads=48, ffn=24576), 256000, NEMOTRON),
    "Nemotron-340B": (dict(layers=96, hidden=18432, heads=96, kv_heads=8, ffn=73728), 256000, NEMOTRON),
}
# Activation recomputation of the launcher's training config of each model (NeMo-Framework-Launcher @ 8325688:
# activations_checkpoint_granularity null in every other config of the table's models).
NEMO_RECOMPUTE = {"Nemotron-340B": "selective"}
# model.ub_tp_comm_overlap of the same configs (NeMo-Framework-Launcher @ 8325688, launcher_scripts/conf/training/).
NEMO_TP_OVERLAP = {
    "GPT3-5B": False,  # gpt3/5b.yaml L149
    "GPT3-20B": True,  # gpt3/20b.yaml L149
    "GPT3-175B": False,  # gpt3/175b.yaml L149 (its L3 names a ub cfg that L149 leaves unused)
    "LLAMA2-7B": False,  # llama/llama2_7b.yaml L138
    "LLAMA2-13B": False,  # llama/llama2_13b.yaml L136
    "LLAMA2-70B": True,  # llama/llama2_70b.yaml L136
    "LLAMA3-8B": False,  # llama/llama3_8b.yaml L136
    "LLAMA3-70B": True,  # llama/llama3_70b.yaml L136
    "Nemotron-8B": True,  # nemotron/nemotron_8b.yaml L158
    "Nemotron-22B": True,  # nemotron/nemotron_22b.yaml L158
    "Nemotron-340B": False,  # nemotron/nemotron_340b.yaml L156
}


def nemo(row):
    if row["source"] == "nemo-performance-long-sequence":
        raise Skip("long-sequence table: prints model TFLOP/s only (no tokens/s or step time, and the doc does not "
                   "define its FLOP count) and no micro-batch size")
    if fine_tuning(row) == "SFT":
        raise Skip("SFT on SQuAD packed to 4096 tokens: attention runs within each packed sub-sequence, whose "
                   "lengths are not published; dtsim would cost 4096-token attention")
    if row["precision"] != "FP8":
        raise Skip(f"precision '{row['precision']}' is not this rule's")
    shape, vocab, flags = NEMO_SHAPES[row["model"]]
    gpus, seq = whole(row["gpus"]), whole(row["seq_len"])
    tp, pp, cp, vp = (degree(row[k]) for k in ("tp", "pp", "cp", "vp"))
    dp = megatron_layout(gpus, tp, pp, cp, vp, shape["layers"])
    micro, gbs = whole(row["micro_batch"]), whole(row["global_batch"])
    recompute = NEMO_RECOMPUTE.get(row["model"], "none")
    step = gbs * seq / (number(row["tokens_per_s_per_gpu"]) * gpus)
    body = megatron_lines(shape, seq, vocab, flags, "delayed", None, gpus, tp, pp, cp, vp, dp, 1, micro, gbs,
                          recompute, NEMO_TP_OVERLAP[row["model"]])
    name = (f"nemo_{row['model'].lower().replace('-', '_')}_{gpus}g_tp{tp}_pp{pp}_cp{cp}_vp{vp}_mb{micro}_gbs{gbs}"
            "_fp8")
    published = f"{row['tokens_per_s_per_gpu']} tokens/s/GPU ({gbs} x {seq} tokens a step: {step:.4g} s)"
    return name, step, published, body


# --- NVIDIA-NeMo/Megatron-Bridge: performance summary archive (25.09 to 26.06), DGX-H100 ----------------------------
BRIDGE_STATES = """\
The source states: the release, the model, GPUs (DGX-H100), precision (from 25.11), global and micro batch, sequence
length, TP/PP/CP/VP/EP, FSDP (> 0: Megatron FSDP over GPUs / (TP x PP); 0: DDP), tokens/s/GPU.
Assumed for every Megatron-Bridge row: Llama 3's shapes as the Bridge's providers and perf configs give them
(bench/llm/sources/shapes.md); DGX H100 nodes: 8 GPUs, NVLink at its line rate, 8 NICs of 400 Gb/s; DP = GPUs / (TP x
PP x CP); the interleaved schedule where VP > 1, else 1F1B; FSDP > 0 as ZeRO-3, else the distributed optimizer as
ZeRO-1 (the Llama recipes set use_distributed_optimizer: NVIDIA-NeMo/Megatron-Bridge @ 684a686 (r0.1.0)
src/megatron/bridge/recipes/llama/llama3_70b.py L184, @ 3743c70 (r0.4.0) recipes/llama/llama3.py L730); sequence
parallelism where TP > 1 (the perf scripts set it so: r0.1.0 scripts/performance/utils/helpers.py L169, r0.4.0
scripts/performance/utils/overrides.py L309); no recompute (the H100 Llama 3 70B and 8B perf configs set none:
r0.1.0 scripts/performance/configs/llama3/*.yaml, r0.4.0 recipes/llama/llama3.py L705-706); bf16 gradients reduced
(grad_reduce_in_fp32 false in every perf config: r0.1.0 configs/llama3/llama3_70b_llm_pretrain.yaml L42-43, r0.4.0
configs/llama/llama3_llm_pretrain.py L43-44); FP8-CS and the 26.x FP8 as fp8: current (from 25.11 the perf scripts
offer no delayed scaling, compute_dtype bf16, fp8_cs, fp8_mx, fp8_sc, nvfp4: @ 0465189 (r0.2.0)
scripts/performance/argument_parser.py L135-140, and the only H100 FP8 Llama 3 configs of 26.02 and 26.04 are FP8_CS:
r0.3.0 and r0.4.0 configs/llama/llama3_workload_base_configs.py); 25.09, no precision printed, as fp8: delayed (its
layouts are the fp8 entries of r0.1.0's perf matrix, whose --fp8_recipe defaults to ds, per-tensor delayed scaling:
r0.1.0 scripts/performance/argument_parser.py L95-107); TE's fused attention as flash attention; the nemo preset
for the rest (the Bridge runs NeMo's Megatron-Core recipes: gradient reduction overlapped with the backward, and TP
communication overlap, which the 70B perf config sets too: @ 067f987 src/megatron/bridge/perf_recipes/llama/h100/
llama3.py, llama3_70b_pretrain_64gpu_h100_fp8cs_config; its own bf16 reduction above wins: docs/engines.md,
Framework presets)."""

BRIDGE_MOE = {
    "Qwen3": "Qwen3 MoE: 128-wide heads (kv_channels 128) make attention twice the hidden size wide; dtsim's heads "
             "are hidden / heads wide (shapes.md)",
    "GPT OSS": "GPT-OSS: 64-wide heads make attention 4096 wide against hidden 2880, and attention sinks; dtsim has "
               "neither (its 128-token sliding window on every other layer is model.transformer.window; shapes.md)",
    "DeepSeekV3": "DeepSeek-V3: multi-latent attention, shared experts and dense first layers; dtsim has none of "
                  "these (shapes.md)",
    "Nemotron_3_Nano": "Nemotron 3 Nano: a hybrid of Mamba, MoE and attention layers; dtsim has no Mamba layer",
}


def megatron_bridge(row):
    for prefix, why in BRIDGE_MOE.items():
        if row["model"].startswith(prefix):
            raise Skip(why)
    if fine_tuning(row) == "SFT":
        raise Skip("SFT on packed sequences (the Bridge's H100 SFT perf config packs to the sequence length: r0.5.0 "
                   "scripts/performance/configs/llama/llama3_llm_finetune.py L166-183): attention runs within each "
                   "packed sub-sequence, whose lengths are not published")
    if row["model"] == "LLAMA3.1_405B":
        raise Skip("126 layers over PP 8 x VP 8: the recipe counts the embedding and the loss as a layer each "
                   "(account_for_embedding/loss_in_pipeline_split: r0.1.0 recipes/llama/llama31_405b.py L47-48, "
                   "r0.2.0 recipes/llama/llama3.py L413-414); dtsim splits the transformer layers evenly only")
    container = re.search(r"container=([\d.]+)", row["notes"]).group(1)
    if row["model"] == "LLAMA3_8B" and container == "25.11":
        raise Skip("the doc prints FSDP 8, the 25.11 perf config (r0.2.0 configs/llama3/workload_base_configs.py "
                   "L231-235) runs without FSDP and recomputes 5 of the 32 layers in full: which ran is not known, "
                   "and dtsim recomputes every layer or none")
    fp8 = {"FP8-CS": "current", "FP8": "current", "": "delayed"}.get(row["precision"])
    if fp8 is None:
        raise Skip(f"precision '{row['precision']}' is not this rule's")
    size = {"LLAMA3_8B": "8B", "LLAMA3_70B": "70B"}[row["model"]]
    return bridge_llama(row, container, size, fp8, DGX_H100, "megatron_bridge")


def bridge_llama(row, container, size, fp8, system, prefix, fsdp_refused=None):
    """A Megatron-Bridge Llama 3 row on `system` (the H100 and B200 rules share it): FSDP > 0 as ZeRO-3 over GPUs / (TP
    x PP), unless `fsdp_refused` says why this system's rows cannot take it."""
    gpus, seq = whole(row["gpus"]), whole(row["seq_len"])
    tp, pp, cp, vp, ep = (degree(row[k]) for k in ("tp", "pp", "cp", "vp", "ep"))
    if ep != 1:
        raise Skip(f"EP {ep} in a dense model")
    shape = dict(LLAMA3[size])
    dp = megatron_layout(gpus, tp, pp, cp, vp, shape["layers"])
    fsdp = whole(row["fsdp"]) if row["fsdp"] else 0
    if fsdp and fsdp_refused:
        raise Skip(fsdp_refused)
    if fsdp and fsdp != gpus // (tp * pp):
        raise Skip(f"FSDP {fsdp} is not GPUs / (TP x PP)")
    micro, gbs = whole(row["micro_batch"]), whole(row["global_batch"])
    step = gbs * seq / (number(row["tokens_per_s_per_gpu"]) * gpus)
    body = megatron_lines(shape, seq, 128256, LLAMA, fp8, "bf16", gpus, tp, pp, cp, vp, dp, 3 if fsdp else 1, micro,
                          gbs, "none", system=system)
    name = (f"{prefix}_{container.replace('.', '_')}_llama3_{size.lower()}_{gpus}g_tp{tp}_pp{pp}_cp{cp}_vp{vp}"
            f"_mb{micro}_gbs{gbs}_fp8_{fp8}")
    published = f"{row['tokens_per_s_per_gpu']} tokens/s/GPU ({gbs} x {seq} tokens a step: {step:.4g} s)"
    return name, step, published, body


# --- mlcommons/training_results_v4.0: NVIDIA's GPT-3 175B (NeMo) on Eos, DGX H100, FP8 --------------------------------
MLPERF_GPT3_STATES = """\
The source states (config scripts, conf/custom.yaml, the systems' json and the result logs): GPT-3 175B (96 layers,
hidden 12288, 96 heads, ffn 4 x hidden, sequence 2048, LayerNorm), H100-SXM5-80GB, 8 a node with NVLink 4 and 8
ConnectX-7 NDR 400 Gb/s NICs, TP/PP/VP, DP = GPUs / (TP x PP), micro and global batch (the log's), FP8 with
Transformer Engine's delayed scaling (config_fp8.sh: FP8_HYBRID, amax history 1024, max), the distributed optimizer
(USE_DIST_OPTIMIZER), gradients reduced in bf16 (conf/optim/distributed_fused_adam.yaml L8, grad_sync_dtype),
sequence parallelism on (SEQ_PARALLEL default True, custom.yaml L105), TP communication overlap on (TP_COMM_OVERLAP=True
in each config_DGXH100_*.sh L25, read by custom.yaml L116), no activation recompute (ACT_CKPT_GRANULARITY
unset), and seconds per step (from the logs' block timestamps, blocks 2 on).
Assumed for every MLPerf row: NeMo's GPT defaults for what custom.yaml leaves (biases, GeLU, learned positions, tied
embeddings) and vocab 50257, the benchmark reference's (bench/llm/sources/shapes.md); NVLink at its line rate; fp8:
delayed for FP8; the distributed optimizer as ZeRO-1; the interleaved schedule (VP > 1 in every row); TE's fused
attention as flash attention; the nemo preset for the rest (gradient reduction overlapped with the backward; the
configs' bf16 reduction above wins: docs/engines.md, Framework presets), whose framework.fp8_param_gather is the
configs' FP8_PARAMS=True (config_common.sh L74: the distributed optimizer gathers the fp8 weights in one byte). CUDA
graphs, which the large configs turn on (LAYER_CUDA_GRAPH=1), are left to dtsim's defaults."""


def mlperf_gpt3(row):
    gpus, seq = whole(row["gpus"]), whole(row["seq_len"])
    if whole(row["gpus_per_node"]) != 8:
        raise Skip(f"{row['gpus_per_node']} GPUs a node")
    tp, pp, vp = whole(row["tp"]), whole(row["pp"]), whole(row["vp"])
    cp = degree(row["cp"])
    shape = dict(layers=whole(row["n_layers"]), hidden=whole(row["hidden"]), heads=whole(row["heads"]),
                 ffn=whole(row["ffn_hidden"]))
    dp = megatron_layout(gpus, tp, pp, cp, vp, shape["layers"])
    if dp != whole(row["dp"]):
        raise Skip(f"DP {row['dp']} is not GPUs / (TP x PP x CP) = {dp}")
    micro, gbs = whole(row["micro_batch"]), whole(row["global_batch"])
    step = number(row["step_time_s"])
    body = megatron_lines(shape, seq, 50257, GPT3, "delayed", "bf16", gpus, tp, pp, cp, vp, dp, 1, micro, gbs, "none",
                          True)
    system = row["path"].split("/")[2].split("_ngc")[0].replace("-", "_")
    run = os.path.splitext(os.path.basename(row["path"]))[0]
    name = f"mlperf_gpt3_175b_{system}_{gpus}g_tp{tp}_pp{pp}_vp{vp}_mb{micro}_gbs{gbs}_fp8_{run}"
    published = (f"{row['step_time_s']} s a step (mean of the log's blocks 2 on; {row['tokens_per_s_per_gpu']} "
                 "tokens/s/GPU)")
    return name, step, published, body


# --- NVIDIA-NeMo/Megatron-Bridge: the same archive's DGX-B200 rows ---------------------------------------------------
BRIDGE_B200_STATES = """\
The source states: the release, the model, GPUs (DGX-B200), precision (25.11), global and micro batch, sequence length,
TP/PP/CP/VP/EP, FSDP (0: DDP), tokens/s/GPU. The recipes behind the Llama 3 8B rows (bench/llm/sources/
megatron_bridge.md, B200 rows): no recompute, no TP overlap (TP 1), the distributed optimizer with the gradient
reduction and the parameter gather overlapped, bf16 gradients reduced (grad_reduce_in_fp32 false), fp8 weights
gathered (fp8_param_gather true: r0.2.0 scripts/performance/configs/llama3/llama3_llm_pretrain.py L46-47, utils/
helpers.py L35-52), CUDA graphs over the whole iteration (workload_base_configs.py L212-213).
Assumed for every Megatron-Bridge B200 row: Llama 3's shapes (bench/llm/sources/shapes.md); DGX B200 nodes: 8 GPUs,
NVLink 5 at its line rate, 8 NICs of 400 Gb/s (the DGX B200 data sheet); the distributed optimizer as ZeRO-1; FP8-CS as
fp8: current; 25.09, no precision printed, as fp8: delayed (as the H100 rows: r0.1.0's --fp8_recipe default);
TE's fused attention as flash attention (the zoo's B200 has no attention figure: it runs at the device's efficiency);
the nemo preset for the rest; CUDA graphs left to dtsim's defaults. Nothing about these rows or the B200 was fitted:
its kernel figures come from other measurements (models/zoo/data/devices.yaml)."""


def megatron_bridge_b200(row):
    if row["model"] != "LLAMA3_8B":
        if row["model"] == "LLAMA3.1_405B":
            raise Skip("126 layers over PP 8 x VP 8 with the embedding and the loss counted as layers (r0.2.0 "
                       "recipes/llama/llama3.py L413-414); dtsim splits the transformer layers evenly only")
        raise Skip(f"{row['model']}: a MoE or hybrid model (latent attention, wide heads, attention sinks or Mamba "
                   "layers, as the H100 rows' reasons say); dtsim has none of these")
    fp8 = {"FP8-CS": "current", "": "delayed"}.get(row["precision"])
    if fp8 is None:
        raise Skip(f"precision '{row['precision']}' is not this rule's")
    container = re.search(r"container=([\d.]+)", row["notes"]).group(1)
    return bridge_llama(row, container, "8B", fp8, DGX_B200, "megatron_bridge_b200",
                        fsdp_refused="Megatron FSDP on B200: the recipes behind it offload activations to the CPU")


RULES = {"mpt": (mpt, MPT_STATES), "torchtitan": (torchtitan, TORCHTITAN_STATES), "bloom": (bloom, BLOOM_STATES),
         "nemo": (nemo, NEMO_STATES), "megatron_bridge": (megatron_bridge, BRIDGE_STATES),
         "megatron_bridge_b200": (megatron_bridge_b200, BRIDGE_B200_STATES),
         "mlperf_gpt3": (mlperf_gpt3, MLPERF_GPT3_STATES)}


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
