// The compressor instances, one defined in each file of this folder, for the table in registry.cpp.
#pragma once

#include "models/compression/compressor.hpp"

namespace dtsim::compression {

const Compressor& none_compressor();
const Compressor& fp16_compressor();
const Compressor& bf16_compressor();
const Compressor& int8_compressor();
const Compressor& qsgd_compressor();
const Compressor& topk_compressor();
const Compressor& randomk_compressor();
const Compressor& sign_compressor();
const Compressor& powersgd_compressor();

// k of top-k and random-k: ceil(ratio * n), at least 1 and at most n.
double sparse_k(const Tensor& t, const CompressionSpec& spec);
// Scatter-adding `contributions` sparse payloads of k (index, value) pairs into a zeroed dense
// buffer: one add per pair, the pairs read, a read-modify-write of a dense element per pair.
CodecWork sparse_decode(const Tensor& t, double k, int contributions);

}  // namespace dtsim::compression
