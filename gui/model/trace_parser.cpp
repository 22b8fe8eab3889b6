// Parsing Chrome trace JSON into a Trace: complete events (ph X) become ops, metadata events
// (ph M) name processes and threads and order them; everything else is skipped.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "core/base/available_memory.hpp"
#include "core/base/units.hpp"
#include "gui/model/json_scanner.hpp"
#include "gui/model/lod.hpp"
#include "gui/model/trace_model.hpp"

namespace dtsim::gui {
namespace {

struct LaneKey {
  int pid, tid;
  bool operator<(const LaneKey& o) const { return pid != o.pid ? pid < o.pid : tid < o.tid; }
};

struct LaneMeta {
  std::string process_name, name;
  long process_sort = std::numeric_limits<long>::min(), sort = std::numeric_limits<long>::min();
  int rank = -1, stage = -1;
  std::vector<TraceEvent> events;
};

class TraceBuilder {
 public:
  explicit TraceBuilder(Trace& t) : t_(t) { t_.strings.intern(""); }

  void event(JsonScanner& s) {
    std::string_view key;
    std::string_view name, cat, ph, kind, meta_name, before;
    std::string names[4];  // scratch for escaped strings that must outlive the loop
    double ts = 0, dur = 0, bytes = 0, flops = 0, sort_index = 0;
    int pid = 0, tid = 0, rank = -1, iteration = -1, stage = -1, micro_batch = -1;
    for (JsonMembers m(s); m.next(key, scratch_);) {
      if (key == "name")
        name = keep(s.string(scratch_), names[0]);
      else if (key == "cat")
        cat = keep(s.string(scratch_), names[1]);
      else if (key == "ph")
        ph = s.string(scratch_);
      else if (key == "ts")
        ts = s.number_like(scratch_);
      else if (key == "dur")
        dur = s.number_like(scratch_);
      else if (key == "pid")
        pid = to_int(s.number_like(scratch_));
      else if (key == "tid")
        tid = to_int(s.number_like(scratch_));
      else if (key == "args" && s.peek() == '{') {
        for (JsonMembers a(s); a.next(key, scratch_);) {
          if (key == "rank")
            rank = to_int(s.number_like(scratch_));
          else if (key == "iteration")
            iteration = to_int(s.number_like(scratch_));
          else if (key == "stage")
            stage = to_int(s.number_like(scratch_));
          else if (key == "micro_batch")
            micro_batch = to_int(s.number_like(scratch_));
          else if (key == "kind" && s.peek() == '"')
            kind = keep(s.string(scratch_), names[2]);
          else if (key == "bytes")
            bytes = s.number_like(scratch_);
          else if (key == "flops")
            flops = s.number_like(scratch_);
          else if (key == "name" && s.peek() == '"')
            meta_name = keep(s.string(scratch_), names[3]);
          else if (key == "before" && s.peek() == '"')
            before = keep(s.string(scratch_), names[3]);
          else if (key == "sort_index")
            sort_index = s.number_like(scratch_);
          else
            s.skip_value();
        }
      } else {
        s.skip_value();
      }
    }
    LaneMeta& lane = lanes_[{pid, tid}];
    ++seen_;
    if (ph == "X" && !(std::isfinite(ts) && std::isfinite(dur) && std::abs(ts) <= kMaxTraceTime && dur >= 0 &&
                       dur <= kMaxTraceTime)) {
      if (bad_times_++ == 0) first_bad_ = fmt::format("event {}: ts {}, dur {}", seen_, ts, dur);
      return;
    }
    if (ph == "X") {
      TraceEvent e;
      e.start = ts;
      e.dur = std::max(0.0, dur);
      e.bytes = bytes;
      e.flops = flops;
      e.rank = rank;
      e.iteration = iteration <= kMaxIteration ? iteration : -1;
      e.stage = static_cast<int16_t>(std::clamp(stage, -1, 32767));
      e.micro_batch = micro_batch;
      e.name = t_.strings.intern(name);
      e.detail = before.empty() ? 0 : t_.strings.intern(before);
      e.kind = kind_of(name, cat, kind);
      if (rank >= 0 && lane.rank < 0) lane.rank = rank;
      if (stage >= 0 && lane.stage < 0) lane.stage = stage;
      lane.events.push_back(e);
    } else if (ph == "M") {
      if (name == "process_name")
        processes_[pid].name = meta_name;
      else if (name == "process_sort_index")
        processes_[pid].sort = to_sort(sort_index);
      else if (name == "thread_name")
        lane.name = meta_name;
      else if (name == "thread_sort_index")
        lane.sort = to_sort(sort_index);
    }
  }

  void finish() {
    std::vector<std::pair<LaneKey, LaneMeta*>> order;
    for (auto& [key, meta] : lanes_) {
      if (!meta.events.empty()) order.push_back({key, &meta});
    }
    auto proc_sort = [&](int pid) {
      const auto it = processes_.find(pid);
      return it == processes_.end() || it->second.sort == std::numeric_limits<long>::min() ? long{pid}
                                                                                           : it->second.sort;
    };
    std::stable_sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
      const long pa = proc_sort(a.first.pid), pb = proc_sort(b.first.pid);
      if (pa != pb) return pa < pb;
      if (a.first.pid != b.first.pid) return a.first.pid < b.first.pid;
      const long sa = a.second->sort == std::numeric_limits<long>::min() ? a.first.tid : a.second->sort;
      const long sb = b.second->sort == std::numeric_limits<long>::min() ? b.first.tid : b.second->sort;
      return sa != sb ? sa < sb : a.first.tid < b.first.tid;
    });
    size_t total = 0;
    for (const auto& o : order) total += o.second->events.size();
    t_.events.reserve(total);
    t_.t_min = std::numeric_limits<double>::infinity();
    t_.t_max = -std::numeric_limits<double>::infinity();
    for (const auto& [key, meta] : order) {
      Lane lane;
      lane.pid = key.pid;
      lane.tid = key.tid;
      lane.rank = meta->rank;
      lane.stage = meta->stage;
      const auto proc = processes_.find(key.pid);
      lane.process_name = proc != processes_.end() && !proc->second.name.empty() ? proc->second.name
                                                                                 : "process " + std::to_string(key.pid);
      lane.name = meta->name.empty() ? "thread " + std::to_string(key.tid) : meta->name;
      auto& ev = meta->events;
      std::stable_sort(ev.begin(), ev.end(),
                       [](const TraceEvent& a, const TraceEvent& b) { return a.start < b.start; });
      lane.first = static_cast<uint32_t>(t_.events.size());
      const auto lane_index = static_cast<int32_t>(t_.lanes.size());
      double max_end = -std::numeric_limits<double>::infinity();
      const int waiting = t_.kinds.find("waiting");
      lane.max_end.reserve(ev.size());
      for (auto& e : ev) {
        e.lane = lane_index;
        max_end = std::max(max_end, e.end());
        lane.max_end.push_back(max_end);
        t_.t_min = std::min(t_.t_min, e.start);
        t_.t_max = std::max(t_.t_max, e.end());
        if (e.iteration >= 0 && e.kind != waiting) {
          if (t_.iteration_starts.size() <= static_cast<size_t>(e.iteration))
            t_.iteration_starts.resize(e.iteration + 1, std::numeric_limits<double>::quiet_NaN());
          double& s = t_.iteration_starts[e.iteration];
          if (std::isnan(s) || e.start < s) s = e.start;
        }
      }
      t_.events.insert(t_.events.end(), ev.begin(), ev.end());
      std::vector<TraceEvent>().swap(ev);
      lane.last = static_cast<uint32_t>(t_.events.size());
      t_.lanes.push_back(std::move(lane));
    }
    if (t_.events.empty()) t_.t_min = t_.t_max = 0;
    if (bad_times_ > 0) {
      t_.problems.push_back(
          fmt::format("left out {} event{} whose ts is not within +-1e15 us or whose dur is not "
                      "from 0 to 1e15 us (first: {})",
                      bad_times_, bad_times_ == 1 ? "" : "s", first_bad_));
    }
    build_lod_levels(t_);
    build_micro_batch_spans(t_);
  }

 private:
  // A view into the scanner's scratch is overwritten by the next string: copy it out.
  std::string_view keep(std::string_view v, std::string& store) const {
    if (v.data() < scratch_.data() || v.data() > scratch_.data() + scratch_.size()) return v;
    store.assign(v);
    return store;
  }

  uint16_t kind_of(std::string_view name, std::string_view cat, std::string_view kind) {
    const bool wait = cat == "wait" || name == "waiting";
    std::string key;
    key.reserve(cat.size() + kind.size() + 2);
    key.append(cat).push_back('\x1f');
    key.append(kind).push_back(wait ? 'w' : '-');
    if (cat.empty() && kind.empty()) key.append(name);
    const auto it = kind_cache_.find(key);
    if (it != kind_cache_.end()) return it->second;
    const uint16_t id = t_.kinds.intern(classify_kind(name, cat, kind));
    kind_cache_.emplace(std::move(key), id);
    return id;
  }

  // A number read into an int field: clamped to int's range (NaN reads as -1, "none").
  static int to_int(double v) {
    if (std::isnan(v)) return -1;
    return static_cast<int>(std::clamp(v, -2147483648.0, 2147483647.0));
  }
  // A sort index read into a long: clamped (NaN sorts first), so that no value is out of its range.
  static long to_sort(double v) {
    if (std::isnan(v)) return std::numeric_limits<long>::min() + 1;
    return static_cast<long>(std::clamp(v, -4e18, 4e18));
  }
  // Iterations index a vector (iteration_starts): an event beyond this is drawn but not indexed.
  static constexpr int kMaxIteration = 10000000;

  struct Process {
    std::string name;
    long sort = std::numeric_limits<long>::min();
  };
  long seen_ = 0;       // events read so far
  long bad_times_ = 0;  // X events left out for their times
  std::string first_bad_;
  Trace& t_;
  std::string scratch_;
  std::map<LaneKey, LaneMeta> lanes_;
  std::map<int, Process> processes_;
  std::unordered_map<std::string, uint16_t> kind_cache_;
};

}  // namespace

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ParseError("cannot open " + path);
  std::string text;
  in.seekg(0, std::ios::end);
  text.resize(static_cast<size_t>(in.tellg()));
  in.seekg(0);
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  return text;
}

Trace parse_trace(std::string_view text) {
  Trace t;
  TraceBuilder b(t);
  JsonScanner s(text);
  std::string scratch;
  auto events = [&] {
    for (JsonElements e(s); e.next();) {
      if (s.peek() == '{')
        b.event(s);
      else
        s.skip_value();
    }
  };
  if (s.peek() == '[') {
    events();
  } else {
    std::string_view key;
    bool found = false;
    for (JsonMembers m(s); m.next(key, scratch);) {
      if (key == "traceEvents") {
        events();
        found = true;
      } else if (key == "otherData" && s.peek() == '{') {
        for (JsonMembers o(s); o.next(key, scratch);) {
          if (key == "scenario" && s.peek() == '"')
            t.scenario = std::string(s.string(scratch));
          else
            s.skip_value();
        }
      } else {
        s.skip_value();
      }
    }
    if (!found) throw ParseError("not a Chrome trace: no \"traceEvents\"");
  }
  b.finish();
  return t;
}

Trace load_trace(const std::string& path) {
  // The file's text and its events take about 1.7 B a byte of trace.json (measured: dtsim-gui --screenshot of the
  // quickstart's 85 MB and 343 MB traces peaked at 162 and 601 MB; docs/PERFORMANCE.md): a trace that would not fit
  // is refused before it is read.
  constexpr double kBytesPerTraceByte = 1.7;
  std::error_code ec;
  const auto size = static_cast<double>(std::filesystem::file_size(path, ec));
  if (const Available available = available_memory(); !ec && kBytesPerTraceByte * size > available.bytes) {
    throw ParseError(fmt::format("the trace is {}: opened, it would hold about {} ({} B a byte), more than the {} {}",
                                 format_bytes(size), format_bytes(kBytesPerTraceByte * size), kBytesPerTraceByte,
                                 format_bytes(available.bytes), available.what));
  }
  return parse_trace(read_file(path));
}

}  // namespace dtsim::gui
