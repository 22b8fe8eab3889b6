// Pipeline schedules: the order in which one pipeline rank runs the forward and backward passes of
// its micro-batches (and, interleaved, of its model chunks). One schedule per file in schedules/;
// chosen from the table in schedule.cpp. A step runs once its input has arrived (the previous
// stage's forward, or the next stage's backward, of the same micro-batch and chunk), so the order
// alone decides the bubble: with p stages of equal cost and free communication, GPipe and 1F1B
// leave (p-1)/(m+p-1) of the iteration idle, interleaving with v chunks (p-1)/(v m+p-1)
// (Narayanan et al. 2021, section 2.2). What differs is memory: the micro-batches whose
// activations a stage holds at once (GPipe m, 1F1B at most p on the first stage).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "models/parallel/hybrid.hpp"

namespace dtsim {

struct PipelineStep {
  bool backward = false;
  int micro_batch = 0;
  int chunk = 0;  // model chunk on this rank (0 without interleaving); global stage = chunk x p + stage
};

struct ScheduleTraits {
  PipelineSchedule kind;
  std::string_view name;  // as in strategy.pipeline.schedule
  std::string_view doc;
  // The order of one iteration on pipeline rank `stage` of `stages`, for m micro-batches and v chunks.
  std::vector<PipelineStep> (*order)(int stage, int stages, int micro_batches, int chunks);
  // Why (m, v) cannot run under this schedule, or "" when they can.
  std::string (*refuse)(int stages, int micro_batches, int chunks);
};

const std::vector<ScheduleTraits>& pipeline_schedules();
const ScheduleTraits& find_schedule(PipelineSchedule kind);
std::string_view schedule_name(PipelineSchedule kind);

// The most chunk-micro-batches whose forward has run and backward not yet, over the order: what a
// stage holds activations for at its peak.
int peak_in_flight(const std::vector<PipelineStep>& order);

namespace schedules {
std::vector<PipelineStep> gpipe_order(int stage, int stages, int micro_batches, int chunks);
std::vector<PipelineStep> one_f_one_b_order(int stage, int stages, int micro_batches, int chunks);
std::vector<PipelineStep> interleaved_order(int stage, int stages, int micro_batches, int chunks);
std::string interleaved_refusal(int stages, int micro_batches, int chunks);
}  // namespace schedules

}  // namespace dtsim
