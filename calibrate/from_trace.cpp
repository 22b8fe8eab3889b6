// `dtsim calibrate --from-trace` (from_trace.hpp).
#include "calibrate/from_trace.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <ostream>

#include <fmt/format.h>

#include "calibrate/bench_util.hpp"
#include "calibrate/calibrate.hpp"
#include "calibrate/fit.hpp"
#include "calibrate/fit_checks.hpp"
#include "core/base/atomic_file.hpp"
#include "core/base/dtype.hpp"
#include "core/base/error.hpp"
#include "core/base/units.hpp"
#include "core/calibration/profile_writer.hpp"
#include "models/zoo/device.hpp"

namespace dtsim::calib {
namespace {

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return c == '-' ? ' ' : std::toupper(c); });
  return s;
}

// One sample per distinct x: the mean time of the units at it. A step's time is the sum of its ops',
// and the mean keeps that sum: the shapes of one FLOP count (a layer's forward, input-gradient and
// weight-gradient GEMMs) run at different efficiencies, and a median picked one of them (on
// bench/validation/torch_ddp's rows the median's curves predicted the steps 13 to 21 % short, the
// mean's within 5 %).
std::vector<Sample> per_size(const std::map<double, std::vector<double>>& times) {
  std::vector<Sample> out;
  for (const auto& [x, t] : times) {
    double sum = 0;
    for (double v : t) sum += v;
    out.push_back(Sample{x, sum / static_cast<double>(t.size())});
  }
  return out;
}

}  // namespace

FitCeilings device_ceilings(const std::string& device) {
  FitCeilings ceilings;
  if (device.empty()) return ceilings;
  const DeviceSpec d = load_device(device);
  for (const Dtype t : {Dtype::Fp32, Dtype::Tf32, Dtype::Fp16, Dtype::Bf16})
    ceilings.compute_peak[std::string(dtype_name(t))] = d.peak(t);
  ceilings.memory_peak = d.mem_bandwidth;
  ceilings.memory_past_bytes = d.kernels.l2;
  ceilings.memory_source = fmt::format("the zoo's {} memory bandwidth, past its {} of L2", device,
                                       d.kernels.l2 > 0 ? format_bytes(d.kernels.l2) : std::string("unknown size"));
  return ceilings;
}

std::string zoo_device_of(const std::string& cuda_name) {
  const std::string name = upper(cuda_name);
  std::string found;
  for (const std::string& key : device_names()) {
    const DeviceSpec d = load_device(key);
    const std::string desc = upper(d.description);
    // The model: the description's first word that is not a maker's or a line's (P100, V100, A100, H100, MI300X).
    std::string model;
    for (size_t at = 0; at < desc.size();) {
      const size_t end = std::min(desc.find(' ', at), desc.size());
      const std::string word = desc.substr(at, end - at);
      if (!word.empty() && word != "NVIDIA" && word != "TESLA" && word != "AMD" && word != "INSTINCT") {
        model = word;
        break;
      }
      at = end + 1;
    }
    if (model.empty() || name.find(model) == std::string::npos) continue;
    // Its memory ("80GB") in the name too: this one; else the first of the model.
    bool memory = false;
    for (size_t at = desc.find("GB"); at != std::string::npos && !memory; at = desc.find("GB", at + 2)) {
      size_t from = at;
      while (from > 0 && std::isdigit(static_cast<unsigned char>(desc[from - 1]))) --from;
      memory = from < at && name.find(desc.substr(from, at + 2 - from)) != std::string::npos;
    }
    if (memory) return key;
    if (found.empty()) found = key;
  }
  return found;
}

std::vector<ClassShare> class_shares(const std::vector<TorchTrace>& traces) {
  std::vector<ClassShare> out;
  for (const TraceClassTraits& t : trace_classes()) out.push_back(ClassShare{t.cls, 0, 0});
  for (const TorchTrace& trace : traces) {
    for (const TraceWork& w : trace.work) {
      ClassShare& s = out.at(static_cast<size_t>(w.cls));
      ++s.units;
      s.seconds += w.seconds;
    }
  }
  return out;
}

CalibrationProfile profile_from_traces(const std::vector<TorchTrace>& traces, const std::string& device) {
  if (traces.empty()) throw InputError("--from-trace: name at least one trace");
  const TorchTrace& first = traces.front();
  for (const TorchTrace& t : traces) {
    if (t.gpu != first.gpu || t.device != first.device) {
      throw RuntimeError(fmt::format("--from-trace: {} ran on {} and {} on {}: one profile describes one device",
                                     first.path, first.gpu ? first.device : "cpu", t.path, t.gpu ? t.device : "cpu"));
    }
  }
  std::map<std::string, std::map<double, std::vector<double>>> gemm, attention;
  std::map<double, std::vector<double>> memory;
  std::map<std::pair<std::string, int>, std::map<double, std::vector<double>>> collectives;  // (kind, ranks) -> S
  for (const TorchTrace& t : traces) {
    for (const TraceWork& w : t.work) {
      if (!(w.seconds > 0) || !std::isfinite(w.seconds)) continue;  // a span without a duration says nothing
      const bool flops = w.flops > 0 && std::isfinite(w.flops), bytes = w.bytes > 0 && std::isfinite(w.bytes);
      if (w.cls == TraceClass::Gemm && flops && !w.dtype.empty()) gemm[w.dtype][w.flops].push_back(w.seconds);
      if (w.cls == TraceClass::Attention && flops && !w.dtype.empty()) {
        attention[w.dtype][w.flops].push_back(w.seconds);
      }
      if (w.cls == TraceClass::MemoryBound && bytes) memory[w.bytes].push_back(w.seconds);
      if (w.cls == TraceClass::Collective && w.collective && bytes && w.ranks > 1) {
        collectives[{std::string(collective_name(*w.collective)), w.ranks}][w.bytes].push_back(w.seconds);
      }
    }
  }
  if (gemm.empty()) {
    throw RuntimeError(
        "--from-trace: no GEMM with its shapes in the trace: profile with torch.profiler.profile(record_shapes=True)");
  }
  CalibrationProfile p;
  std::string names;
  for (const TorchTrace& t : traces)
    names += (names.empty() ? "" : ", ") + std::filesystem::path(t.path).filename().string();
  MachineInfo m = this_machine(first.gpu ? Backend::Cuda : Backend::Cpu, 1, 1, false);
  m.hostname = "trace";
  m.cpu_model = "unknown (fitted to traces)";
  m.cores = 1;
  m.device = first.device;
  m.from_trace = names;
  p.machine = m;
  for (const auto& [dtype, times] : gemm) {
    std::vector<Sample> s = per_size(times);
    if (s.size() >= 2) p.compute[dtype] = fit_curve(std::move(s), PiecewiseOptions{3, 3});
  }
  if (p.compute.empty()) {
    throw RuntimeError(
        "--from-trace: the trace's GEMMs have fewer than 2 distinct sizes in every dtype: no rate to fit");
  }
  // Fused attention per dtype: a trace of one model gives two sizes at least (forward and backward).
  for (const auto& [dtype, times] : attention) {
    std::vector<Sample> s = per_size(times);
    if (s.size() >= 2) p.attention[dtype] = fit_curve(std::move(s), PiecewiseOptions{3, 3});
  }
  if (memory.size() >= 2) p.memory["sgd_step"] = fit_curve(per_size(memory), PiecewiseOptions{3, 3});
  // The collectives of traces of several ranks: per kind, group and S, the mean time of its units (an NCCL
  // kernel's, its wait for the slowest peer and its share of the SMs beside compute included, as a step has them),
  // reported like nccl-tests (as the ring's closed form predicts them: NCCL's choice inside a node).
  for (const auto& [group, times] : collectives) {
    const auto& [kind, ranks] = group;
    for (const Sample& s : per_size(times)) {
      const double algbw = s.x / s.seconds;
      p.collectives.push_back(
          CollectiveSample{kind, "ring", ranks, s.x, s.seconds, algbw, algbw * busbw_factor(kind, ranks), 0});
    }
  }
  // Their AllReduces fit the same_host link as calibrate's do: the traced ranks are taken to share a node (a
  // trace of one node, as --from-trace is for; across nodes it is the slower path that the rounds measure).
  if (std::vector<Sample> rounds = allreduce_rounds(p.collectives); rounds.size() >= 3) {
    p.links[kSameHost] = fit_curve(std::move(rounds), PiecewiseOptions{4, 3});
  }

  check_fits(p, device_ceilings(device), false);
  predict_collectives(p);  // with the link, where it passed its checks
  if (p.compute.empty()) {
    std::string why;
    for (const FitCheck& c : p.fit_checks) {
      if (c.group == "compute") why += fmt::format("{}{}: {}", why.empty() ? "" : "; ", c.name, c.reason);
    }
    throw RuntimeError(fmt::format("--from-trace: every GEMM curve was refused ({}); no profile written", why));
  }
  const auto sgd = p.memory.find("sgd_step");
  p.memory_bandwidth = sgd != p.memory.end() ? 1.0 / sgd->second.fit.segments.back().per_unit : 0.0;
  // The traced ops were the framework's own kernels, memory-bound ones among them: a scenario's op is
  // bounded by its memory traffic too, on the memory curve the traces gave (when one passed its checks).
  p.memory_roofline = sgd != p.memory.end();
  return p;
}

int calibrate_from_trace(const FromTraceOptions& o, std::ostream& out) {
  std::vector<TorchTrace> traces;
  for (const std::string& path : o.traces) traces.push_back(read_torch_trace(path));
  std::string device = o.device;
  if (device.empty() && traces.front().gpu) device = zoo_device_of(traces.front().device);
  if (!device.empty()) load_device(device);  // a bad --device: InputError naming the valid ones
  const CalibrationProfile p = profile_from_traces(traces, device);

  double busy = 0;
  for (const TorchTrace& t : traces) {
    busy += t.busy_seconds;
    out << fmt::format("{}: {}, {} units of work, {:.3f} ms busy{}\n", t.path,
                       t.gpu ? "GPU kernels on " + (t.device.empty() ? std::string("an unnamed device") : t.device)
                             : std::string("CPU ops"),
                       t.work.size(), t.busy_seconds * 1e3,
                       t.world_size > 1 ? fmt::format(" (rank of {})", t.world_size) : "");
  }
  out << fmt::format("peaks bounding the fits: {}\n\n",
                     device.empty() ? std::string("none (no zoo device named: --device)") : "the zoo's " + device);
  out << fmt::format("  {:<14} {:>8} {:>12} {:>8}  {}\n", "class", "units", "time (ms)", "share", "in the profile");
  double classified = 0;
  for (const ClassShare& s : class_shares(traces)) {
    if (s.cls != TraceClass::Unclassified) classified += s.seconds;
    const char* use = s.cls == TraceClass::Gemm                                   ? "compute.<dtype>"
                      : s.cls == TraceClass::Attention && !p.attention.empty()    ? "attention.<dtype>"
                      : s.cls == TraceClass::MemoryBound                          ? "memory.sgd_step"
                      : s.cls == TraceClass::Collective && p.link(kSameHost)      ? "links.same_host, collectives"
                      : s.cls == TraceClass::Collective && !p.collectives.empty() ? "collectives"
                                                                                  : "reported only";
    out << fmt::format("  {:<14} {:>8} {:>12.3f} {:>7.1f}%  {}\n", trace_class_traits(s.cls).name, s.units,
                       s.seconds * 1e3, busy > 0 ? 100 * s.seconds / busy : 0.0, use);
  }
  out << fmt::format("  {:<14} {:>8} {:>12.3f} {:>7.1f}%  time no unit of a class covers\n", "outside them", "",
                     std::max(0.0, busy - classified) * 1e3,
                     busy > 0 ? 100 * std::max(0.0, busy - classified) / busy : 0.0);

  int unsized = 0;  // attention units without FLOPs: no shapes, a variable-length batch, or no is_causal recorded
  double unsized_s = 0;
  for (const TorchTrace& t : traces) {
    for (const TraceWork& w : t.work) {
      if (w.cls != TraceClass::Attention || w.flops > 0) continue;
      ++unsized;
      unsized_s += w.seconds;
    }
  }
  if (unsized > 0) {
    out << fmt::format(
        "  {} attention units ({:.3f} ms) fit nothing: their shapes or causality are not in the trace (torch.profiler "
        "with record_shapes=True records both from PyTorch 2.1 on; a variable-length batch has no fixed shape)\n",
        unsized, unsized_s * 1e3);
  }

  std::map<std::string, std::pair<int, double>> unclassified;
  for (const TorchTrace& t : traces) {
    for (const TraceWork& w : t.work) {
      if (w.cls != TraceClass::Unclassified) continue;
      auto& [n, s] = unclassified[w.name.substr(0, 100)];
      ++n;
      s += w.seconds;
    }
  }
  if (!unclassified.empty()) {
    std::vector<std::pair<std::string, std::pair<int, double>>> rows(unclassified.begin(), unclassified.end());
    std::sort(rows.begin(), rows.end(), [](const auto& l, const auto& r) { return l.second.second > r.second.second; });
    out << fmt::format("\nnot classified ({} names; the 10 that held the most time):\n", rows.size());
    for (size_t i = 0; i < rows.size() && i < 10; ++i) {
      out << fmt::format("  {:>8} x {:>10.3f} ms  {}\n", rows[i].second.first, rows[i].second.second * 1e3,
                         rows[i].first);
    }
  }
  out << "\n";
  print_profile(out, p);
  write_file_atomic(o.out, profile_yaml(p));
  out << fmt::format("\nwrote {}\n", o.out);
  return 0;
}

}  // namespace dtsim::calib
