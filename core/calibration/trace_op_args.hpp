// An ATen op's arguments as torch.profiler records them (Kineto's "Input Dims", "Input Strides", "Input type",
// "Concrete Inputs"), and what they give: an element's bytes and dtype, a tensor's elements, and the memory traffic of
// a memory-bound op (core/calibration/torch_trace.cpp reads the traces; this file what one op's arguments say).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace dtsim {

// An op's "Input Dims" (lists of sizes; a scalar or a list of tensors gives []), "Input Strides", "Input type" and
// "Concrete Inputs" (a scalar argument's value as text, "" for a tensor; PyTorch 2.1 and later).
struct OpArgs {
  std::vector<std::vector<double>> dims;
  std::vector<std::vector<double>> strides;  // "Input Strides" where recorded (PyTorch 2.1 and later)
  std::vector<std::string> types;
  std::vector<std::string> concrete;
};

// The op's arguments, from a cpu_op event; empty when it recorded none.
OpArgs op_args(const nlohmann::json& e);

// fp32, fp16, bf16 for a recorded element type; "" for another.
std::string dtype_of(const std::string& type);
// Bytes of an element of a recorded type; 0 for a type that is not a tensor's (Scalar, a list).
double element_bytes(const std::string& type);
// The elements of a tensor of these dims; 0 for none recorded.
double numel(const std::vector<double>& d);

// The bytes a memory-bound ATen op (one the MemoryBound class lists) reads and writes, from its
// dims: aten::fill_ and aten::zero_ write their tensor; another in-place op (a name ending in _)
// reads every input and writes its first (a += b: read a and b, write a); the others read every
// input and write an output as large as the largest. An input is read as the memory it holds
// (an expanded view's repeats are not read again). The ops trace_op_args.cpp names one by one move
// what their dims do not say that way (each seen in a PyTorch 2.11 trace of a Llama step on an H200, where the rule
// gave rates of 6 to 665 TB/s: tests/calibrate/data/h200_llama_step.json.gz). 0 for an op the class
// does not list: a kernel that matched by name under another op (an autograd node, a library's op)
// has dims that do not describe its traffic.
double memory_bytes(std::string_view op, const OpArgs& a);

}  // namespace dtsim
