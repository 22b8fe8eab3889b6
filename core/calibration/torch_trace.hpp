// Reading the Chrome trace that torch.profiler exports (Kineto's JSON: {"traceEvents": [...]} or a
// bare list; .json or .json.gz) into units of work `dtsim calibrate --from-trace` can fit:
//   - a trace with GPU kernels (cat "kernel"): each kernel, tied to the ATen op that launched it
//     (its correlation id names a cuda_runtime launch; the innermost cpu_op around that launch on
//     the same thread is the op). An op's kernels of one class are one unit (a split-K GEMM and its
//     reduction; a reduction's two passes): the op's FLOPs or bytes against their summed time.
//     gpu_memcpy and gpu_memset events are copies;
//   - a trace without them (a CPU run): each ATen op of a class (trace_classes.hpp) that no op of
//     a class encloses, timed by its own duration.
// FLOPs and bytes come from the op's "Input Dims" and "Input type" (torch.profiler's
// record_shapes=True); without them a unit has none and is reported, not fitted. A collective's
// kind, size and group come from the NCCL kernel's own args where Kineto wrote them ("Collective
// name", "In msg nelems", "Out msg nelems", "dtype", "Group size": PyTorch 2.1 and later), else from
// the c10d op around it ("nccl:all_reduce", "gloo:_all_gather_base", with its input tensor's dims,
// over the whole world: traced_collective).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/calibration/trace_classes.hpp"
#include "models/collectives/collective.hpp"

namespace dtsim {

struct TraceWork {
  std::string name;  // the kernel's name, or the op's on a CPU trace
  std::string op;    // the ATen op that launched it ("" when none was found)
  TraceClass cls = TraceClass::Unclassified;
  std::string dtype;  // fp32, tf32 (fp32 operands on a tensor-core kernel), fp16, bf16; "" when unknown
  double flops = 0;   // gemm: 2 M N K (times the batch) from the op's dims; 0 when unknown
  double bytes = 0;   // memory-bound: what the op reads and writes (memory_bytes, trace_op_args.hpp); a
                      // collective: S as models/collectives defines it (traced_collective); 0 when unknown
  double seconds = 0;
  std::optional<CollectiveKind> collective;  // a collective unit's kind; none when unknown
  int ranks = 0;                             // a collective's group ("Group size", else the world's)
};

struct TorchTrace {
  std::string path;
  std::string device;  // deviceProperties[0].name, "" when the trace names none
  bool gpu = false;    // it holds GPU kernels
  int world_size = 1;  // distributedInfo.world_size, 1 without it
  std::vector<TraceWork> work;
  // GPU: the kernels', copies' and sets' summed time; CPU: each thread's busy time (the union of its
  // ops' spans) summed over threads. The share of it the units do not cover is the unclassified time.
  double busy_seconds = 0;
};

// Throws InputError naming the file (and what was wrong) for a missing, unreadable or non-trace
// file; a trace with no events of either kind is one too.
TorchTrace read_torch_trace(const std::string& path);
// The same from the trace's text; `path` names it in errors and in TorchTrace::path.
TorchTrace parse_torch_trace(std::string_view text, const std::string& path);

// A c10d collective's kind from the op PyTorch records it as: the backend ("nccl:", "gloo:"), then the
// call with its variants' underscores and suffixes ("all_reduce", "_all_gather_base", "reduce_scatter_tensor",
// "all_to_all", "broadcast", "reduce"); nullopt for another op. Its S is the input tensor's bytes, times the
// group's ranks for an all-gather (whose input is one rank's shard); the group is taken to be the whole world
// (distributedInfo.world_size), as the traces before PyTorch 2.1 name no other.
std::optional<CollectiveKind> traced_collective(std::string_view op);
// The same for a call's name alone, as NCCL kernels' "Collective name" gives it ("allreduce",
// "_allgather_base", "reduce_scatter_tensor_coalesced", "all_to_allv"); nullopt for send, recv, barrier, ...
std::optional<CollectiveKind> collective_call(std::string_view call);

// GEMM FLOPs of an ATen op from its input dims (aten::mm, addmm, bmm, baddbmm); 0 for another op or
// dims that do not fit it.
double gemm_flops(std::string_view op, const std::vector<std::vector<double>>& dims);

// A fused attention op's FLOPs as the plan counts them (models/parallel/transformer_ops.cpp, the flash
// kernel): 2 b heads s_q s_k (d_qk + d_v) forward, half of it causal, 2 b heads s_q s_k (3 d_qk + 2 d_v)
// backward (the scores recomputed, then dV, dP, dQ and dK). From the op's input dims (query, key and
// value, 4-d, in the op's layout) and its "Concrete Inputs" (is_causal, or xformers' custom_mask_type,
// as Kineto records scalars from PyTorch 2.1 on). 0 for another op, dims that do not fit it (a
// variable-length batch's 3-d ones) or a causality the trace does not record: such a unit counts as
// attention time but fits nothing.
double attention_flops(std::string_view op, const std::vector<std::vector<double>>& dims,
                       const std::vector<std::string>& concrete);
// The ops attention_flops knows (each also listed by the attention trace class).
std::vector<std::string_view> attention_flop_ops();

}  // namespace dtsim
