# PyTorch reference for scenarios/hybrid_gpt_1gpu.yaml on a GPU machine (synthetic tokens): a GPT of
# GPT-3 XL's shape (24 layers, hidden 2048, 16 heads, sequence 2048, vocabulary 50304, GELU MLP of 4x,
# pre-LayerNorm, learned positions, tied embedding), bf16 autocast over fp32 parameters, PyTorch's
# scaled-dot-product attention (flash), fused AdamW, 4 micro-batches of 2 accumulated per step: the
# step's time, the same with full activation recomputation (torch.utils.checkpoint per block), and where
# the plain step's GPU time goes (torch.profiler's kernels by class).
# Run there with its python3, which holds PyTorch:
#   python3 scripts/torch_gpt_probe.py OUT.json
# docs/VALIDATION.md compares it with `dtsim run scenarios/hybrid_gpt_1gpu.yaml`.
import json
import sys

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

from torch_timing import export_step_trace, lm_step, profile_classes, step_times

LAYERS, HIDDEN, HEADS, SEQ, VOCAB = 24, 2048, 16, 2048, 50304
MICRO, MICRO_BATCHES = 2, 4
dev = "cuda"


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = nn.LayerNorm(HIDDEN)
        self.qkv = nn.Linear(HIDDEN, 3 * HIDDEN)
        self.proj = nn.Linear(HIDDEN, HIDDEN)
        self.ln2 = nn.LayerNorm(HIDDEN)
        self.fc1 = nn.Linear(HIDDEN, 4 * HIDDEN)
        self.fc2 = nn.Linear(4 * HIDDEN, HIDDEN)

    def forward(self, x):
        b, s, h = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, s, 3, HEADS, h // HEADS).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, s, h))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self, recompute):
        super().__init__()
        self.recompute = recompute
        self.wte = nn.Embedding(VOCAB, HIDDEN)
        self.wpe = nn.Embedding(SEQ, HIDDEN)
        self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
        self.ln = nn.LayerNorm(HIDDEN)

    def forward(self, idx):
        x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1], device=idx.device))
        for blk in self.blocks:
            x = checkpoint(blk, x, use_reentrant=False) if self.recompute else blk(x)
        return F.linear(self.ln(x), self.wte.weight)  # tied embedding


def training(recompute):
    """The model, its optimizer and one training step (4 micro-batches accumulated, then AdamW)."""
    torch.manual_seed(0)
    model = GPT(recompute).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    tokens = torch.randint(0, VOCAB, (MICRO_BATCHES, MICRO, SEQ + 1), device=dev)
    return model, opt, lm_step(model, opt, tokens, VOCAB)


def step_time(recompute, iters=6, warm=2):
    model, opt, step = training(recompute)
    times = step_times(step, iters, warm)
    params = sum(p.numel() for p in model.parameters())
    peak = torch.cuda.max_memory_allocated() / 2**30
    del model, opt
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    return {"step_s_median": times[len(times) // 2], "step_s_min": times[0], "step_s_max": times[-1],
            "samples_per_s": MICRO * MICRO_BATCHES / times[len(times) // 2], "parameters": params,
            "peak_memory_gib": peak}


# Where a step's GPU time goes: torch.profiler's kernels over 2 steps, by class (torch_timing.CLASSES).
def profile_step(recompute):
    model, opt, step = training(recompute)
    result = profile_classes(step)
    del model, opt
    torch.cuda.empty_cache()
    return result


res = {"torch": torch.__version__, "device": torch.cuda.get_device_name(0),
       "shape": {"layers": LAYERS, "hidden": HIDDEN, "heads": HEADS, "seq": SEQ, "vocab": VOCAB,
                 "micro_batch": MICRO, "micro_batches": MICRO_BATCHES}}
for name, recompute in (("plain", False), ("full_recompute", True)):
    res[name] = step_time(recompute)
    print(name, res[name], flush=True)
res["profile_plain"] = profile_step(False)
if len(sys.argv) > 2:
    model, opt, step = training(False)
    export_step_trace(step, sys.argv[2])
    del model, opt
    torch.cuda.empty_cache()
print("profile", json.dumps(res["profile_plain"], indent=1), flush=True)
with open(sys.argv[1] if len(sys.argv) > 1 else "torch_gpt.json", "w") as f:
    json.dump(res, f, indent=2)
