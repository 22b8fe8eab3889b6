# PyTorch reference for bench/llm's MPT rows on one GPU (synthetic tokens): MPT as mosaicml/llm-foundry
# builds it (no biases, low-precision LayerNorm, learned positions, tied embedding, GELU MLP of 4x,
# FlashAttention-2), trained as Composer's amp_bf16 runs it: torch.autocast(bf16) inside PyTorch FSDP1
# (FULL_SHARD, one unit per block, mixed precision DEFAULT: bf16 parameters, fp32 reduction;
# BACKWARD_POST prefetch, limit_all_gathers), and a for-loop AdamW (Composer's DecoupledAdamW runs one
# kernel per op and tensor). On one rank FSDP runs NO_SHARD (it warns so): no gathers or reductions, what is left is
# each kernel the model runs and the framework's own work. One micro-batch and the optimizer per step,
# at the rows' micro-batch and sequence lengths; also the 1B at 8k without FSDP (plain autocast over
# fp32 parameters) to show what FSDP adds. For each: the step's time, peak memory, and where the GPU
# time goes by kernel class (torch_timing.profile_classes). Run there with its python3:
#   python3 scripts/torch_mpt_probe.py OUT.json [flash2|cudnn] [CONFIGS]
# The second argument picks scaled-dot-product attention's backend (flash2, FlashAttention-2 as llm-foundry runs it,
# by default; cudnn, cuDNN's fused attention), the third the configurations to run (indexes into CONFIGS, "0,2").
# bench/validation/gpu_h200.md compares it with dtsim's 1-GPU scenarios of the same shapes.
import json
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn

from torch_timing import profile_classes, step_times

dev = "cuda"
VOCAB = 50368
# (name, layers, d_model, heads, sequence, micro-batch, fsdp): shapes of llm-foundry's mpt-*.yaml, micro-batches
# of its benchmarking README's H100 rows
# (the 3B at 2 micro-batches, not the row's 3: one GPU holds all of its optimizer state)
CONFIGS = [("1b", 24, 2048, 16, 8192, 3, True), ("1b", 24, 2048, 16, 32768, 1, True),
           ("1b", 24, 2048, 16, 2048, 14, True), ("1b", 24, 2048, 16, 8192, 3, False),
           ("760m", 24, 1536, 12, 2048, 24, True), ("3b", 32, 2560, 20, 8192, 2, True)]


ATTENTION = sys.argv[2] if len(sys.argv) > 2 else "flash2"
if len(sys.argv) > 3:
    CONFIGS = [CONFIGS[int(i)] for i in sys.argv[3].split(",")]


class LPLayerNorm(nn.LayerNorm):
    """llm-foundry's low_precision_layernorm: the norm in the autocast dtype, not fp32."""

    def forward(self, x):
        dt = torch.get_autocast_dtype("cuda") if torch.is_autocast_enabled() else x.dtype
        with torch.autocast("cuda", enabled=False):
            w = self.weight.to(dt) if self.weight is not None else None
            return F.layer_norm(x.to(dt), self.normalized_shape, w, None, self.eps)


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.norm_1 = LPLayerNorm(d, bias=False)
        self.Wqkv = nn.Linear(d, 3 * d, bias=False)
        self.out_proj = nn.Linear(d, d, bias=False)
        self.norm_2 = LPLayerNorm(d, bias=False)
        self.up_proj = nn.Linear(d, 4 * d, bias=False)
        self.down_proj = nn.Linear(4 * d, d, bias=False)

    def forward(self, x):
        from torch.nn.attention import SDPBackend, sdpa_kernel
        b, s, d = x.shape
        q, k, v = self.Wqkv(self.norm_1(x)).view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        with sdpa_kernel([SDPBackend.CUDNN_ATTENTION if ATTENTION == "cudnn" else SDPBackend.FLASH_ATTENTION]):
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.out_proj(a.transpose(1, 2).reshape(b, s, d))
        return x + self.down_proj(F.gelu(self.up_proj(self.norm_2(x))))


class MPT(nn.Module):
    def __init__(self, layers, d, heads, seq):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, d)
        self.wpe = nn.Embedding(seq, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.norm_f = LPLayerNorm(d, bias=False)

    def forward(self, idx):
        x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1], device=idx.device))
        for blk in self.blocks:
            x = blk(x)
        return F.linear(self.norm_f(x), self.wte.weight)  # tied embedding


def training(layers, d, heads, seq, micro, fsdp):
    torch.manual_seed(0)
    model = MPT(layers, d, heads, seq).to(dev)
    params = sum(p.numel() for p in model.parameters())
    if fsdp:
        from torch.distributed.fsdp import BackwardPrefetch, MixedPrecision, ShardingStrategy
        from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
        from torch.distributed.fsdp.wrap import ModuleWrapPolicy
        model = FSDP(model, sharding_strategy=ShardingStrategy.FULL_SHARD,
                     auto_wrap_policy=ModuleWrapPolicy({Block}),
                     mixed_precision=MixedPrecision(param_dtype=torch.bfloat16, reduce_dtype=torch.float32,
                                                    buffer_dtype=torch.bfloat16),
                     backward_prefetch=BackwardPrefetch.BACKWARD_POST, limit_all_gathers=True,
                     use_orig_params=True, device_id=torch.cuda.current_device())
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=False, fused=False)
    tokens = torch.randint(0, VOCAB, (micro, seq + 1), device=dev)

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(tokens[:, :-1])
            loss = F.cross_entropy(logits.view(-1, VOCAB), tokens[:, 1:].reshape(-1))
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    return model, opt, step, params


def measure(name, layers, d, heads, seq, micro, fsdp, iters=4, warm=2):
    model, opt, step, params = training(layers, d, heads, seq, micro, fsdp)
    times = step_times(step, iters, warm)
    peak = torch.cuda.max_memory_allocated() / 2**30
    prof = profile_classes(step)
    del model, opt, step
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    return {"model": name, "layers": layers, "d_model": d, "heads": heads, "seq": seq, "micro_batch": micro,
            "fsdp": fsdp, "parameters": params, "step_s_median": times[len(times) // 2], "step_s_min": times[0],
            "step_s_max": times[-1], "tokens_per_s": micro * seq / times[len(times) // 2],
            "peak_memory_gib": peak, "profile": prof}


os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29517")
torch.cuda.set_device(0)
res = {"torch": torch.__version__, "cuda": torch.version.cuda, "device": torch.cuda.get_device_name(0),
       "vocab": VOCAB, "attention": ATTENTION, "runs": [], "errors": []}
try:
    dist.init_process_group("nccl", rank=0, world_size=1)
except Exception as ex:  # no process group: the runs without FSDP only
    res["errors"].append(f"init_process_group: {ex}"[:500])
    CONFIGS = [c for c in CONFIGS if not c[-1]]
out_path = sys.argv[1] if len(sys.argv) > 1 else "torch_mpt.json"
for cfg in CONFIGS:
    t0 = time.perf_counter()
    try:
        r = measure(*cfg)
        r["probe_seconds"] = round(time.perf_counter() - t0, 1)
        res["runs"].append(r)
        print(f"{cfg}: step {r['step_s_median'] * 1e3:.1f} ms, {r['tokens_per_s']:.0f} tokens/s, "
              f"{r['peak_memory_gib']:.1f} GiB, by class {r['profile']['ms_per_step_by_class']}", flush=True)
    except Exception as ex:
        res["errors"].append(f"{cfg}: {ex}"[:500])
        print(f"{cfg} failed: {ex}", flush=True)
        torch.cuda.empty_cache()
    with open(out_path, "w") as f:
        json.dump(res, f, indent=1)
if dist.is_initialized():
    dist.destroy_process_group()
