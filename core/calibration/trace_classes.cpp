// The trace classes' table. Kernel names as cuBLAS, CUTLASS, cuDNN, NCCL, FlashAttention, apex and
// ATen's own kernels spell them (seen in PyTorch profiles of A100, V100 and H100 training runs);
// ATen op names as PyTorch 1.13 to 2.x record them.
#include "core/calibration/trace_classes.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <string>

namespace dtsim {
namespace {

using V = std::string_view;

constexpr std::array<V, 3> kCollectiveKernels{"nccl", "rccl", "gloo"};
constexpr std::array<V, 12> kCollectiveOps{"record_param_comms",
                                           "c10d::allreduce_",
                                           "c10d::allgather_",
                                           "c10d::_allgather_base_",
                                           "c10d::reduce_scatter_",
                                           "c10d::broadcast_",
                                           "c10d::_reduce_scatter_base_",
                                           "c10d::alltoall_base_",
                                           "c10d::send",
                                           "c10d::recv_",
                                           "gloo:all_reduce",
                                           "nccl:all_reduce"};
constexpr std::array<V, 5> kAttentionKernels{"flash", "fmha", "attention", "attn", "sdpa"};
// The fused attention ops (torch_trace.cpp's attention_flops reads each one's shapes).
constexpr std::array<V, 15> kAttentionOps{"aten::scaled_dot_product_attention",
                                          "aten::_scaled_dot_product_flash_attention",
                                          "aten::_scaled_dot_product_flash_attention_backward",
                                          "aten::_scaled_dot_product_flash_attention_for_cpu",
                                          "aten::_scaled_dot_product_flash_attention_for_cpu_backward",
                                          "aten::_scaled_dot_product_efficient_attention",
                                          "aten::_scaled_dot_product_efficient_attention_backward",
                                          "aten::_scaled_dot_product_cudnn_attention",
                                          "aten::_scaled_dot_product_cudnn_attention_backward",
                                          "aten::_cudnn_attention_forward",
                                          "aten::_cudnn_attention_backward",
                                          "aten::_flash_attention_forward",
                                          "aten::_flash_attention_backward",
                                          "aten::_efficient_attention_forward",
                                          "aten::_efficient_attention_backward"};
constexpr std::array<V, 6> kConvolutionKernels{"conv", "fprop", "dgrad", "wgrad", "winograd", "implicit_gemm"};
constexpr std::array<V, 3> kConvolutionOps{"aten::convolution", "aten::convolution_backward", "aten::_convolution"};
constexpr std::array<V, 5> kGemmKernels{"gemm", "cutlass", "cublas", "matmul", "nvjet"};
constexpr std::array<V, 4> kGemmOps{"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm"};
constexpr std::array<V, 7> kNormKernels{"layer_norm", "layernorm", "rms_norm", "rmsnorm",
                                        "batch_norm", "bn_fw",     "bn_bw"};
constexpr std::array<V, 10> kNormOps{"aten::native_layer_norm", "aten::native_layer_norm_backward",
                                     "aten::native_batch_norm", "aten::native_batch_norm_backward",
                                     "aten::cudnn_batch_norm",  "aten::cudnn_batch_norm_backward",
                                     "aten::native_group_norm", "aten::native_group_norm_backward",
                                     "aten::_fused_rms_norm",   "aten::_fused_rms_norm_backward"};
constexpr std::array<V, 3> kOptimizerKernels{"multi_tensor_apply", "adamfunctor", "fused_adam"};
constexpr std::array<V, 9> kOptimizerOps{"aten::_fused_adam_",  "aten::_fused_adamw_",     "aten::_foreach_add_",
                                         "aten::_foreach_mul_", "aten::_foreach_addcmul_", "aten::_foreach_addcdiv_",
                                         "aten::_foreach_sqrt", "aten::_foreach_div_",     "aten::_foreach_lerp_"};
constexpr std::array<V, 4> kCopyKernels{"memcpy", "memset", "nchwtonhwc", "nhwctonchw"};
constexpr std::array<V, 0> kCopyOps{};
constexpr std::array<V, 5> kMemoryKernels{"elementwise", "reduce_kernel", "softmax", "index", "catarray"};
constexpr std::array<V, 47> kMemoryOps{"aten::add",
                                       "aten::add_",
                                       "aten::sub",
                                       "aten::sub_",
                                       "aten::mul",
                                       "aten::mul_",
                                       "aten::div",
                                       "aten::div_",
                                       "aten::addcmul_",
                                       "aten::addcdiv_",
                                       "aten::sqrt",
                                       "aten::lerp_",
                                       "aten::pow",
                                       "aten::neg",
                                       "aten::exp",
                                       "aten::sigmoid",
                                       "aten::tanh",
                                       "aten::gelu",
                                       "aten::gelu_backward",
                                       "aten::relu",
                                       "aten::relu_",
                                       "aten::threshold_backward",
                                       "aten::silu",
                                       "aten::silu_backward",
                                       "aten::copy_",
                                       "aten::fill_",
                                       "aten::zero_",
                                       "aten::sum",
                                       "aten::mean",
                                       "aten::_softmax",
                                       "aten::_softmax_backward_data",
                                       "aten::_log_softmax",
                                       "aten::_log_softmax_backward_data",
                                       "aten::native_dropout",
                                       "aten::native_dropout_backward",
                                       "aten::where",
                                       "aten::clamp",
                                       "aten::mse_loss",
                                       "aten::mse_loss_backward",
                                       "aten::nll_loss_forward",
                                       "aten::nll_loss_backward",
                                       "aten::cat",
                                       "aten::clamp_min",
                                       "aten::addcmul",
                                       "aten::gather",
                                       "aten::index_select",
                                       "aten::embedding_dense_backward"};
constexpr std::array<V, 0> kNone{};

constexpr std::optional<TraceClassTraits> entry(TraceClass c) {
  using enum TraceClass;
  switch (c) {
    case Collective: return TraceClassTraits{c, "collective", kCollectiveKernels, kCollectiveOps};
    case Attention: return TraceClassTraits{c, "attention", kAttentionKernels, kAttentionOps};
    case Convolution: return TraceClassTraits{c, "convolution", kConvolutionKernels, kConvolutionOps};
    case Gemm: return TraceClassTraits{c, "gemm", kGemmKernels, kGemmOps};
    case Norm: return TraceClassTraits{c, "norm", kNormKernels, kNormOps};
    case Optimizer: return TraceClassTraits{c, "optimizer", kOptimizerKernels, kOptimizerOps};
    case Copy: return TraceClassTraits{c, "copy", kCopyKernels, kCopyOps};
    case MemoryBound: return TraceClassTraits{c, "memory_bound", kMemoryKernels, kMemoryOps};
    case Unclassified: return TraceClassTraits{c, "unclassified", kNone, kNone};
  }
  return std::nullopt;  // past the last class
}

constexpr size_t count_classes() {
  size_t n = 0;
  while (entry(static_cast<TraceClass>(n))) ++n;
  return n;
}

constexpr std::array<TraceClassTraits, count_classes()> kTable = [] {
  std::array<TraceClassTraits, count_classes()> t{};
  for (size_t i = 0; i < t.size(); ++i) t[i] = *entry(static_cast<TraceClass>(i));
  return t;
}();

std::string lower_case(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char ch) { return std::tolower(ch); });
  return out;
}

bool listed(std::span<const V> names, V name) { return std::find(names.begin(), names.end(), name) != names.end(); }

}  // namespace

std::span<const TraceClassTraits> trace_classes() { return kTable; }

const TraceClassTraits& trace_class_traits(TraceClass c) { return kTable.at(static_cast<size_t>(c)); }

TraceClass classify_op(std::string_view op) {
  for (const TraceClassTraits& t : kTable) {
    if (listed(t.ops, op)) return t.cls;
  }
  return TraceClass::Unclassified;
}

TraceClass classify_kernel(std::string_view kernel, std::string_view op) {
  std::string lower = lower_case(kernel);
  // FBGEMM (Meta's embedding and quantization kernels) names no GEMM: struck out before matching.
  for (size_t at = lower.find("fbgemm"); at != std::string::npos; at = lower.find("fbgemm", at))
    lower.replace(at, 6, "");
  for (const TraceClassTraits& t : kTable) {
    for (V p : t.kernel_patterns) {
      if (lower.find(p) != std::string::npos) return t.cls;
    }
  }
  return classify_op(op);
}

bool tf32_kernel(std::string_view kernel) {
  const std::string lower = lower_case(kernel);
  return lower.find("tf32") != std::string::npos || lower.find("s1688") != std::string::npos ||
         lower.find("s16816") != std::string::npos;
}

}  // namespace dtsim
