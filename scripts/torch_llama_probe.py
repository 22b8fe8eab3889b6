# A Llama-style training step on one GPU machine (synthetic tokens), as a user's own model would run, for the
# front door (#48), the kernel classes (#46) and `dtsim calibrate --from-trace` (#47): Meta-Llama-3-8B's block
# (hidden 4096, 32 heads of 128, 8 key-value heads, SwiGLU MLP of 14336, RMSNorm, rotary positions, untied output
# of 128256) at 8 layers, sequence 8192, written as Hugging Face's and torchtitan's Llama write it in plain PyTorch:
# the key-value heads repeated to the query heads (repeat_kv), scaled-dot-product attention with the causal mask,
# the rotary embedding eager (rotate_half), bf16 autocast over fp32 parameters, the loss on fp32 logits, fused
# AdamW; 2 micro-batches of 1 accumulated per step. Writes the step's time, where its GPU time goes (torch.profiler's
# kernels by class), and a Kineto trace of one step with shapes and arguments (what `dtsim calibrate --from-trace`
# reads). Run there with its python3, which holds PyTorch:
#   python3 scripts/torch_llama_probe.py OUT.json [TRACE.json.gz] [--layers N] [--seq S] [--micro-batches M]
# (other shapes of the same model, for checks held out from a trace of the first).
# bench/validation/gpu_h200.md compares it with `dtsim run scenarios/llama3_8l_pytorch_h200.yaml`.
import argparse
import json
import os

import torch
import torch.nn.functional as F
from torch import nn

from torch_timing import export_step_trace, lm_step, profile_classes, step_times

cli = argparse.ArgumentParser()
cli.add_argument("out")
cli.add_argument("trace", nargs="?")
cli.add_argument("--layers", type=int, default=8)
cli.add_argument("--seq", type=int, default=8192)
cli.add_argument("--micro-batches", type=int, default=2)
args = cli.parse_args()
HIDDEN, HEADS, KV_HEADS, FFN, VOCAB, THETA = 4096, 32, 8, 14336, 128256, 500000.0
LAYERS, SEQ, MICRO, MICRO_BATCHES = args.layers, args.seq, 1, args.micro_batches
HEAD_DIM = HIDDEN // HEADS
dev = "cuda"


def rotate_half(x):
    a, b = x.chunk(2, dim=-1)
    return torch.cat((-b, a), dim=-1)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn_norm = nn.RMSNorm(HIDDEN, eps=1e-5)
        self.q = nn.Linear(HIDDEN, HEADS * HEAD_DIM, bias=False)
        self.k = nn.Linear(HIDDEN, KV_HEADS * HEAD_DIM, bias=False)
        self.v = nn.Linear(HIDDEN, KV_HEADS * HEAD_DIM, bias=False)
        self.o = nn.Linear(HEADS * HEAD_DIM, HIDDEN, bias=False)
        self.mlp_norm = nn.RMSNorm(HIDDEN, eps=1e-5)
        self.gate = nn.Linear(HIDDEN, FFN, bias=False)
        self.up = nn.Linear(HIDDEN, FFN, bias=False)
        self.down = nn.Linear(FFN, HIDDEN, bias=False)

    def forward(self, x, cos, sin):
        b, s, _ = x.shape
        h = self.attn_norm(x)
        q = self.q(h).view(b, s, HEADS, HEAD_DIM).transpose(1, 2)
        k = self.k(h).view(b, s, KV_HEADS, HEAD_DIM).transpose(1, 2)
        v = self.v(h).view(b, s, KV_HEADS, HEAD_DIM).transpose(1, 2)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        rep = HEADS // KV_HEADS  # repeat_kv
        k = k[:, :, None].expand(b, KV_HEADS, rep, s, HEAD_DIM).reshape(b, HEADS, s, HEAD_DIM)
        v = v[:, :, None].expand(b, KV_HEADS, rep, s, HEAD_DIM).reshape(b, HEADS, s, HEAD_DIM)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.o(a.transpose(1, 2).reshape(b, s, HIDDEN))
        h = self.mlp_norm(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


class Llama(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, HIDDEN)
        self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
        self.norm = nn.RMSNorm(HIDDEN, eps=1e-5)
        self.head = nn.Linear(HIDDEN, VOCAB, bias=False)
        inv = 1.0 / THETA ** (torch.arange(0, HEAD_DIM, 2, dtype=torch.float32) / HEAD_DIM)
        angles = torch.outer(torch.arange(SEQ, dtype=torch.float32), inv)
        angles = torch.cat((angles, angles), dim=-1)
        self.register_buffer("cos", angles.cos()[None, None], persistent=False)
        self.register_buffer("sin", angles.sin()[None, None], persistent=False)

    def forward(self, idx):
        x = self.embed(idx)
        cos, sin = self.cos.to(torch.bfloat16), self.sin.to(torch.bfloat16)
        for blk in self.blocks:
            x = blk(x, cos, sin)
        return self.head(self.norm(x))


def training():
    """The model, its optimizer and one training step (2 micro-batches accumulated, then AdamW)."""
    torch.manual_seed(0)
    model = Llama().to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    tokens = torch.randint(0, VOCAB, (MICRO_BATCHES, MICRO, SEQ + 1), device=dev)
    return model, opt, lm_step(model, opt, tokens, VOCAB)


res = {"torch": torch.__version__, "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
       "device": torch.cuda.get_device_name(0),
       "shape": {"layers": LAYERS, "hidden": HIDDEN, "heads": HEADS, "kv_heads": KV_HEADS, "ffn": FFN,
                 "vocab": VOCAB, "seq": SEQ, "micro_batch": MICRO, "micro_batches": MICRO_BATCHES}}
model, opt, step = training()
res["parameters"] = sum(p.numel() for p in model.parameters())
times = step_times(step, 6, 2)
res["plain"] = {"step_s_median": times[len(times) // 2], "step_s_min": times[0], "step_s_max": times[-1],
                "samples_per_s": MICRO * MICRO_BATCHES / times[len(times) // 2],
                "tokens_per_s": MICRO * MICRO_BATCHES * SEQ / times[len(times) // 2],
                "peak_memory_gib": torch.cuda.max_memory_allocated() / 2**30}
print("plain", res["plain"], flush=True)
res["profile_plain"] = profile_classes(step)
print("profile", json.dumps(res["profile_plain"], indent=1), flush=True)
with open(args.out, "w") as f:
    json.dump(res, f, indent=2)
if args.trace:
    export_step_trace(step, args.trace)
    print("trace", args.trace, os.path.getsize(args.trace), "bytes", flush=True)
