"""The rows of a model file's layer table (docs/models.md), by one set of counting rules: scripts/gen_zoo.py writes
the zoo's CNNs with them from the architectures' shapes, and dtsim.from_torch (dtsim_torch.py) from a traced PyTorch
module, so a torchvision model traced comes out as the zoo's table of it (tests/python/test_from_torch.py).

Python 3 standard library only.

Counting rules (the same in every file; each file's `source` repeats them):
CNNs: one row per kernel PyTorch runs in training: each convolution or linear layer (class conv or gemm), its
batch norm (norm), ReLU and residual add (elementwise), and pooling (elementwise).
  params       trainable parameters; a batch norm's gamma and beta are on its norm row.
  fwd_flops    per sample, 2 FLOPs per multiply-add of convolutions and linear layers (biases not counted);
               pooling counts 1 FLOP per window element per output element; batch norm, ReLU and residual
               additions count 0 (they are memory-bound: their traffic columns cost them).
  bwd_flops    2 x forward for a conv or linear row (gradients w.r.t. its input and its weights), except the first
               row, which needs no gradient w.r.t. the input image (1 x); 1 x forward for every other row.
  activations  elements of the new tensor the row leaves, per sample (0 for the in-place ReLU and residual add).
  gemm_m/n/k   conv and linear rows: the implicit GEMM (NVIDIA, Convolutional Layers User's Guide): m = output
               pixels per sample (P Q; 1 for a linear layer), n = output channels (K), k = C R S (input channels x
               filter size).
  fwd_traffic  activation elements read and written per sample (weights aside), forward and backward:
  bwd_traffic    conv, linear  fwd: input + output; bwd: output gradient read twice (data and weight gradients),
                               input read, input gradient written = 2 x input + 2 x output (the first row:
                               input + output, no data gradient)
                 batch norm    fwd 3 x output (statistics read, normalise read + write); bwd 5 x output (the
                               input and the output gradient read twice, the input gradient written): PyTorch's
                               batch-norm kernels (aten/src/ATen/native/cuda/Normalization.cuh)
                 ReLU          fwd 2 (read, write); bwd 3 (output gradient and output read, input gradient written)
                 residual add  fwd 3 (two reads, one write); bwd 3 x the block input (its two gradients summed
                               where the input forks into the branch and the shortcut)
                 pooling       input + output both ways
"""

CNN_RULES = ("one row per training kernel (conv, gemm, norm, elementwise); FLOPs = 2 x conv/linear multiply-adds "
             "plus 1 per pooling window element; BN, ReLU and residual adds count 0 and are costed by their traffic "
             "(scripts/gen_zoo.py: BN 3 passes forward, 5 backward; ReLU 2 and 3; add 3 and 3); bwd = 2 x fwd for "
             "conv and linear rows, 1 x fwd for the others and for the first conv")

CNN_COLUMNS = ["name", "class", "params", "fwd_flops", "bwd_flops", "activations", "gemm_m", "gemm_n", "gemm_k",
               "fwd_traffic", "bwd_traffic"]
CNN_KEYS = ["name", "cls", "params", "fwd", "bwd", "act", "m", "n", "k", "ft", "bt"]


class Net:
    """A CNN as a list of rows (dicts of the columns); each op takes an input shape (c, h, w), appends its rows and
    returns its output shape."""

    def __init__(self):
        self.rows = []

    def _add(self, name, cls, params, fwd, act, fwd_traffic, bwd_traffic, gemm=(0, 0, 0)):
        first = not self.rows
        bwd = 2 * fwd if cls in ("conv", "gemm") and not first else fwd
        if first:
            bwd_traffic = fwd_traffic  # no gradient w.r.t. the input image
        self.rows.append(dict(name=name, cls=cls, params=params, fwd=fwd, bwd=bwd, act=act, m=gemm[0], n=gemm[1],
                              k=gemm[2], ft=fwd_traffic, bt=bwd_traffic))

    def norm(self, name, shape):
        el = shape[0] * shape[1] * shape[2]
        self._add(name, "norm", 2 * shape[0], 0, el, 3 * el, 5 * el)

    def relu(self, name, shape, inplace=True):
        """ReLU; in place (torchvision's), it leaves no new tensor."""
        el = shape[0] * shape[1] * shape[2]
        self._add(name, "elementwise", 0, 0, 0 if inplace else el, 2 * el, 3 * el)

    def add(self, name, shape, block_input):
        el = shape[0] * shape[1] * shape[2]
        self._add(name, "elementwise", 0, 0, 0, 3 * el, 3 * block_input[0] * block_input[1] * block_input[2])

    def conv(self, name, x, cout, k, s=1, p=0, bias=False, bn=True, relu=True):
        """Conv2d (k, s, p may be ints or (h, w) pairs), then its BatchNorm2d and ReLU rows when asked."""
        kh, kw = k if isinstance(k, tuple) else (k, k)
        sh, sw = s if isinstance(s, tuple) else (s, s)
        ph, pw = p if isinstance(p, tuple) else (p, p)
        cin, h, w = x
        ho = (h + 2 * ph - kh) // sh + 1
        wo = (w + 2 * pw - kw) // sw + 1
        params = cout * cin * kh * kw + (cout if bias else 0)
        macs = cout * ho * wo * cin * kh * kw
        x_el, y_el = cin * h * w, cout * ho * wo
        self._add(name, "conv", params, 2 * macs, y_el, x_el + y_el, 2 * x_el + 2 * y_el,
                  (ho * wo, cout, cin * kh * kw))
        out = (cout, ho, wo)
        if bn:
            self.norm(f"{name}.bn", out)
        if relu:
            self.relu(f"{name}.relu", out)
        return out

    def pool(self, name, x, k, s, p=0):
        """Max or average pooling: 1 FLOP per window element per output element."""
        c, h, w = x
        ho = (h + 2 * p - k) // s + 1
        wo = (w + 2 * p - k) // s + 1
        el = c * h * w + c * ho * wo
        self._add(name, "elementwise", 0, c * ho * wo * k * k, c * ho * wo, el, el)
        return (c, ho, wo)

    def global_pool(self, name, x):
        c, h, w = x
        self._add(name, "elementwise", 0, c * h * w, c, c * h * w + c, c * h * w + c)
        return (c, 1, 1)

    def linear(self, name, x, nout, bias=True, relu=False):
        nin = x[0] * x[1] * x[2]
        self._add(name, "gemm", nin * nout + (nout if bias else 0), 2 * nin * nout, nout, nin + nout,
                  2 * nin + 2 * nout, (1, nout, nin))
        out = (nout, 1, 1)
        if relu:
            self.relu(f"{name}.relu", out)
        return out


def cnn_model_text(name, source, inp, rows, header="# Generated by scripts/gen_zoo.py; do not edit by hand."):
    """A model file of CNN rows (Net's), as the loader reads it (models/zoo/model_file.hpp)."""
    lines = [header, f"name: {name}", f"source: \"{source}\"", "counts: flops", f"input: {inp}",
             "columns: [" + ", ".join(CNN_COLUMNS) + "]", "layers:"]
    lines += ["  - [" + ", ".join(str(r[key]) for key in CNN_KEYS) + "]" for r in rows]
    return "\n".join(lines) + "\n"
