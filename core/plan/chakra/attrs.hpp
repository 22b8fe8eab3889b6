// The attribute names dtsim reads and writes in Chakra traces: Chakra's own (num_ops, comm_type, ...)
// and dtsim's, prefixed "dtsim.", which carry what Chakra has no field for (a kernel's class, the
// stream an op runs on, a rank's node) so that an exported Plan imports back to the same timeline.
// Other tools ignore the dtsim ones; dtsim warns once about each name it does not know.
#pragma once

#include <string_view>

namespace dtsim::chakra_attr {

// Chakra's node attributes (the converter's names).
inline constexpr std::string_view kNumOps = "num_ops";
inline constexpr std::string_view kTensorSize = "tensor_size";
inline constexpr std::string_view kCommType = "comm_type";
inline constexpr std::string_view kCommSize = "comm_size";
inline constexpr std::string_view kCommSrc = "comm_src";
inline constexpr std::string_view kCommDst = "comm_dst";
inline constexpr std::string_view kCommTag = "comm_tag";
inline constexpr std::string_view kPgName = "pg_name";
// What Chakra's PyTorch converter writes that changes nothing in dtsim's replay (src/converter/
// pytorch_converter.py at mlcommons/chakra 73edb74): node bookkeeping and the CUDA stream's number,
// and the host trace's metadata.
inline constexpr std::string_view kIgnored[] = {"is_cpu_op", "rf_id",  "fw_parent", "seq_id", "scope",
                                                "tid",       "fw_tid", "op_schema", "stream"};
inline constexpr std::string_view kIgnoredMetadata[] = {"schema", "pid", "time", "start_ts", "finish_ts"};

// A process group's members in the metadata: "pg_ranks.<pg_name>", a list of global ranks.
inline constexpr std::string_view kPgRanks = "pg_ranks.";

// dtsim's node attributes.
inline constexpr std::string_view kStream = "dtsim.stream";             // Stream as a number
inline constexpr std::string_view kPhase = "dtsim.phase";               // Phase as a number
inline constexpr std::string_view kLayer = "dtsim.layer";               // Op::layer
inline constexpr std::string_view kMicroBatch = "dtsim.micro_batch";    // Op::micro_batch
inline constexpr std::string_view kPeriod = "dtsim.period";             // Op::period
inline constexpr std::string_view kDtype = "dtsim.dtype";               // "fp32", ...
inline constexpr std::string_view kKernelClass = "dtsim.kernel_class";  // "gemm", ...
inline constexpr std::string_view kGemm = "dtsim.gemm";      // m, n, k, batch, backward, causal, split_accumulate
inline constexpr std::string_view kHost = "dtsim.host";      // seconds of host work
inline constexpr std::string_view kReread = "dtsim.reread";  // row bytes, bytes read again
inline constexpr std::string_view kUpdateParams = "dtsim.update_params";      // an optimizer step's parameters
inline constexpr std::string_view kUpdateLaunches = "dtsim.update_launches";  // the kernels issuing it
inline constexpr std::string_view kAlgorithm = "dtsim.algorithm";             // a collective's algorithm

// dtsim's metadata attributes.
inline constexpr std::string_view kPlanName = "dtsim.plan";
inline constexpr std::string_view kRole = "dtsim.role";  // "worker" or "server"
inline constexpr std::string_view kNode = "dtsim.node";
inline constexpr std::string_view kLocal = "dtsim.local";
inline constexpr std::string_view kStage = "dtsim.stage";
inline constexpr std::string_view kShard = "dtsim.shard";
inline constexpr std::string_view kServes = "dtsim.serves";
inline constexpr std::string_view kServerNodes = "dtsim.server_nodes";
inline constexpr std::string_view kShards = "dtsim.shards";
inline constexpr std::string_view kSamples = "dtsim.samples_per_iteration";
inline constexpr std::string_view kPgPerNode = "dtsim.pg_per_node.";  // + pg_name
inline constexpr std::string_view kPgSiblings = "dtsim.pg_siblings.";
inline constexpr std::string_view kPgKind = "dtsim.pg_kind.";  // GroupKind as a number

}  // namespace dtsim::chakra_attr
