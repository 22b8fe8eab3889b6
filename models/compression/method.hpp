// The compression methods and their traits, in one table (method.cpp): the name a scenario spells
// (compression.method), how the workers' payloads are combined, which dtsim-real backends carry the
// method out and in which exchange, and the kernel `dtsim calibrate` measures for it. The scenario
// loader parses the name once; everything after it switches on CompressionMethod (no default:, so
// -Wswitch flags a switch that misses a method). Adding a method is its entry in method.cpp plus its
// compressor (one file in this folder, chosen in registry.cpp) and the cases the compiler asks for.
#pragma once

#include <span>
#include <string_view>

namespace dtsim {

enum class CompressionMethod { None, Fp16, Bf16, Int8, Qsgd, TopK, RandomK, Sign, PowerSgd };

// How the compressed payloads of the workers are combined.
enum class Exchange {
  AllReduce,  // dense: the compressed buffers are summed in place
  AllGather,  // sparse or sign: every rank receives every rank's payload, then decodes them all
  LowRank,    // PowerSGD: AllReduce P, orthogonalise, AllReduce Q
};

// Where a dtsim-real backend carries a method out: in an AllReduce job's exchange, and in a
// parameter-server job's pushes (decoded one at a time by the server).
struct RealSupport {
  bool allreduce = false;
  bool parameter_server = false;

  bool in(bool allreduce_job) const { return allreduce_job ? allreduce : parameter_server; }
};

struct MethodTraits {
  CompressionMethod method = CompressionMethod::None;
  std::string_view name;  // as compression.method spells it
  Exchange exchange = Exchange::AllReduce;
  RealSupport cpu;   // dtsim-real --backend cpu (real/codec.cpp)
  RealSupport cuda;  // dtsim-real --backend cuda (real/cuda/cuda_codec.cpp)
  // The kernel `dtsim calibrate` measures (a key of a profile's fitted.compression), or "" when
  // none is: then the method's steps keep the model's cost.
  std::string_view calibration_kernel;
};

// Every method, in the enum's order.
std::span<const MethodTraits> compression_methods();
const MethodTraits& method_traits(CompressionMethod m);
std::string_view method_name(CompressionMethod m);
// The method of a name. Throws InputError (no location) naming the valid methods.
CompressionMethod parse_compression_method(std::string_view name);

}  // namespace dtsim
