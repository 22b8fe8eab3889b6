// Writing the Chrome trace. Hand-formatted: traces run to millions of events.
#include "models/trace.hpp"

#include <set>

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

}  // namespace

std::string trace_json(const Plan& plan, const std::vector<OpRecord>& records, int cluster_nodes) {
  fmt::memory_buffer out;
  fmt::format_to(std::back_inserter(out), "{{\"displayTimeUnit\":\"ms\",\"otherData\":{{\"scenario\":\"{}\"}},"
                                          "\"traceEvents\":[\n",
                 escape(plan.name));
  bool first = true;
  auto sep = [&] {
    if (!first) fmt::format_to(std::back_inserter(out), ",\n");
    first = false;
  };
  std::set<int> nodes;
  std::set<std::pair<int, Stream>> threads;
  for (const auto& r : records) threads.insert({r.rank, plan.ranks[r.rank].ops[r.op].stream});
  for (const auto& rank : plan.ranks) nodes.insert(rank.where.node);
  for (int node : nodes) {
    sep();
    const std::string name =
        node < cluster_nodes ? fmt::format("node {}", node) : fmt::format("server host {}", node - cluster_nodes);
    fmt::format_to(std::back_inserter(out),
                   "{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{},\"args\":{{\"name\":\"{}\"}}}},"
                   "{{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":{},\"args\":{{\"sort_index\":{}}}}}",
                   node, name, node, node);
  }
  for (const auto& [rank, stream] : threads) {
    sep();
    const RankProgram& r = plan.ranks[rank];
    fmt::format_to(std::back_inserter(out),
                   "{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":\"{} {} {}\"}}}},"
                   "{{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":{},\"tid\":{},\"args\":{{\"sort_index\":{}}}}}",
                   r.where.node, thread_id(rank, stream), r.role == Role::Worker ? "rank" : "server rank", rank,
                   stream_name(stream), r.where.node, thread_id(rank, stream), thread_id(rank, stream));
  }
  for (const auto& rec : records) {
    sep();
    const RankProgram& r = plan.ranks[rec.rank];
    const Op& op = r.ops[rec.op];
    fmt::format_to(std::back_inserter(out),
                   "{{\"name\":\"{}\",\"cat\":\"{}\",\"ph\":\"X\",\"ts\":{:.3f},\"dur\":{:.3f},\"pid\":{},\"tid\":{},"
                   "\"args\":{{\"rank\":{},\"iteration\":{},\"kind\":\"{}\",\"bytes\":{},\"flops\":{}}}}}",
                   escape(op.label), phase_name(op.phase), rec.start * 1e6, (rec.end - rec.start) * 1e6, r.where.node,
                   thread_id(rec.rank, op.stream), rec.rank, rec.iteration, op_kind_name(op.body), op_bytes(op.body),
                   op_flops(op.body));
  }
  fmt::format_to(std::back_inserter(out), "\n]}}\n");
  return fmt::to_string(out);
}

}  // namespace dtsim
