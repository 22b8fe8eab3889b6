// Enumerating the layout space dimension by dimension, each over the divisors it may take.
#include "models/parallel/layout_space.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include "models/parallel/layout.hpp"
#include "models/parallel/layout_rules.hpp"

namespace dtsim {
namespace {

// The values of one dimension: `fixed` alone when set, else the candidates up to `most` (0: all).
std::vector<int> choices(const std::vector<int>& candidates, int fixed, int most) {
  std::vector<int> out;
  for (int v : candidates) {
    if (fixed > 0 ? v == fixed : most <= 0 || v <= most) out.push_back(v);
  }
  return out;
}

}  // namespace

std::vector<int> divisors(int n) {
  std::vector<int> out;
  for (int k = 1; k <= n; ++k) {
    if (n % k == 0) out.push_back(k);
  }
  return out;
}

namespace {

// Ranks along a dimension (expert parallelism is carved out of data: d = e x d').
int extent(const HybridSpec& h, Dim d) {
  switch (d) {
    case Dim::Tensor: return h.tensor;
    case Dim::Context: return h.context;
    case Dim::Expert: return h.expert;
    case Dim::Data: return h.data / h.expert;
    case Dim::Pipeline: return h.pipeline;
  }
  return 1;
}

}  // namespace

std::string spread_rank_order(const HybridSpec& h) {
  std::string text;
  for (Dim d : parse_rank_order(h.rank_order)) {
    if (extent(h, d) > 1) text += std::string(text.empty() ? "" : "-") + std::string(dim_name(d));
  }
  return text;
}

std::vector<std::string> distinct_rank_orders(const HybridSpec& h, const std::string& base) {
  std::vector<Dim> spread, single;  // base's order: dimensions of several ranks, then the rest
  for (Dim d : parse_rank_order(base)) (extent(h, d) > 1 ? spread : single).push_back(d);
  // Permutations of the positions in base's order, so the first is base's own.
  std::vector<int> at(spread.size());
  std::iota(at.begin(), at.end(), 0);
  std::vector<std::string> out;
  do {
    std::string text;
    for (int i : at) text += std::string(dim_name(spread[static_cast<size_t>(i)])) + "-";
    for (Dim d : single) text += std::string(dim_name(d)) + "-";
    text.pop_back();
    out.push_back(std::move(text));
  } while (std::next_permutation(at.begin(), at.end()));
  return out;
}

long for_each_layout(const TransformerSpec& m, const LayoutLimits& limits,
                     const std::function<void(const HybridSpec&)>& visit) {
  long count = 0;
  const int kv = m.kv_heads > 0 ? m.kv_heads : m.heads;
  const int devices = limits.devices;
  const bool batch_searched = limits.max_tokens > 0;
  const double least = batch_searched ? std::max(1.0, std::ceil(limits.min_tokens / m.seq_len)) : 0;
  const double most = batch_searched ? std::floor(limits.max_tokens / m.seq_len) : 0;
  for (int t : choices(divisors(std::gcd(m.heads, kv)), limits.tensor, limits.max_tensor)) {
    for (int c : choices(divisors(m.seq_len), limits.context, std::max(1, limits.max_context))) {
      for (int p : choices(divisors(m.layers), limits.pipeline, limits.max_pipeline)) {
        if (devices % (t * c * p) != 0) continue;
        const int d = devices / (t * c * p);
        if (!batch_searched && limits.global_batch > 0 && limits.global_batch % d != 0) continue;
        const std::vector<int> experts = m.experts > 0 ? divisors(std::gcd(m.experts, d)) : std::vector<int>{1};
        // Micro-batches: divisors of each rank's share of the batch, or 1, 2, 4, ... without accumulation.
        std::vector<int> micro;
        if (!batch_searched && limits.global_batch > 0) {
          micro = divisors(limits.global_batch / d);
        } else {
          for (int b = 1; b <= limits.max_micro_batch; b *= 2) micro.push_back(b);
        }
        for (int e : choices(experts, limits.expert, 0)) {
          for (int b : choices(micro, limits.micro_batch, limits.max_micro_batch)) {
            int batch = limits.global_batch;
            if (batch_searched) {  // the most whole rounds of d x b sequences within the budget
              const double round = static_cast<double>(d) * b;
              const double rounds = std::floor(most / round);
              if (rounds < 1 || rounds * round < least || rounds * round > (1 << 30)) continue;
              batch = static_cast<int>(rounds * round);
            }
            // (schedule, model chunks): one stage has no schedule to choose.
            std::vector<std::pair<PipelineSchedule, int>> schedules;
            for (PipelineSchedule s : limits.schedules) {
              if (p == 1) {
                schedules = {{PipelineSchedule::OneFOneB, 1}};
                break;
              }
              if (s != PipelineSchedule::Interleaved) {
                schedules.emplace_back(s, 1);
                continue;
              }
              for (int v : choices(divisors(m.layers / p), 0, limits.max_virtual_stages)) {
                if (v >= 2) schedules.emplace_back(s, v);
              }
            }
            for (const auto& [schedule, v] : schedules) {
              for (Recompute r : limits.recomputes) {
                for (int z = 0; z <= (d > 1 ? 3 : 0); ++z) {
                  if (limits.zero >= 0 && z != limits.zero) continue;
                  for (int sp = 0; sp <= (t > 1 ? 1 : 0); ++sp) {
                    HybridSpec h;
                    h.tensor = t;
                    h.context = c;
                    h.pipeline = p;
                    h.data = d;
                    h.expert = e;
                    h.micro_batch = b;
                    h.global_batch = batch;
                    h.schedule = schedule;
                    h.virtual_stages = v;
                    h.recompute = r;
                    h.zero = z;
                    h.sequence_parallel = sp == 1;
                    if (layout_problem(m, h, devices)) continue;
                    if (!limits.rank_orders) {
                      h.rank_order = limits.rank_order;
                      ++count;
                      visit(h);
                      continue;
                    }
                    for (const std::string& order : distinct_rank_orders(h, limits.rank_order)) {
                      h.rank_order = order;
                      ++count;
                      visit(h);
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  return count;
}

}  // namespace dtsim
