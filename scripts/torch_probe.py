# PyTorch reference timings on a GPU machine (synthetic data): GEMMs per dtype and size, a streaming
# copy, ResNet-50 and BERT-Large training steps. Run there with its python3, which holds PyTorch:
#   python3 scripts/torch_probe.py OUT.json
# docs/VALIDATION.md compares them with dtsim's predictions from the device zoo.
import json, sys, time
import torch
from torch import nn

from torch_timing import HfLogits, bench

dev = "cuda"
res = {"torch": torch.__version__, "cudnn": torch.backends.cudnn.version(), "device": torch.cuda.get_device_name(0)}
torch.backends.cudnn.benchmark = True


def out(k, v):
    res[k] = v
    print(k, v, flush=True)


for name, dt in [("fp32", torch.float32), ("tf32", torch.float32), ("fp16", torch.float16), ("bf16", torch.bfloat16)]:
    torch.backends.cuda.matmul.allow_tf32 = name == "tf32"
    for n in [512, 1024, 2048, 4096, 8192]:
        a = torch.randn(n, n, device=dev, dtype=dt)
        b = torch.randn(n, n, device=dev, dtype=dt)
        t = bench(lambda: a @ b, iters=10 if n >= 8192 else 40)
        out(f"gemm_tflops_{name}_{n}", 2 * n**3 / t / 1e12)
torch.backends.cuda.matmul.allow_tf32 = False

# memory: a streaming copy of 2 GiB (bytes read + written per second)
x = torch.empty(2**29, device=dev, dtype=torch.float32)
y = torch.empty_like(x)
t = bench(lambda: y.copy_(x), iters=20)
out("copy_GBps", 2 * x.numel() * 4 / t / 1e9)
del x, y


def train(model, x, y, amp, iters=12, dtype=torch.float16):
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    lossf = nn.CrossEntropyLoss()
    scaler = torch.amp.GradScaler(enabled=amp and dtype == torch.float16)

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=dtype, enabled=amp):
            o = model(x)
            loss = lossf(o, y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()

    return bench(step, iters=iters, warm=4)


TRAIN = "--kernels-only" not in sys.argv
if TRAIN:
    try:
        import torchvision
        for label, amp, tf32, batch in [("amp", True, False, 256), ("tf32", False, True, 256), ("fp32", False, False, 128)]:
            torch.backends.cuda.matmul.allow_tf32 = tf32
            torch.backends.cudnn.allow_tf32 = tf32
            m = torchvision.models.resnet50().to(dev).to(memory_format=torch.channels_last)
            xb = torch.randn(batch, 3, 224, 224, device=dev).to(memory_format=torch.channels_last)
            yb = torch.randint(0, 1000, (batch,), device=dev)
            t = train(m, xb, yb, amp)
            out(f"resnet50_{label}_b{batch}_img_per_s", batch / t)
            del m, xb, yb
            torch.cuda.empty_cache()
    except Exception as e:
        out("resnet50_error", repr(e))

    try:
        from transformers import BertConfig, BertForSequenceClassification
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        cfg = BertConfig(hidden_size=1024, num_hidden_layers=24, num_attention_heads=16, intermediate_size=4096,
                         num_labels=2)
        for seq, batch in [(128, 64), (512, 16)]:
            m = BertForSequenceClassification(cfg).to(dev)
            ids = torch.randint(0, cfg.vocab_size, (batch, seq), device=dev)
            yb = torch.randint(0, 2, (batch,), device=dev)
            t = train(HfLogits(m), ids, yb, True, iters=10)
            out(f"bert_large_amp_s{seq}_b{batch}_seq_per_s", batch / t)
            del m
            torch.cuda.empty_cache()
    except Exception as e:
        out("bert_error", repr(e))

# Kernel classes, as dtsim's layer tables cost them: ResNet-50's convolutions (fp16, channels-last,
# batch 256) forward and forward+backward against their FLOPs; BN, ReLU, LayerNorm and GELU forward
# and backward against the traffic dtsim counts for them (scripts/gen_zoo.py: BN 3 passes forward, 5
# backward; ReLU 2 and 3; LayerNorm and GELU 2 and 3 of their tensor).
import torch.nn.functional as F

convs = [  # (name, c_in, c_out, kernel, stride, input side)
    ("conv1", 3, 64, 7, 2, 224), ("l1.1x1a", 64, 64, 1, 1, 56), ("l1.3x3", 64, 64, 3, 1, 56),
    ("l1.1x1b", 64, 256, 1, 1, 56), ("l1.1x1c", 256, 64, 1, 1, 56), ("l2.3x3", 128, 128, 3, 1, 28),
    ("l2.1x1b", 128, 512, 1, 1, 28), ("l2.1x1c", 512, 128, 1, 1, 28), ("l3.3x3", 256, 256, 3, 1, 14),
    ("l3.1x1b", 256, 1024, 1, 1, 14), ("l3.1x1c", 1024, 256, 1, 1, 14), ("l4.3x3", 512, 512, 3, 1, 7),
    ("l4.1x1b", 512, 2048, 1, 1, 7), ("l4.1x1c", 2048, 512, 1, 1, 7)]
# Backward by torch.autograd.grad: the input and weight gradients alone, nothing accumulated into .grad.
for label, dt, tf32, batch in [("fp16", torch.float16, False, 256), ("tf32", torch.float32, True, 256),
                               ("fp32", torch.float32, False, 128)]:
    torch.backends.cudnn.allow_tf32 = tf32
    tot_f = tot_t = tot_tb = 0.0
    for name, cin, cout, k, st, side in convs:
        try:
            x = torch.randn(batch, cin, side, side, device=dev, dtype=dt).to(
                memory_format=torch.channels_last).requires_grad_(True)
            w = torch.randn(cout, cin, k, k, device=dev, dtype=dt).to(
                memory_format=torch.channels_last).requires_grad_(True)
            y = F.conv2d(x, w, stride=st, padding=k // 2)
            g = torch.randn_like(y)
            out_side = y.shape[-1]
            flops = 2.0 * batch * cout * out_side * out_side * cin * k * k
            tf = bench(lambda: F.conv2d(x, w, stride=st, padding=k // 2), iters=20)

            def fb():
                yy = F.conv2d(x, w, stride=st, padding=k // 2)
                torch.autograd.grad(yy, (x, w), g)

            tfb = bench(fb, iters=10)
            out(f"conv_{label}_{name}_fwd_tflops", flops / tf / 1e12)
            out(f"conv_{label}_{name}_bwd_tflops", 2 * flops / max(tfb - tf, 1e-9) / 1e12)
            tot_f += flops
            tot_t += tf
            tot_tb += tfb
            del x, w, y, g
        except Exception as e:
            out(f"conv_{label}_{name}_error", repr(e))
    if tot_t > 0:
        out(f"conv_{label}_resnet50_shapes_fwd_tflops", tot_f / tot_t / 1e12)
        out(f"conv_{label}_resnet50_shapes_bwd_tflops", 2 * tot_f / max(tot_tb - tot_t, 1e-9) / 1e12)
    torch.cuda.empty_cache()
torch.backends.cudnn.allow_tf32 = False
batch = 256

def traffic(label, make, fwd, passes_f, passes_b):
    try:
        x = make().requires_grad_(True)
        y = fwd(x)
        g = torch.randn_like(y)
        n = x.numel() * x.element_size()
        tf = bench(lambda: fwd(x), iters=20)

        def fb():
            torch.autograd.grad(fwd(x), (x,), g)

        tfb = bench(fb, iters=10)
        out(f"{label}_fwd_GBps_model", passes_f * n / tf / 1e9)
        out(f"{label}_fwdbwd_GBps_model", (passes_f + passes_b) * n / tfb / 1e9)
    except Exception as e:
        out(f"{label}_error", repr(e))

act = lambda: torch.randn(batch, 256, 56, 56, device=dev, dtype=torch.float16).to(memory_format=torch.channels_last)
bn = torch.nn.BatchNorm2d(256).to(dev)
traffic("bn_256x56x56_fp16", act, lambda x: F.batch_norm(x, None, None, bn.weight, bn.bias, training=True), 3, 5)
traffic("relu_256x56x56_fp16", act, lambda x: F.relu(x), 2, 3)
ln = torch.nn.LayerNorm(1024).to(dev).half()
tok = lambda: torch.randn(8192, 1024, device=dev, dtype=torch.float16)
traffic("layernorm_8192x1024_fp16", tok, ln, 2, 3)
traffic("gelu_8192x4096_fp16", lambda: torch.randn(8192, 4096, device=dev, dtype=torch.float16), F.gelu, 2, 3)

json.dump(res, open(sys.argv[1], "w"), indent=1)  # OUT.json [--kernels-only]
