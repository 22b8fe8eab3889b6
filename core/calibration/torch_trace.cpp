// Reading torch.profiler's Chrome traces (torch_trace.hpp).
#include "core/calibration/torch_trace.hpp"

#if DTSIM_WITH_ZLIB
#include <zlib.h>
#endif

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string_view>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/base/error.hpp"
#include "core/calibration/trace_op_args.hpp"

namespace dtsim {
namespace {

using Json = nlohmann::json;

// The file's bytes, inflated when it is gzip (zlib reads plain files through as they are).
std::string slurp(const std::string& path) {
  if (!std::filesystem::is_regular_file(path)) {
    throw InputError(SourceLocation{path, 0, 0}, "--from-trace: no such file (a trace torch.profiler exported)");
  }
#if DTSIM_WITH_ZLIB
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw InputError(SourceLocation{path, 0, 0}, "--from-trace: cannot be opened");
  std::string text;
  char buf[1 << 16];
  int n = 0;
  while ((n = gzread(f, buf, sizeof(buf))) > 0) text.append(buf, static_cast<size_t>(n));
  const bool failed = n < 0;
  gzclose(f);
  if (failed) throw InputError(SourceLocation{path, 0, 0}, "--from-trace: a damaged gzip file");
  return text;
#else
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (text.str().rfind("\x1f\x8b", 0) == 0) {
    throw InputError(SourceLocation{path, 0, 0},
                     "--from-trace: a gzip file, and this dtsim was built without zlib (apt-get install zlib1g-dev, "
                     "rebuild; or gunzip it)");
  }
  return text.str();
#endif
}

// A collective's S (traced_collective): its first input tensor's bytes, times the ranks for an all-gather.
double collective_bytes(CollectiveKind kind, const OpArgs& a, int ranks) {
  if (a.dims.empty() || a.types.empty()) return 0;
  const double input = numel(a.dims.front()) * element_bytes(a.types.front());
  return kind == CollectiveKind::AllGather ? input * ranks : input;
}

// Bytes of an element of an NCCL kernel's "dtype" (c10's ScalarType names); 0 for another.
double scalar_type_bytes(std::string_view t) {
  if (t == "Double" || t == "Long") return 8;
  if (t == "Float" || t == "Int") return 4;
  if (t == "Half" || t == "BFloat16" || t == "Short") return 2;
  if (t == "Byte" || t == "Char" || t == "Bool" || t.starts_with("Float8")) return 1;
  return 0;
}

// The dtype of a GEMM's first matrix operand: Input type 0 for mm and bmm, 1 for addmm and baddbmm.
std::string gemm_dtype(std::string_view op, const OpArgs& a) {
  const size_t at = op == "aten::addmm" || op == "aten::baddbmm" ? 1 : 0;
  return at < a.types.size() ? dtype_of(a.types[at]) : "";
}

// A key's number; 0 for another type, a missing key or a number past a double's range (which JSON
// reads as infinite), so that no span sorts or sums as a NaN.
double number(const Json& e, const char* key) {
  const auto it = e.find(key);
  const double v = it != e.end() && it->is_number() ? it->get<double>() : 0.0;
  return std::isfinite(v) ? v : 0.0;
}

// An NCCL kernel's collective from its own args, where Kineto wrote them (PyTorch 2.1 and later): the call's kind,
// its group ("Group size", else the world's) and S (the gathered "Out msg nelems" of an all-gather, else "In msg
// nelems", times the dtype's bytes). False when the kernel carries no "Collective name".
bool kernel_collective(const Json& kernel, int world_size, TraceWork& w) {
  const auto args = kernel.find("args");
  if (args == kernel.end() || !args->is_object()) return false;
  const auto name = args->find("Collective name");
  if (name == args->end() || !name->is_string()) return false;
  w.collective = collective_call(name->get<std::string>());
  const double group = number(*args, "Group size");
  w.ranks = group >= 1 ? static_cast<int>(std::min(group, 1e9)) : world_size;
  const auto type = args->find("dtype");
  const double element = type != args->end() && type->is_string() ? scalar_type_bytes(type->get<std::string>()) : 0;
  if (w.collective) {
    const bool gathered = *w.collective == CollectiveKind::AllGather;
    w.bytes = number(*args, gathered ? "Out msg nelems" : "In msg nelems") * element;
  }
  return true;
}

// The thread an event ran on: pid and tid as Kineto writes them (numbers or strings).
std::string thread_of(const Json& e) {
  const auto str = [&](const char* k) {
    const auto it = e.find(k);
    return it == e.end() ? std::string() : it->is_string() ? it->get<std::string>() : it->dump();
  };
  return str("pid") + "/" + str("tid");
}

struct Span {
  double start = 0, end = 0;
  int event = 0;    // index into the events
  bool op = false;  // a cpu_op (else a cuda_runtime launch)
  int parent = -1;  // the innermost cpu_op around it (index into the events)
};

// Per thread, each span's innermost enclosing cpu_op, by a stack sweep over spans sorted by start
// (an op before a launch that starts with it, a longer op before a shorter one).
void nest(std::vector<Span>& spans) {
  std::sort(spans.begin(), spans.end(), [](const Span& l, const Span& r) {
    return std::tie(l.start, r.end, r.op) < std::tie(r.start, l.end, l.op);
  });
  std::vector<const Span*> open;
  for (Span& s : spans) {
    while (!open.empty() && open.back()->end < s.end) open.pop_back();
    if (!open.empty()) s.parent = open.back()->event;
    if (s.op) open.push_back(&s);
  }
}

}  // namespace

std::optional<CollectiveKind> traced_collective(std::string_view op) {
  const size_t colon = op.find(':');
  if (colon == std::string_view::npos || (op.substr(0, colon) != "nccl" && op.substr(0, colon) != "gloo")) {
    return std::nullopt;
  }
  return collective_call(op.substr(colon + 1));
}

std::optional<CollectiveKind> collective_call(std::string_view call) {
  while (!call.empty() && call.front() == '_') call.remove_prefix(1);
  // Longest names first: "reduce_scatter" before "reduce".
  constexpr std::array<std::pair<std::string_view, CollectiveKind>, 9> kCalls{{
      {"all_reduce", CollectiveKind::AllReduce},
      {"allreduce", CollectiveKind::AllReduce},
      {"reduce_scatter", CollectiveKind::ReduceScatter},
      {"all_gather", CollectiveKind::AllGather},
      {"allgather", CollectiveKind::AllGather},
      {"all_to_all", CollectiveKind::AllToAll},
      {"alltoall", CollectiveKind::AllToAll},
      {"broadcast", CollectiveKind::Broadcast},
      {"reduce", CollectiveKind::Reduce},
  }};
  for (const auto& [name, kind] : kCalls) {
    if (call.starts_with(name)) return kind;
  }
  return std::nullopt;
}

double gemm_flops(std::string_view op, const std::vector<std::vector<double>>& dims) {
  const auto two = [&](size_t a, size_t b) -> double {  // [M, K] x [K, N], or batched [B, M, K] x [B, K, N]
    if (dims.size() <= b) return 0;
    const auto& x = dims[a];
    const auto& y = dims[b];
    if (x.size() == 2 && y.size() == 2 && x[1] == y[0]) return 2 * x[0] * x[1] * y[1];
    if (x.size() == 3 && y.size() == 3 && x[0] == y[0] && x[2] == y[1]) return 2 * x[0] * x[1] * x[2] * y[2];
    return 0;
  };
  if (op == "aten::mm" || op == "aten::bmm") return two(0, 1);
  if (op == "aten::addmm" || op == "aten::baddbmm") return two(1, 2);
  return 0;
}

namespace {

// A fused attention op's arguments as ATen declares it (native_functions.yaml): where query, key and
// value are, their layout, and which argument says whether it is causal.
struct AttentionOp {
  std::string_view name;
  bool heads_first;  // [batch, heads, seq, dim] (the sdpa ops); else [batch, seq, heads, dim]
  bool backward;
  size_t query;      // key and value follow it
  size_t causal_at;  // bool is_causal; or, with mask_type, xformers' int custom_mask_type (0: none)
  bool mask_type;
};

constexpr std::array<AttentionOp, 15> kAttentionOps{{
    {"aten::scaled_dot_product_attention", true, false, 0, 5, false},
    {"aten::_scaled_dot_product_flash_attention", true, false, 0, 4, false},
    {"aten::_scaled_dot_product_flash_attention_backward", true, true, 1, 11, false},
    {"aten::_scaled_dot_product_flash_attention_for_cpu", true, false, 0, 4, false},
    {"aten::_scaled_dot_product_flash_attention_for_cpu_backward", true, true, 1, 7, false},
    {"aten::_scaled_dot_product_efficient_attention", true, false, 0, 6, false},
    {"aten::_scaled_dot_product_efficient_attention_backward", true, true, 1, 11, false},
    {"aten::_scaled_dot_product_cudnn_attention", true, false, 0, 6, false},
    {"aten::_scaled_dot_product_cudnn_attention_backward", true, true, 1, 14, false},
    // What the cudnn ops above call from PyTorch 2.5 on: the innermost op that launches cuDNN's kernels.
    {"aten::_cudnn_attention_forward", true, false, 0, 10, false},
    {"aten::_cudnn_attention_backward", true, true, 1, 14, false},
    {"aten::_flash_attention_forward", false, false, 0, 8, false},
    {"aten::_flash_attention_backward", false, true, 1, 11, false},
    {"aten::_efficient_attention_forward", false, false, 0, 9, true},
    {"aten::_efficient_attention_backward", false, true, 1, 14, true},
}};

// Whether the op was causal, from its concrete inputs; nullopt when they do not say (not recorded, or
// a schema of another PyTorch whose argument there is no bool).
std::optional<bool> causal(const AttentionOp& op, const std::vector<std::string>& concrete) {
  if (op.causal_at >= concrete.size()) return std::nullopt;
  const std::string& v = concrete[op.causal_at];
  if (op.mask_type) {
    if (v.empty() || !std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c); }))
      return std::nullopt;
    return v != "0";
  }
  if (v == "True" || v == "true") return true;
  if (v == "False" || v == "false") return false;
  return std::nullopt;
}

const AttentionOp* attention_op(std::string_view name) {
  const auto op =
      std::find_if(kAttentionOps.begin(), kAttentionOps.end(), [&](const AttentionOp& a) { return a.name == name; });
  return op == kAttentionOps.end() ? nullptr : &*op;
}

// The dtype of an attention op's query; "" for an op the table does not know or a type not recorded.
std::string attention_dtype(std::string_view name, const OpArgs& a) {
  const AttentionOp* op = attention_op(name);
  return op && op->query < a.types.size() ? dtype_of(a.types[op->query]) : "";
}

}  // namespace

std::vector<std::string_view> attention_flop_ops() {
  std::vector<std::string_view> out;
  for (const AttentionOp& op : kAttentionOps) out.push_back(op.name);
  return out;
}

double attention_flops(std::string_view name, const std::vector<std::vector<double>>& dims,
                       const std::vector<std::string>& concrete) {
  const AttentionOp* op = attention_op(name);
  if (!op || dims.size() < op->query + 3) return 0;
  const std::vector<double>& q = dims[op->query];
  const std::vector<double>& k = dims[op->query + 1];
  const std::vector<double>& v = dims[op->query + 2];
  if (q.size() != 4 || k.size() != 4 || v.size() != 4) return 0;
  const std::optional<bool> is_causal = causal(*op, concrete);
  if (!is_causal) return 0;
  const size_t seq = op->heads_first ? 2 : 1;
  const double pairs = q[0] * q[1] * q[2] * k[seq] * (*is_causal ? 0.5 : 1.0);  // b heads s_q s_k
  const double d_qk = q[3], d_v = v[3];
  return 2 * pairs * (op->backward ? 3 * d_qk + 2 * d_v : d_qk + d_v);
}

TorchTrace read_torch_trace(const std::string& path) { return parse_torch_trace(slurp(path), path); }

TorchTrace parse_torch_trace(std::string_view text, const std::string& path) {
  Json root;
  try {
    root = Json::parse(text);
  } catch (const Json::exception& e) {  // a parse error, or a number past a double's range
    throw InputError(SourceLocation{path, 0, 0}, fmt::format("--from-trace: not JSON that can be read ({})", e.what()));
  }
  const Json* events = root.is_array() ? &root : nullptr;
  if (root.is_object() && root.contains("traceEvents") && root["traceEvents"].is_array()) events = &root["traceEvents"];
  if (!events) {
    throw InputError(SourceLocation{path, 0, 0},
                     "--from-trace: not a Chrome trace (valid: {\"traceEvents\": [...]} or a list of events, as "
                     "torch.profiler's export_chrome_trace writes)");
  }
  TorchTrace t;
  t.path = path;
  if (root.is_object()) {
    if (const auto d = root.find("deviceProperties");
        d != root.end() && d->is_array() && !d->empty() && (*d)[0].is_object() && (*d)[0].contains("name")) {
      t.device = (*d)[0]["name"].is_string() ? (*d)[0]["name"].get<std::string>() : "";
    }
    if (const auto d = root.find("distributedInfo"); d != root.end() && d->is_object()) {
      // Clamped before the cast: a number past an int's range is a mistake, not undefined behaviour.
      t.world_size = static_cast<int>(std::clamp(number(*d, "world_size"), 1.0, 1e9));
    }
  }

  // Kineto marks ops "cpu_op"; PyTorch's exporter without Kineto writes no category: every complete
  // event of a trace without GPU kernels is then an op.
  const auto cat = [](const Json& e) {
    const auto it = e.find("cat");
    return it != e.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  const auto complete = [](const Json& e) {
    const auto ph = e.find("ph");
    return e.is_object() && ph != e.end() && ph->is_string() && ph->get<std::string>() == "X" && e.contains("name") &&
           e["name"].is_string();
  };
  for (const Json& e : *events) {
    if (complete(e) && cat(e) == "kernel") t.gpu = true;
  }
  std::map<std::string, std::vector<Span>> threads;
  std::map<double, int> launches;  // correlation id -> its cuda_runtime event
  for (int i = 0; i < static_cast<int>(events->size()); ++i) {
    const Json& e = (*events)[static_cast<size_t>(i)];
    if (!complete(e)) continue;
    const std::string c = cat(e);
    const bool op = c == "cpu_op" || c == "user_annotation" || (!t.gpu && c.empty());
    const bool launch = c == "cuda_runtime" || c == "cuda_driver";
    if (!op && !launch) continue;
    const double ts = number(e, "ts"), dur = number(e, "dur");
    threads[thread_of(e)].push_back(Span{ts, ts + dur, i, op, -1});
    if (launch && e.contains("args") && e["args"].is_object()) launches[number(e["args"], "correlation")] = i;
  }
  std::map<int, int> parent;  // event -> innermost enclosing cpu_op
  for (auto& [thread, spans] : threads) {
    nest(spans);
    for (const Span& s : spans) parent[s.event] = s.parent;
    if (!t.gpu) {  // busy time: the union of the thread's op spans
      double covered_to = -1e300;
      for (const Span& s : spans) {
        if (!s.op) continue;
        const double from = std::max(s.start, covered_to);
        if (s.end > from) t.busy_seconds += (s.end - from) * 1e-6;
        covered_to = std::max(covered_to, s.end);
      }
    }
  }
  const auto name_of = [&](int i) { return (*events)[static_cast<size_t>(i)]["name"].get<std::string>(); };

  if (!t.gpu) {
    // Each op of a class that no op of a class encloses; and each op without ops inside it that no op
    // of a class encloses, as unclassified (its time is its own).
    std::map<int, bool> has_child;
    for (const auto& [event, p] : parent) {
      if (p >= 0) has_child[p] = true;
    }
    // Whether an op or one around it is of a class, in one pass: nest() sorted each thread's spans by
    // start, so an op's parent comes before it (a walk up every chain was quadratic in the depth).
    std::map<int, bool> covered;
    for (const auto& [thread, spans] : threads) {
      for (const Span& s : spans) {
        if (!s.op) continue;
        const std::string name = name_of(s.event);
        const TraceClass cls = classify_op(name);
        const bool inside = s.parent >= 0 && covered[s.parent];
        covered[s.event] = inside || cls != TraceClass::Unclassified;
        if (inside || (cls == TraceClass::Unclassified && has_child[s.event])) continue;
        const OpArgs a = op_args((*events)[static_cast<size_t>(s.event)]);
        TraceWork w{name, name, cls, "", 0, 0, (s.end - s.start) * 1e-6, std::nullopt, 0};
        if (cls == TraceClass::Gemm) {
          w.flops = gemm_flops(name, a.dims);
          w.dtype = gemm_dtype(name, a);
          if (w.dtype.empty() && a.types.empty()) w.dtype = "fp32";  // no types recorded: the CPU runs fp32
        } else if (cls == TraceClass::Attention) {
          w.flops = attention_flops(name, a.dims, a.concrete);
          w.dtype = attention_dtype(name, a);
          if (w.dtype.empty() && a.types.empty()) w.dtype = "fp32";  // no types recorded: the CPU runs fp32
        } else if (cls == TraceClass::MemoryBound) {
          w.bytes = memory_bytes(name, a);
        } else if (cls == TraceClass::Collective) {
          w.collective = traced_collective(name);
          w.ranks = t.world_size;
          if (w.collective) w.bytes = collective_bytes(*w.collective, a, t.world_size);
        }
        t.work.push_back(std::move(w));
      }
    }
  } else {
    std::map<std::pair<int, TraceClass>, size_t> unit_of;  // (launching op, class) -> its unit in t.work
    for (const Json& e : *events) {
      if (!complete(e)) continue;
      const std::string c = cat(e);
      const double seconds = number(e, "dur") * 1e-6;
      if (c == "gpu_memcpy" || c == "gpu_memset") {
        t.busy_seconds += seconds;
        t.work.push_back(
            TraceWork{e["name"].get<std::string>(), "", TraceClass::Copy, "", 0, 0, seconds, std::nullopt, 0});
        continue;
      }
      if (c != "kernel") continue;
      t.busy_seconds += seconds;
      int op = -1;
      if (e.contains("args") && e["args"].is_object()) {
        const auto l = launches.find(number(e["args"], "correlation"));
        if (l != launches.end()) op = parent[l->second];
      }
      const std::string kernel = e["name"].get<std::string>();
      const std::string op_name = op >= 0 ? name_of(op) : "";
      const TraceClass cls = classify_kernel(kernel, op_name);
      const OpArgs a = op >= 0 ? op_args((*events)[static_cast<size_t>(op)]) : OpArgs{};
      if (op >= 0) {  // an op's kernels of one class are one unit: its FLOPs or bytes over their time
        const auto [unit, fresh] = unit_of.try_emplace({op, cls}, t.work.size());
        if (!fresh) {
          TraceWork& w = t.work[unit->second];
          w.seconds += seconds;
          if (w.dtype == "fp32" && tf32_kernel(kernel)) w.dtype = "tf32";  // after a bias kernel, say
          continue;
        }
      }
      TraceWork w{kernel, op_name, cls, "", 0, 0, seconds, std::nullopt, 0};
      if (cls == TraceClass::Gemm) {
        w.flops = gemm_flops(op_name, a.dims);
        w.dtype = gemm_dtype(op_name, a);
        if (w.dtype == "fp32" && tf32_kernel(kernel)) w.dtype = "tf32";
      } else if (cls == TraceClass::Attention) {
        w.flops = attention_flops(op_name, a.dims, a.concrete);
        w.dtype = attention_dtype(op_name, a);
      } else if (cls == TraceClass::MemoryBound) {
        w.bytes = memory_bytes(op_name, a);
      } else if (cls == TraceClass::Collective && !kernel_collective(e, t.world_size, w)) {
        w.collective = traced_collective(op_name);
        w.ranks = t.world_size;
        if (w.collective) w.bytes = collective_bytes(*w.collective, a, t.world_size);
      }
      t.work.push_back(std::move(w));
    }
  }
  if (t.busy_seconds <= 0) {
    throw InputError(SourceLocation{path, 0, 0},
                     "--from-trace: no GPU kernel and no CPU op with a duration: export the trace from a "
                     "torch.profiler run of a few training steps");
  }
  return t;
}

}  // namespace dtsim
