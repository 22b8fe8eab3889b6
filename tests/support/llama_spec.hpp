// Llama 3 8B's block shape (RMSNorm, SwiGLU, rotary, grouped-query attention, flash attention, no biases) on 1,024
// tokens, for the tests that count a Llama block's kernels by hand.
#pragma once

#include "models/zoo/transformer.hpp"

namespace dtsim::test {

inline TransformerSpec llama_block(int layers = 2, bool gated = true) {
  TransformerSpec m;
  m.layers = layers;
  m.hidden = 4096;
  m.heads = 32;
  m.kv_heads = 8;
  m.ffn = 14336;
  m.seq_len = 1024;
  m.vocab = 128256;
  m.rms_norm = true;
  m.gated_mlp = gated;
  m.rotary = true;
  m.bias = false;
  m.flash_attention = true;
  return m;
}

}  // namespace dtsim::test
