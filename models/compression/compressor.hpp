// Gradient compressors as data: for a tensor of n elements, the bytes one rank puts on the wire,
// the compress and decompress work (FLOPs and bytes moved, costed by the roofline like any
// compute op, so calibration can fit them), and the exchange real systems use for it.
// One compressor per file in this folder; chosen by method in registry.cpp. A method's name,
// exchange and calibration kernel are its traits in method.cpp.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "models/collectives/collective.hpp"
#include "models/compression/method.hpp"

namespace dtsim {

enum class CompressionGranularity { Bucket, Layer };

struct CompressionSpec {
  bool operator==(const CompressionSpec&) const = default;
  CompressionMethod method = CompressionMethod::None;
  int levels = 127;     // QSGD: s quantisation levels
  double ratio = 0.01;  // top-k and random-k: k = ceil(ratio * n)
  bool error_feedback = true;
  int rank = 4;         // PowerSGD: r
  double min_size = 0;  // bytes: smaller buckets (or layers) go uncompressed
  CompressionGranularity granularity = CompressionGranularity::Bucket;
  double cost_scale = 1;  // multiplies every compress and decompress cost (0: free compression)
};

// Work of one compress, orthogonalise or decompress step.
struct CodecWork {
  double flops = 0;
  double mem_bytes = 0;
};

// Which step of an exchange a compute step is: a calibration profile that measured the method's
// kernel times compress and decompress steps by it (docs/calibration.md); others keep the model.
enum class CodecStage : unsigned char { None, Compress, Decompress };

// A gradient tensor: n elements of elem_bytes each (its dtype on the wire when uncompressed).
struct Tensor {
  double n = 0;
  double elem_bytes = 4;
};

// One step of a compressed exchange, in order: compute work or a collective.
struct CodecStep {
  std::string label;
  bool collective = false;
  CollectiveKind kind = CollectiveKind::AllReduce;
  double bytes = 0;  // S as collective.hpp defines it (AllGather: the whole gathered buffer)
  CodecWork work;
  CodecStage stage = CodecStage::None;
  int contributions = 1;  // payloads a decompress step decodes
};

class Compressor {
 public:
  virtual ~Compressor() = default;
  virtual CompressionMethod method() const = 0;
  // The method's traits (method.cpp).
  std::string_view name() const { return method_name(method()); }
  Exchange exchange() const { return method_traits(method()).exchange; }
  // Bytes one rank sends for the tensor: the AllReduce buffer, its share of an AllGather, its push.
  virtual double payload_bytes(const Tensor& t, const CompressionSpec& spec) const = 0;
  virtual CodecWork compress(const Tensor& t, const CompressionSpec& spec) const = 0;
  // Decode `contributions` payloads (1 after an AllReduce, N after an AllGather or at a server)
  // into the dense gradient.
  virtual CodecWork decompress(const Tensor& t, const CompressionSpec& spec, int contributions) const = 0;
  // Whether compressing this tensor pays at all (PowerSGD: only when (m + n') r < n).
  virtual bool compresses(const Tensor&, const CompressionSpec&) const { return true; }
  // The exchange of one tensor over `workers` ranks: compress, collective(s), decompress. The
  // default follows exchange(); PowerSGD adds its second AllReduce and the orthogonalisation.
  virtual std::vector<CodecStep> steps(const Tensor& t, const CompressionSpec& spec, int workers) const;
  // The kernel `dtsim calibrate` measures for this method (a key of a profile's fitted.compression),
  // or "" when none is: then its steps keep the model's cost.
  std::string_view calibration_kernel() const { return method_traits(method()).calibration_kernel; }
};

// What a measured kernel's fitted curve needs to time a compress or decompress step of a tensor.
//   kernel_bytes: x of the compress curve. Compress: the tensor's elements times 4 bytes (the
//     kernels were measured on fp32 gradients of x bytes). Decompress, for profiles that did not
//     measure decompression: the same scaled by the model's decompress traffic over its compress
//     traffic without error feedback, so decoding `contributions` payloads runs at the measured
//     compress kernel's rate.
//   decode_bytes: decompress: x of the measured decompress curve (one payload decoded from a
//     gradient of x bytes), the tensor's 4 bytes per element scaled by the model's decompress
//     traffic for `contributions` payloads over that for one.
//   feedback_bytes: compress with error feedback: the feedback's memory traffic, which the measured
//     kernel does not include (a profile times it by its memory curve).
struct CodecTiming {
  CodecStage stage = CodecStage::None;
  double kernel_bytes = 0;
  double decode_bytes = 0;
  double feedback_bytes = 0;
};
CodecTiming codec_timing(const Compressor& c, const Tensor& t, const CompressionSpec& spec, CodecStage stage,
                         int contributions);

// The compressor of each method (registry.cpp).
const Compressor& find_compressor(CompressionMethod m);
// By name: throws InputError (no location) naming the valid methods.
const Compressor& find_compressor(std::string_view name);
// The methods' names in the table's order: none, fp16, bf16, int8, qsgd, topk, randomk, sign, powersgd.
std::vector<std::string_view> compressor_names();

// Error feedback (keep what was not sent, add it to the next gradient): 2 FLOPs and 6 element
// passes per element (read the gradient and the residual, write the sum; read it, the decoded
// value and write the new residual).
CodecWork error_feedback_work(const Tensor& t, const CompressionSpec& spec);
CodecWork scaled(CodecWork w, double scale);

}  // namespace dtsim
