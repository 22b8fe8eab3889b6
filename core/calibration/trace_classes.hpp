// The classes `dtsim calibrate --from-trace` sorts a PyTorch profile's work into, in one traits
// table (trace_classes.cpp): a GPU kernel by its name, else by the ATen op that launched it; a CPU
// op (a trace without GPU kernels) by its ATen name. What a class feeds in the profile:
//   gemm:          compute.<dtype> (x = 2 M N K FLOPs of the op, from its Input Dims)
//   memory_bound:  memory.sgd_step (x = bytes the op reads and writes, from its Input Dims)
//   the others:    reported (their time and share), not fitted: convolution and attention need
//                  the kernel models of #46, collectives their message sizes (record_param_comms
//                  without sizes in PyTorch before 2.1), optimizer kernels' tensor lists have no dims.
// Adding a class: its enumerator, its entry in trace_classes.cpp (the compiler flags a missing
// case), and where from_trace.cpp uses it; tests/calibrate/trace_classes_test.cpp holds the table.
#pragma once

#include <span>
#include <string_view>

namespace dtsim {

// In the order a kernel's name is tried: a collective's name before all, a convolution's (cuDNN's
// implicit-GEMM kernels hold "gemm") before a GEMM's, copies before the memory-bound catch-alls.
enum class TraceClass { Collective, Attention, Convolution, Gemm, Norm, Optimizer, Copy, MemoryBound, Unclassified };

struct TraceClassTraits {
  TraceClass cls = TraceClass::Unclassified;
  std::string_view name;  // as the report prints it
  // Substrings of a GPU kernel's name (lower case) that put it in the class, tried in table order.
  std::span<const std::string_view> kernel_patterns;
  // ATen ops (exact names) whose kernels, or whose own time on a CPU trace, are the class's.
  std::span<const std::string_view> ops;
};

// Every class in the enum's order (the order names are tried).
std::span<const TraceClassTraits> trace_classes();
const TraceClassTraits& trace_class_traits(TraceClass c);

// A GPU kernel: the first class (in the enum's order) whose kernel pattern its lower-cased name holds
// ("fbgemm", Meta's embedding library, struck out first: it names no GEMM), else the class of the
// op that launched it (`op`, "" when none), else Unclassified.
TraceClass classify_kernel(std::string_view kernel, std::string_view op);
// A CPU op of a trace without GPU kernels: the class listing it, else Unclassified.
TraceClass classify_op(std::string_view op);
// A kernel that runs fp32 operands on tensor cores, so as TF32: CUTLASS's s1688 and s16816 tensor-op
// kernels, cuBLAS's and cuDNN's *tf32* ones. An op of fp32 GEMMs with one such kernel is a TF32 GEMM.
bool tf32_kernel(std::string_view kernel);

}  // namespace dtsim
