// A Chrome trace (dtsim's trace.json, or any complete-event trace) as the timeline needs it:
// events sorted by lane and start time, lanes (one per pid/tid: node or pipeline stage, rank and
// stream) in display order, interned names and kinds, iteration start times for the markers, and
// each lane's micro-batch spans when its ops carry args.micro_batch (a hybrid run's pipeline).
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gui/model/kinds.hpp"

namespace dtsim::gui {

// Interns strings: names repeat across iterations and ranks.
class StringPool {
 public:
  StringPool() = default;
  StringPool(const StringPool& other) { *this = other; }
  StringPool& operator=(const StringPool& other);  // rebuilds the index over its own strings
  StringPool(StringPool&&) = default;
  StringPool& operator=(StringPool&&) = default;
  uint32_t intern(std::string_view s);
  const std::string& at(uint32_t id) const { return strings_[id]; }
  size_t size() const { return strings_.size(); }

 private:
  std::deque<std::string> strings_;  // a deque keeps the views in ids_ valid
  std::unordered_map<std::string_view, uint32_t> ids_;
};

struct TraceEvent {
  double start = 0;  // microseconds
  double dur = 0;
  double bytes = 0;
  double flops = 0;
  int32_t lane = 0;
  int32_t rank = -1;
  int32_t iteration = -1;
  uint32_t name = 0;         // StringPool id
  uint32_t detail = 0;       // StringPool id of args.before (what a wait waited for), 0 = none
  uint16_t kind = 0;         // KindTable id
  int16_t stage = -1;        // args.stage: the op's pipeline stage, -1 if none
  int32_t micro_batch = -1;  // args.micro_batch, -1 if none
  double end() const { return start + dur; }
};

// A run of consecutive ops of one lane that belong to one micro-batch and one pass: the forward
// of micro-batch 3 on stage 1, with the tensor-parallel collectives and the sends and receives
// inside it, or its backward with the recompute before (or between) its layers. A compute op of
// the other pass, another micro-batch or an op without one (a wait, the optimizer step) ends it.
struct MicroBatchSpan {
  double start = 0, end = 0;  // us; `end` is the lane's running maximum of ends, so it never decreases
  int32_t micro_batch = -1;
  uint16_t kind = 0;             // forward, backward, recompute (only recompute so far), else the first op's kind
  uint32_t first = 0, last = 0;  // its events: [first, last) of Trace::events
};

// A coarser copy of a lane's events for zoomed-out views: consecutive events merged into blocks
// spanning at most `max_span` us (a longer event stays its own block), in the dominant kind.
struct LodLevel {
  double max_span = 0;
  std::vector<TraceEvent> blocks;
  std::vector<double> max_end;
};

struct Lane {
  int pid = 0;
  int tid = 0;
  int rank = -1;                              // from the events' args.rank, -1 if none
  int stage = -1;                             // from the events' args.stage, -1 if none
  std::string process_name;                   // "node 3"
  std::string name;                           // "rank 3 compute"
  uint32_t first = 0, last = 0;               // its events: [first, last) of Trace::events
  std::vector<double> max_end;                // prefix maximum of event ends, to find the first visible event
  std::vector<LodLevel> levels;               // coarser and coarser; see build_lod_levels
  std::vector<MicroBatchSpan> micro_batches;  // by start; empty when no op carries a micro-batch
};

// Trace times (microseconds) a viewer draws: ts within +-1e15 us (31 years), dur from 0 to 1e15 us.
inline constexpr double kMaxTraceTime = 1e15;

class Trace {
 public:
  std::vector<TraceEvent> events;  // grouped by lane, each lane sorted by start
  std::vector<Lane> lanes;         // display order
  StringPool strings;
  KindTable kinds;
  std::vector<double> iteration_starts;  // index: iteration; start of its first op (us), NaN if none
  std::string scenario;
  double t_min = 0, t_max = 0;
  // What was wrong with the file and left out, in words (events whose times are not finite or
  // beyond kMaxTraceTime, ...): shown in the status bar, and exit code 2 in --screenshot mode.
  std::vector<std::string> problems;

  std::span<const TraceEvent> lane_events(size_t lane) const {
    return {events.data() + lanes[lane].first, events.data() + lanes[lane].last};
  }
  // The event under time t (us) on a lane within `slack` us, or -1; the shortest one wins.
  long find_event(size_t lane, double t, double slack) const;
  size_t rank_count() const;
  // Whether any op carries args.stage (a pipeline-parallel run).
  bool has_stages() const;
  // The micro-batch span of a lane that holds event `event`, or null.
  const MicroBatchSpan* micro_batch_span(size_t event) const;
};

// Groups each lane's ops into micro-batch spans (Lane::micro_batches). Called after loading.
void build_micro_batch_spans(Trace& trace);

// The lanes of the given ranks only (e.g. one job of a multi-job run), with their events.
Trace subset_trace(const Trace& trace, const std::vector<int>& ranks);

// Parses trace text (an object with "traceEvents", or a bare array); throws ParseError.
Trace parse_trace(std::string_view text);
Trace load_trace(const std::string& path);
// Reads a whole file; throws ParseError when it cannot.
std::string read_file(const std::string& path);

}  // namespace dtsim::gui
