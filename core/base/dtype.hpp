// Numeric types of compute and of tensors on the wire.
#pragma once

#include <string_view>

namespace dtsim {

// tf32 is a compute mode of fp32 tensors (stored in 4 bytes, multiplied on tensor cores).
enum class Dtype { Fp32, Tf32, Fp16, Bf16 };

std::string_view dtype_name(Dtype d);
// Bytes per element as stored in memory and sent on the wire.
double dtype_bytes(Dtype d);
// Parses "fp32", "tf32", "fp16", "bf16"; throws InputError (no location) naming the valid ones.
Dtype parse_dtype(std::string_view text);

}  // namespace dtsim
