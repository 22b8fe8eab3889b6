// Numeric types of compute and of tensors on the wire.
#pragma once

#include <cstddef>
#include <string_view>

namespace dtsim {

// tf32 is a compute mode of fp32 tensors (stored in 4 bytes, multiplied on tensor cores). fp8 (E4M3 or E5M2, one
// byte) is a GEMM operand only: a model keeps a 16-bit dtype and runs its linear layers' GEMMs in fp8 (model.fp8).
enum class Dtype { Fp32, Tf32, Fp16, Bf16, Fp8 };
inline constexpr size_t kDtypeCount = 5;

// How an fp8 GEMM's operands get their scale (model.fp8; models/parallel/transformer_ops.hpp, FP8). None: no fp8.
// Delayed: Transformer Engine's DelayedScaling, the scale taken from the amax history of earlier steps, the amax
// of this one recorded by the cast kernel itself. Current: the scale from the tensor's own amax, a pass over it
// before its cast (TE's Float8CurrentScaling, torchao float8's dynamic tensorwise scaling in torchtitan).
enum class Fp8Scaling { None, Delayed, Current };

std::string_view dtype_name(Dtype d);
// Bytes per element as stored in memory and sent on the wire.
double dtype_bytes(Dtype d);
// Parses "fp32", "tf32", "fp16", "bf16", "fp8"; throws InputError (no location) naming the valid ones.
Dtype parse_dtype(std::string_view text);

}  // namespace dtsim
