// Writing the Chrome trace. Hand-formatted: traces run to millions of events.
#include "core/run/trace.hpp"

#include <algorithm>
#include <set>
#include <variant>

#include <fmt/format.h>

namespace dtsim {
namespace {

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    out += c;
  }
  return out;
}

std::string_view stream_name(Stream s) {
  switch (s) {
    case Stream::Compute: return "compute";
    case Stream::Comm: return "comm";
    case Stream::Posted: return "posted";
  }
  return "?";
}

int thread_id(int rank, Stream s) { return rank * 3 + static_cast<int>(s); }

// The trace's processes: nodes, or for a hybrid plan its pipeline stages (the stages' lanes are what
// a pipeline timeline reads; each rank's node stays in its events' args).
bool by_stage(const Plan& plan) {
  return std::any_of(plan.ranks.begin(), plan.ranks.end(), [](const RankProgram& r) { return r.stage >= 0; });
}
int process_of(const RankProgram& r, bool stages) { return stages ? r.stage : r.where.node; }

// The args a hybrid op adds: its micro-batch and its rank's stage.
std::string pipeline_args(const RankProgram& r, const Op& op) {
  if (r.stage < 0) return "";
  return op.micro_batch >= 0 ? fmt::format(",\"stage\":{},\"micro_batch\":{}", r.stage, op.micro_batch)
                             : fmt::format(",\"stage\":{}", r.stage);
}

}  // namespace

void write_trace_json(const ChunkSink& sink, const Plan& plan, const std::vector<OpRecord>& records,
                      int cluster_nodes) {
  constexpr size_t kChunk = 1 << 20;
  fmt::memory_buffer out;
  auto flush = [&] {
    sink(std::string_view(out.data(), out.size()));
    out.clear();
  };
  fmt::format_to(std::back_inserter(out),
                 "{{\"displayTimeUnit\":\"ms\",\"otherData\":{{\"scenario\":\"{}\"}},"
                 "\"traceEvents\":[\n",
                 escape(plan.name));
  bool first = true;
  auto sep = [&] {
    if (out.size() >= kChunk) flush();
    if (!first) fmt::format_to(std::back_inserter(out), ",\n");
    first = false;
  };
  const bool stages = by_stage(plan);
  std::set<int> nodes;
  std::set<std::pair<int, Stream>> threads;
  for (const auto& r : records) threads.insert({r.rank, plan.ranks[r.rank].ops[r.op].stream});
  for (const auto& rank : plan.ranks) nodes.insert(process_of(rank, stages));
  for (int node : nodes) {
    sep();
    const std::string name = stages                 ? fmt::format("pipeline stage {}", node)
                             : node < cluster_nodes ? fmt::format("node {}", node)
                                                    : fmt::format("server host {}", node - cluster_nodes);
    fmt::format_to(std::back_inserter(out),
                   "{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{},\"args\":{{\"name\":\"{}\"}}}},"
                   "{{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":{},\"args\":{{\"sort_index\":{}}}}}",
                   node, name, node, node);
  }
  for (const auto& [rank, stream] : threads) {
    sep();
    const RankProgram& r = plan.ranks[rank];
    fmt::format_to(
        std::back_inserter(out),
        "{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":\"{} {} {}\"}}}},"
        "{{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":{},\"tid\":{},\"args\":{{\"sort_index\":{}}}}}",
        process_of(r, stages), thread_id(rank, stream), r.role == Role::Worker ? "rank" : "server rank", rank,
        stream_name(stream), process_of(r, stages), thread_id(rank, stream), thread_id(rank, stream));
  }
  for (const auto& rec : records) {
    sep();
    const RankProgram& r = plan.ranks[rec.rank];
    const Op& op = r.ops[rec.op];
    fmt::format_to(std::back_inserter(out),
                   "{{\"name\":\"{}\",\"cat\":\"{}\",\"ph\":\"X\",\"ts\":{:.3f},\"dur\":{:.3f},\"pid\":{},\"tid\":{},"
                   "\"args\":{{\"rank\":{},\"iteration\":{},\"kind\":\"{}\",\"bytes\":{},\"flops\":{}{}}}}}",
                   escape(op.label), phase_name(op.phase), rec.start * 1e6, (rec.end - rec.start) * 1e6,
                   process_of(r, stages), thread_id(rec.rank, op.stream), rec.rank, rec.iteration,
                   op_kind_name(op.body), op_bytes(op.body), op_flops(op.body), pipeline_args(r, op));
  }
  // The gaps on each rank's compute lane between one compute op and the next, and from its last to the end of its
  // job's run, in the summary's categories (metrics.hpp: compute + exposed communication + waiting = 1): where the
  // rank's own communication runs, exposed communication; the rest, waiting.
  std::vector<std::vector<const OpRecord*>> lanes(plan.ranks.size());
  std::vector<std::vector<std::pair<double, double>>> comm(plan.ranks.size());
  std::vector<double> job_end(plan.jobs.size(), 0.0);
  for (const auto& rec : records) {
    double& end = job_end[static_cast<size_t>(plan.ranks[rec.rank].job)];
    end = std::max(end, rec.end);
    const Op& op = plan.ranks[rec.rank].ops[rec.op];
    // A staleness gate or a backup quorum is waiting, not communication (as metrics count it).
    const bool holds = std::holds_alternative<GateOp>(op.body) || std::holds_alternative<QuorumOp>(op.body);
    if (op.stream == Stream::Compute) {
      lanes[rec.rank].push_back(&rec);
    } else if (rec.end > rec.start && !holds) {
      comm[rec.rank].emplace_back(rec.start, rec.end);
    }
  }
  const auto gap_event = [&](const RankProgram& r, int iteration, std::string_view next, double from, double to,
                             bool exposed) {
    if (to - from <= 1e-12) return;
    sep();
    fmt::format_to(std::back_inserter(out),
                   "{{\"name\":\"{}\",\"cat\":\"{}\",\"ph\":\"X\",\"ts\":{:.3f},\"dur\":{:.3f},\"pid\":{},"
                   "\"tid\":{},\"args\":{{\"rank\":{},\"iteration\":{},\"kind\":\"{}\",\"before\":\"{}\"}}}}",
                   exposed ? "exposed communication" : "waiting", exposed ? "exposed" : "wait", from * 1e6,
                   (to - from) * 1e6, process_of(r, stages), thread_id(r.rank, Stream::Compute), r.rank, iteration,
                   exposed ? "exposed" : "wait", next);
  };
  for (size_t rank = 0; rank < lanes.size(); ++rank) {
    auto& lane = lanes[rank];
    std::sort(lane.begin(), lane.end(), [](const OpRecord* a, const OpRecord* b) { return a->start < b->start; });
    // The rank's communication as disjoint intervals, in time order.
    auto& busy = comm[rank];
    std::sort(busy.begin(), busy.end());
    std::vector<std::pair<double, double>> merged;
    for (const auto& [start, end] : busy) {
      if (!merged.empty() && start <= merged.back().second) {
        merged.back().second = std::max(merged.back().second, end);
      } else {
        merged.emplace_back(start, end);
      }
    }
    if (lane.empty()) continue;
    const RankProgram& r = plan.ranks[rank];
    size_t c = 0;
    // The gap after lane[i - 1] until `to`, before the op named `next`.
    const auto gap = [&](size_t i, double to, const std::string& next) {
      const double from = lane[i - 1]->end;
      if (to - from <= 1e-12) return;
      while (c < merged.size() && merged[c].second <= from) ++c;
      double at = from;
      for (size_t k = c; k < merged.size() && merged[k].first < to; ++k) {
        const double start = std::max(at, merged[k].first), end = std::min(to, merged[k].second);
        if (end <= start) continue;
        gap_event(r, lane[i - 1]->iteration, next, at, start, false);
        gap_event(r, lane[i - 1]->iteration, next, start, end, true);
        at = end;
      }
      gap_event(r, lane[i - 1]->iteration, next, at, to, false);
    };
    for (size_t i = 1; i < lane.size(); ++i) gap(i, lane[i]->start, escape(r.ops[lane[i]->op].label));
    gap(lane.size(), job_end[static_cast<size_t>(r.job)], "the end of the run");
  }
  fmt::format_to(std::back_inserter(out), "\n]}}\n");
  flush();
}

std::string trace_json(const Plan& plan, const std::vector<OpRecord>& records, int cluster_nodes) {
  std::string text;
  write_trace_json([&text](std::string_view chunk) { text.append(chunk); }, plan, records, cluster_nodes);
  return text;
}

}  // namespace dtsim
