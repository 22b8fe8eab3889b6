// The table of pipeline schedules (one per file in schedules/) and what they share.
#include "models/parallel/schedule.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/base/error.hpp"

namespace dtsim {
namespace {

std::string always(int, int, int) { return ""; }

}  // namespace

const std::vector<ScheduleTraits>& pipeline_schedules() {
  static const std::vector<ScheduleTraits> table{
      {PipelineSchedule::GPipe, "gpipe", "every forward, then every backward (holds all m micro-batches)",
       schedules::gpipe_order, always},
      {PipelineSchedule::OneFOneB, "1f1b", "warm-up forwards, then one forward and one backward (holds at most p)",
       schedules::one_f_one_b_order, always},
      {PipelineSchedule::Interleaved, "interleaved",
       "1F1B over strategy.pipeline.virtual_stages model chunks per rank: a smaller bubble, more messages",
       schedules::interleaved_order, schedules::interleaved_refusal},
  };
  return table;
}

const ScheduleTraits& find_schedule(PipelineSchedule kind) {
  for (const ScheduleTraits& s : pipeline_schedules()) {
    if (s.kind == kind) return s;
  }
  throw RuntimeError(fmt::format("no pipeline schedule {}", static_cast<int>(kind)));
}

std::string_view schedule_name(PipelineSchedule kind) { return find_schedule(kind).name; }

int peak_in_flight(const std::vector<PipelineStep>& order) {
  int held = 0;
  int peak = 0;
  for (const PipelineStep& step : order) {
    held += step.backward ? -1 : 1;
    peak = std::max(peak, held);
  }
  return peak;
}

}  // namespace dtsim
