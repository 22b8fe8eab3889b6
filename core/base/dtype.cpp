// Names and sizes of dtypes.
#include "core/base/dtype.hpp"

#include <fmt/format.h>

#include "core/base/error.hpp"

namespace dtsim {

std::string_view dtype_name(Dtype d) {
  switch (d) {
    case Dtype::Fp32: return "fp32";
    case Dtype::Tf32: return "tf32";
    case Dtype::Fp16: return "fp16";
    case Dtype::Bf16: return "bf16";
    case Dtype::Fp8: return "fp8";
  }
  return "?";
}

double dtype_bytes(Dtype d) {
  switch (d) {
    case Dtype::Fp32:
    case Dtype::Tf32: return 4.0;
    case Dtype::Fp16:
    case Dtype::Bf16: return 2.0;
    case Dtype::Fp8: return 1.0;
  }
  return 4.0;
}

Dtype parse_dtype(std::string_view text) {
  for (Dtype d : {Dtype::Fp32, Dtype::Tf32, Dtype::Fp16, Dtype::Bf16, Dtype::Fp8}) {
    if (dtype_name(d) == text) return d;
  }
  throw InputError(fmt::format("'{}' is not a dtype (valid: fp32, tf32, fp16, bf16, fp8)", text));
}

}  // namespace dtsim
