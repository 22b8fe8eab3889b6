// `dtsim calibrate --from-trace TRACE [--from-trace TRACE ...]`: a profile fitted to the work in
// PyTorch profiler traces of the user's own model (a few steps on one GPU or one node, as Lumos and
// vTrain calibrate), with no microbenchmark run: read each trace (torch_trace.hpp), sort its work
// into classes (trace_classes.hpp), fit the GEMMs' rate per dtype, the memory-bound ops' rate and
// the collectives' bandwidth,
// check every fit (fit_checks.hpp, against the zoo device the trace names), print what was found
// and what could not be classified, and write the profile.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "calibrate/fit_checks.hpp"
#include "core/calibration/calibration.hpp"
#include "core/calibration/torch_trace.hpp"

namespace dtsim::calib {

struct FromTraceOptions {
  std::vector<std::string> traces;
  std::string out = "profile.yaml";
  std::string device;  // a zoo device whose peaks bound the fits; "" = the one the trace names, if any
};

// One class's share of the traces: units, their summed time and its share of the busy time.
struct ClassShare {
  TraceClass cls = TraceClass::Unclassified;
  int units = 0;
  double seconds = 0;
};

// The zoo device a CUDA device name matches ("NVIDIA A100-SXM4-80GB" -> a100_80gb): the zoo entries
// whose model (A100, H100, ...) the name holds, the one whose memory size it also holds first; "" for none.
std::string zoo_device_of(const std::string& cuda_name);

// The bounds a fitted profile of zoo device `device` cannot pass (calibrate/fit_checks.hpp): its peak per dtype
// (fp32, tf32, fp16, bf16) and its data-sheet memory bandwidth past its L2. None for "" (a device the zoo lacks).
FitCeilings device_ceilings(const std::string& device);

// The profile the traces give: compute.<dtype> from GEMM units with FLOPs (one sample per distinct
// FLOP count: the mean time of its units), memory.sgd_step from memory-bound units with bytes (the
// same per distinct byte count) and with it memory_roofline (an op costs at least its traffic on that
// curve, as the traced memory-bound kernels did), the collectives of traces of several ranks with their kind
// and size (one CollectiveSample per kind and S: the mean time of its units, busbw over the trace's world size)
// and, from their AllReduces at 3 sizes or more, the same_host link (allreduce_rounds: the traced ranks taken to
// share a node), checked with check_fits against `device`'s peaks. Throws
// RuntimeError when no GEMM had shapes (record_shapes=True) or when the traces disagree on
// their device.
CalibrationProfile profile_from_traces(const std::vector<TorchTrace>& traces, const std::string& device);

// Units and time per class over the traces, in the classes' order, Unclassified last.
std::vector<ClassShare> class_shares(const std::vector<TorchTrace>& traces);

// Reads, fits, prints the report and writes the profile (whole or not at all). Returns 0.
int calibrate_from_trace(const FromTraceOptions& o, std::ostream& out);

}  // namespace dtsim::calib
