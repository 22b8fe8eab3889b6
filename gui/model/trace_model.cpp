// Trace queries: interning, hit testing, counts and micro-batch spans.
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "gui/model/trace_model.hpp"

#include "gui/model/lod.hpp"

namespace dtsim::gui {

uint32_t StringPool::intern(std::string_view s) {
  if (auto it = ids_.find(s); it != ids_.end()) return it->second;
  strings_.emplace_back(s);
  const auto id = static_cast<uint32_t>(strings_.size() - 1);
  ids_.emplace(strings_.back(), id);
  return id;
}

StringPool& StringPool::operator=(const StringPool& other) {
  if (this == &other) return *this;
  strings_ = other.strings_;
  ids_.clear();
  for (size_t i = 0; i < strings_.size(); ++i) ids_.emplace(strings_[i], static_cast<uint32_t>(i));
  return *this;
}

long Trace::find_event(size_t lane, double t, double slack) const {
  const Lane& l = lanes[lane];
  // The first event that can reach t - slack: max_end is non-decreasing.
  const auto from = std::lower_bound(l.max_end.begin(), l.max_end.end(), t - slack) - l.max_end.begin();
  long best = -1;
  double best_dist = 0, best_dur = 0;
  for (uint32_t i = l.first + static_cast<uint32_t>(from); i < l.last; ++i) {
    const TraceEvent& e = events[i];
    if (e.start > t + slack) break;
    if (e.end() < t - slack) continue;
    // Prefer an event that contains t over a near one, then the shortest (the most specific).
    const double dist = std::max({0.0, e.start - t, t - e.end()});
    if (best < 0 || dist < best_dist || (dist == best_dist && e.dur < best_dur)) {
      best = static_cast<long>(i);
      best_dist = dist;
      best_dur = e.dur;
    }
  }
  return best;
}

size_t Trace::rank_count() const {
  std::set<int> ranks;
  for (const auto& l : lanes) {
    if (l.rank >= 0) ranks.insert(l.rank);
  }
  return ranks.size();
}

bool Trace::has_stages() const {
  return std::any_of(lanes.begin(), lanes.end(), [](const Lane& l) { return l.stage >= 0; });
}

const MicroBatchSpan* Trace::micro_batch_span(size_t event) const {
  if (event >= events.size()) return nullptr;
  const auto& spans = lanes[events[event].lane].micro_batches;
  const auto it = std::upper_bound(spans.begin(), spans.end(), static_cast<uint32_t>(event),
                                   [](uint32_t e, const MicroBatchSpan& s) { return e < s.first; });
  if (it == spans.begin()) return nullptr;
  const MicroBatchSpan& s = *(it - 1);
  return event < s.last ? &s : nullptr;
}

void build_micro_batch_spans(Trace& trace) {
  // Per kind: 0 not a pass, 1 forward, 2 recompute, 3 backward. Recompute and backward are one
  // pass (full recompute interleaves them layer by layer), named backward once it has begun.
  std::vector<uint8_t> pass(trace.kinds.size());
  for (size_t k = 0; k < pass.size(); ++k) {
    const std::string& name = trace.kinds.info(static_cast<uint16_t>(k)).name;
    pass[k] = name == "forward" ? 1 : name == "recompute" ? 2 : name == "backward" ? 3 : 0;
  }
  auto direction = [](uint8_t p) { return p == 1 ? 1 : 2; };
  for (Lane& lane : trace.lanes) {
    lane.micro_batches.clear();
    MicroBatchSpan cur;
    bool open = false;
    uint8_t cur_pass = 0;  // the pass that names the span so far, 0 while only communication
    auto close = [&](uint32_t at) {
      if (!open) return;
      cur.last = at;
      lane.micro_batches.push_back(cur);
      open = false;
    };
    for (uint32_t i = lane.first; i < lane.last; ++i) {
      const TraceEvent& e = trace.events[i];
      const uint8_t p = pass[e.kind];
      if (open && (e.micro_batch != cur.micro_batch || (p && cur_pass && direction(p) != direction(cur_pass))))
        close(i);
      if (e.micro_batch < 0) continue;
      if (!open) {
        cur = MicroBatchSpan{e.start, e.end(), e.micro_batch, e.kind, i, i};
        open = true;
        cur_pass = 0;
      }
      if (p > cur_pass) {
        cur.kind = e.kind;
        cur_pass = p;
      }
      cur.end = std::max(cur.end, lane.max_end[i - lane.first]);
    }
    close(lane.last);
  }
}

Trace subset_trace(const Trace& trace, const std::vector<int>& ranks) {
  Trace out;
  out.strings = trace.strings;
  out.kinds = trace.kinds;
  out.scenario = trace.scenario;
  out.t_min = std::numeric_limits<double>::infinity();
  out.t_max = -out.t_min;
  const std::set<int> wanted(ranks.begin(), ranks.end());
  for (size_t i = 0; i < trace.lanes.size(); ++i) {
    if (!wanted.count(trace.lanes[i].rank)) continue;
    Lane lane = trace.lanes[i];
    lane.first = static_cast<uint32_t>(out.events.size());
    for (const TraceEvent& e : trace.lane_events(i)) {
      out.events.push_back(e);
      out.events.back().lane = static_cast<int32_t>(out.lanes.size());
      out.t_min = std::min(out.t_min, e.start);
      out.t_max = std::max(out.t_max, e.end());
      if (e.iteration < 0 || trace.kinds.info(e.kind).name == "waiting") continue;
      if (out.iteration_starts.size() <= static_cast<size_t>(e.iteration))
        out.iteration_starts.resize(e.iteration + 1, std::numeric_limits<double>::quiet_NaN());
      double& s = out.iteration_starts[e.iteration];
      if (std::isnan(s) || e.start < s) s = e.start;
    }
    lane.last = static_cast<uint32_t>(out.events.size());
    out.lanes.push_back(std::move(lane));
  }
  if (out.events.empty()) out.t_min = out.t_max = 0;
  build_lod_levels(out);
  build_micro_batch_spans(out);
  return out;
}

}  // namespace dtsim::gui
