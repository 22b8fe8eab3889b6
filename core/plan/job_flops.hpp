// What a job's utilisation is measured by, read from its scenario and its compiled plan: the model FLOPs of one
// sample, the FLOPs activation recompute adds, its tokens per sample, its devices and their peak. Metrics turn them
// into tokens/s, MFU and HFU (core/run/metrics.hpp):
//   MFU = model FLOPs per sample x samples/s / peak                      (Chowdhery et al. 2022, appendix B)
//   HFU = (model FLOPs per sample + recompute's per sample) x samples/s / peak   (Korthikanti et al. 2022)
// Both count FLOPs as MFU's convention does (model_flops in models/parallel/model_flops.hpp): the matmuls, the
// attention core whole; so HFU is MFU with the recomputed matmuls added, as Megatron-LM reports it.
#pragma once

#include "core/plan/compiler.hpp"
#include "core/plan/plan.hpp"
#include "core/scenario/scenario.hpp"

namespace dtsim {

// Fills plan.jobs[job]'s model_flops_per_sample, recompute_flops_per_iteration, tokens_per_sample, devices and
// peak_flops once the job's ranks are compiled (either scope: in a plan of representatives each stage's
// representatives stand for its workers). A job replayed from Chakra traces is left at 0: its traces say no model
// FLOPs.
//   model FLOPs:  a hybrid job's from its kernels (model_flops_per_sample in models/parallel/model_flops.hpp); a
//                 data-parallel job's are its layer table's forward and backward FLOPs.
//   recompute:    the model FLOPs of the Phase::Recompute ops of the job's workers in one iteration.
//   peak:         the sum over the job's workers of their devices' dense peak in model.dtype (DeviceSpec::peak).
void set_job_flops(const Scenario& s, int job, JobKind kind, Plan& plan);

}  // namespace dtsim
