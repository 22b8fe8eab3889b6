# What bench/kernels/conv_fit.py and conv_h200.py share (issue #46): the tile and wave quantization of dtsim's
# convolution rule (models/zoo/kernel.hpp, conv: a pass is its implicit GEMM, 256 x 128 tiles, one per SM a wave;
# conv_fit.py's header has the rest), the kinds a convolution is sorted into, the passes and maths it is timed in,
# the floor under which a kernel's time is not its rate, DeepBench's five GPUs (the V100 the one fitted on) and
# NeuSight's batch ranges. Constants and helpers only: it reads no data. Standard library only.

# Per GPU (the workbooks' Specs sheet names): SMs, fp32 and fp16 tensor-core peaks (FLOP/s; None: no tensor cores),
# from NVIDIA's data sheets and architecture white papers: Tesla V100 SXM2 (DGX-1) 80 SMs, 15.7 / 125 TFLOPS;
# T4 40 SMs, 8.1 / 65; Tesla P100 PCIe 56 SMs, 9.3 fp32; GTX 1080 Ti 28 SMs, 11.3; Titan Xp 30 SMs, 12.1.
GPU = {"NVIDIA V100": (80, 15.7e12, 125e12), "NVIDIA T4": (40, 8.1e12, 65e12),
       "NVIDIA Tesla P100": (56, 9.3e12, None), "NVIDIA GTX 1080 Ti": (28, 11.3e12, None),
       "NVIDIA GTX TitanXp": (30, 12.1e12, None)}
FIT = "NVIDIA V100"
TILE = (256, 128)
# A kernel's rule time below which its launch and tail, not its rate, decide its time.
MIN_SECONDS = 50e-6
# The batch ranges NeuSight's convolutions are shown by.
BATCHES = [(1, 4), (5, 12), (13, 24), (25, 48), (49, 64)]
KINDS = ["stem", "pointwise", "pointwise_strided", "spatial", "spatial_strided"]
PASSES = ["fwd", "dgrad", "wgrad"]
MATHS = {"fp32": "fp32 (CUDA cores)", "fp16": "fp16 (tensor cores)"}


def quantization(sms, m, n):
    """dtsim's tile and wave quantization (models/zoo/kernel.cpp, tiling): the useful fraction of the slots."""
    def one(tm, tn):
        tiles = -(-m // tm) * -(-n // tn)
        slots = tiles if tiles < sms else -(-tiles // sms) * sms
        return m * n / (slots * tm * tn)
    return max(one(*TILE), one(*reversed(TILE)))


def kind(c, r, s, stride):
    if c <= 4:
        return "stem"
    if r * s == 1:
        return "pointwise" if stride == 1 else "pointwise_strided"
    return "spatial" if stride == 1 else "spatial_strided"


def p90(values):
    values = sorted(values)
    return values[min(len(values) - 1, int(0.9 * len(values)))]
