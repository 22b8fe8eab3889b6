# PyTorch's memory-bound kernels on a GPU machine, alone, by size: what fraction of the memory
# bandwidth each reaches, counting the bytes dtsim counts for it (every input read once, every output
# written once). For issue #25's per-class efficiencies (elementwise, casts, normalisation, softmax),
# measured apart from any workload that docs/VALIDATION.md checks; and, after those (for issue #46's memory-bound
# classes each on its own), RMSNorm, SwiGLU, rotary embedding (eager, as Hugging Face's Llama runs it), dropout,
# ReLU, softmax's backward, bias gradients, layout copies, zeroing, cross-entropy over the vocabulary, the
# embedding's gather and its gradient, batch norm at ResNet-50's shapes, and the optimizers' passes. A kernel
# that fails (an op this PyTorch lacks) is listed under "errors" and the rest go on. Run there with its python3:
#   python3 scripts/torch_memory_probe.py OUT.json [PEAK_GBPS]
import json
import sys

import torch
import torch.nn.functional as F

from torch_timing import bench

dev = "cuda"
peak = float(sys.argv[2]) if len(sys.argv) > 2 else 4800.0  # GB/s, the data sheet's (H200: 4.8 TB/s)


res = {"torch": torch.__version__, "device": torch.cuda.get_device_name(0), "peak_gbps": peak, "rows": []}


def row(kernel, dtype, shape, nbytes, fn):
    t = bench(fn, iters=30)
    r = {"kernel": kernel, "dtype": dtype, "shape": list(shape), "bytes": nbytes, "seconds": t,
         "gbps": nbytes / t / 1e9, "fraction_of_peak": nbytes / t / 1e9 / peak}
    res["rows"].append(r)
    print(f"{kernel:22s} {dtype:5s} {str(list(shape)):22s} {r['gbps']:8.0f} GB/s {r['fraction_of_peak']:.3f}",
          flush=True)


dts = {"fp32": torch.float32, "bf16": torch.bfloat16}
size = {"fp32": 4, "bf16": 2}
for tokens, hidden in ((2048, 1024), (4096, 2048), (8192, 4096), (16384, 8192)):
    shape = (tokens, hidden)
    n = tokens * hidden
    for name, dt in dts.items():
        x = torch.randn(shape, device=dev, dtype=dt)
        y = torch.randn(shape, device=dev, dtype=dt)
        b = size[name]
        row("add", name, shape, 3 * n * b, lambda: torch.add(x, y))
        row("gelu_fwd", name, shape, 2 * n * b, lambda: F.gelu(x))
        xg = x.clone().requires_grad_(True)
        out = F.gelu(xg)
        g = torch.randn_like(out)
        row("gelu_bwd", name, shape, 3 * n * b, lambda: torch.autograd.grad(out, xg, g, retain_graph=True))
        w = torch.ones(hidden, device=dev, dtype=dt)
        bias = torch.zeros(hidden, device=dev, dtype=dt)
        row("layer_norm_fwd", name, shape, 2 * n * b, lambda: F.layer_norm(x, (hidden,), w, bias))
        xl = x.clone().requires_grad_(True)
        wl = w.clone().requires_grad_(True)
        bl = bias.clone().requires_grad_(True)
        lo = F.layer_norm(xl, (hidden,), wl, bl)
        gl = torch.randn_like(lo)
        row("layer_norm_bwd", name, shape, 3 * n * b,
            lambda: torch.autograd.grad(lo, (xl, wl, bl), gl, retain_graph=True))
        row("softmax_fwd", name, shape, 2 * n * b, lambda: torch.softmax(x, dim=-1))
        del x, y, xg, out, g, xl, lo, gl
    x32 = torch.randn(shape, device=dev, dtype=torch.float32)
    x16 = x32.to(torch.bfloat16)
    row("cast_fp32_to_bf16", "mixed", shape, 6 * n, lambda: x32.to(torch.bfloat16))
    row("cast_bf16_to_fp32", "mixed", shape, 6 * n, lambda: x16.to(torch.float32))
    acc = torch.zeros(shape, device=dev, dtype=torch.float32)
    row("accumulate_fp32", "fp32", shape, 12 * n, lambda: acc.add_(x32))
    del x32, x16, acc
    torch.cuda.empty_cache()

res["errors"] = []


def row_or_error(kernel, dtype, shape, nbytes, fn):
    try:
        row(kernel, dtype, shape, nbytes, fn)
    except Exception as ex:  # an op this PyTorch lacks, or out of memory: say so and go on
        res["errors"].append(f"{kernel} {dtype} {list(shape)}: {ex}"[:300])


def backward_row(kernel, dtype, shape, nbytes, f, *inputs, params=()):
    """A row for f's backward alone: a fixed output gradient through a graph made once (and kept); the
    gradients of the inputs and of `params` (a module's weights)."""
    try:
        leaves = [t.detach().clone().requires_grad_(True) for t in inputs]
        out = f(*leaves)
        g = torch.randn_like(out)
        wanted = leaves + list(params)
        row(kernel, dtype, shape, nbytes, lambda: torch.autograd.grad(out, wanted, g, retain_graph=True))
    except Exception as ex:
        res["errors"].append(f"{kernel} {dtype} {list(shape)}: {ex}"[:300])


def rms_norm(x, w):
    return F.rms_norm(x, (x.shape[-1],), w)


def rotate_half(x):
    a, b = x.chunk(2, dim=-1)
    return torch.cat((-b, a), dim=-1)


def rotary(x, cos, sin):  # Hugging Face's apply_rotary_pos_emb on one tensor of (batch, heads, seq, head_dim)
    return x * cos + rotate_half(x) * sin


# Row-wise and element-wise classes at the transformer's activation shapes (tokens, hidden).
for tokens, hidden in ((2048, 1024), (4096, 2048), (8192, 4096), (16384, 8192)):
    shape = (tokens, hidden)
    n = tokens * hidden
    for name, dt in dts.items():
        b = size[name]
        x = torch.randn(shape, device=dev, dtype=dt)
        y = torch.randn(shape, device=dev, dtype=dt)
        w = torch.ones(hidden, device=dev, dtype=dt)
        row_or_error("rms_norm_fwd", name, shape, 2 * n * b, lambda: rms_norm(x, w))
        backward_row("rms_norm_bwd", name, shape, 3 * n * b, rms_norm, x, w)
        row_or_error("swiglu_fwd", name, shape, 3 * n * b, lambda: F.silu(x) * y)
        backward_row("swiglu_bwd", name, shape, 5 * n * b, lambda a, c: F.silu(a) * c, x, y)
        row_or_error("relu_fwd", name, shape, 2 * n * b, lambda: torch.relu(x))
        backward_row("relu_bwd", name, shape, 3 * n * b, torch.relu, x)
        row_or_error("dropout_fwd", name, shape, 2 * n * b + n, lambda: F.dropout(x, 0.1, training=True))
        backward_row("softmax_bwd", name, shape, 3 * n * b, lambda a: torch.softmax(a, dim=-1), x)
        row_or_error("bias_grad", name, shape, n * b + hidden * b, lambda: y.sum(0))
        row_or_error("transpose_copy", name, shape, 2 * n * b, lambda: x.t().contiguous())
        heads = hidden // 128
        x4 = x.view(1, tokens, heads, 128)
        row_or_error("heads_permute_copy", name, shape, 2 * n * b, lambda: x4.transpose(1, 2).contiguous())
        q = x4.transpose(1, 2).contiguous()
        cos = torch.randn(1, 1, tokens, 128, device=dev, dtype=dt)
        sin = torch.randn(1, 1, tokens, 128, device=dev, dtype=dt)
        row_or_error("rotary_fwd_eager", name, shape, 2 * n * b, lambda: rotary(q, cos, sin))
        backward_row("rotary_bwd_eager", name, shape, 2 * n * b, lambda a: rotary(a, cos, sin), q)
        row_or_error("zero", name, shape, n * b, lambda: y.zero_())
        del x, y, w, x4, q, cos, sin
    torch.cuda.empty_cache()

# Cross-entropy over the vocabulary (logits of (tokens, vocab), the loss and its gradient; fp32 logits as the
# probes' steps cast them, bf16 as fused-loss frameworks keep them) and the embedding table's gather and gradient.
for tokens in (4096, 16384):
    for vocab in (32000, 50304, 128256):
        shape = (tokens, vocab)
        n = tokens * vocab
        target = torch.randint(0, vocab, (tokens,), device=dev)
        for name, dt in dts.items():
            b = size[name]
            logits = torch.randn(shape, device=dev, dtype=dt)
            row_or_error("cross_entropy_fwd", name, shape, n * b, lambda: F.cross_entropy(logits, target))
            backward_row("cross_entropy_bwd", name, shape, 2 * n * b, lambda a: F.cross_entropy(a, target), logits)
            del logits
        torch.cuda.empty_cache()
for tokens, hidden, vocab in ((8192, 4096, 32000), (8192, 4096, 128256), (16384, 8192, 128256)):
    shape = (tokens, hidden, vocab)
    ids = torch.randint(0, vocab, (tokens,), device=dev)
    for name, dt in dts.items():
        b = size[name]
        table = torch.randn(vocab, hidden, device=dev, dtype=dt)
        row_or_error("embedding_fwd", name, shape, 2 * tokens * hidden * b, lambda: F.embedding(ids, table))
        backward_row("embedding_bwd", name, shape, 2 * tokens * hidden * b + vocab * hidden * b, lambda t: F.embedding(ids, t), table)
        del table
    torch.cuda.empty_cache()

# Batch norm in training (batch statistics), forward and backward, at ResNet-50's activation shapes.
for batch, c, side in ((256, 64, 112), (256, 256, 56), (256, 512, 28), (256, 1024, 14), (256, 2048, 7)):
    shape = (batch, c, side, side)
    n = batch * c * side * side
    for name, dt, layout in (("fp16", torch.float16, torch.channels_last), ("fp32", torch.float32,
                                                                             torch.contiguous_format)):
        b = 2 if name == "fp16" else 4
        x = torch.randn(shape, device=dev, dtype=dt).to(memory_format=layout)
        bn = torch.nn.BatchNorm2d(c).to(dev).to(memory_format=layout)
        row_or_error("batch_norm_fwd", name, shape, 2 * n * b, lambda: bn(x))  # fp16 input, fp32 weights
        backward_row("batch_norm_bwd", name, shape, 3 * n * b, bn, x, params=(bn.weight, bn.bias))
        del x, bn
    torch.cuda.empty_cache()

# The optimizers' passes over fp32 parameters: bytes per parameter read and written as each kernel moves them
# (AdamW: parameter, gradient, two moments read, parameter and moments written: 28; SGD with momentum: 20).
for params in (25_000_000, 100_000_000, 400_000_000):
    chunks = [torch.randn(params // 8, device=dev).requires_grad_(True) for _ in range(8)]
    for p in chunks:
        p.grad = torch.randn_like(p)
    for kind, nbytes, make in (("adamw_fused", 28, lambda: torch.optim.AdamW(chunks, lr=1e-4, fused=True)),
                               ("adamw_foreach", 28, lambda: torch.optim.AdamW(chunks, lr=1e-4, foreach=True)),
                               ("sgd_momentum_foreach", 20,
                                lambda: torch.optim.SGD(chunks, lr=0.01, momentum=0.9, foreach=True))):
        try:
            opt = make()
            row_or_error(kind, "fp32", (params,), nbytes * params, opt.step)
            del opt
        except Exception as ex:
            res["errors"].append(f"{kind} {params}: {ex}"[:300])
    del chunks
    torch.cuda.empty_cache()

with open(sys.argv[1] if len(sys.argv) > 1 else "torch_memory.json", "w") as f:
    json.dump(res, f, indent=2)
