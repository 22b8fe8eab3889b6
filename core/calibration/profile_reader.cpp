// Reading calibration profiles (YAML). A bad profile is refused with one line:
//   profile.yaml:7:3: error: fitted.links.same_host.0.bandwidth: must be a positive number of bytes/s (got -3)
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include <fmt/format.h>

#include "core/base/available_memory.hpp"
#include "core/base/error.hpp"
#include "core/calibration/profile_reader.hpp"

namespace dtsim {
namespace {

constexpr const char* kFormat = "dtsim-calibration/1";

class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const YAML::Node& at, const std::string& key, const std::string& what) const {
    const YAML::Mark m = at.Mark();
    const bool known = m.line >= 0 && !at.IsNull();
    throw InputError(SourceLocation{path_, known ? m.line + 1 : 0, known ? m.column + 1 : 0},
                     fmt::format("{}: {}", key, what));
  }

  YAML::Node child(const YAML::Node& parent, const std::string& name, const std::string& key,
                   YAML::NodeType::value type) const {
    const YAML::Node n = parent[name];
    if (!n) fail(parent, key, fmt::format("missing key '{}'", name));
    if (n.Type() != type) {
      fail(n, key,
           type == YAML::NodeType::Map        ? "must be a mapping"
           : type == YAML::NodeType::Sequence ? "must be a list"
                                              : "must be a value");
    }
    return n;
  }

  double number(const YAML::Node& parent, const std::string& name, const std::string& key, double min,
                bool strict) const {
    const YAML::Node n = child(parent, name, key, YAML::NodeType::Scalar);
    double v = 0;
    try {
      v = n.as<double>();
    } catch (const YAML::Exception&) {
      fail(n, key, fmt::format("'{}' is not a number", n.Scalar()));
    }
    if (!std::isfinite(v) || (strict ? v <= min : v < min)) {
      fail(n, key, fmt::format("must be a finite number {} {} (got {})", strict ? ">" : ">=", min, n.Scalar()));
    }
    return v;
  }

  // A whole number (a count of ranks, cores, points) from min up to 2^31 - 1.
  int count(const YAML::Node& parent, const std::string& name, const std::string& key, double min, bool strict) const {
    const double v = number(parent, name, key, min, strict);
    if (v > 2147483647.0 || v != std::floor(v)) {
      const YAML::Node n = child(parent, name, key, YAML::NodeType::Scalar);
      fail(n, key, fmt::format("must be a whole number up to 2147483647 (got {})", n.Scalar()));
    }
    return static_cast<int>(v);
  }

  std::string text(const YAML::Node& parent, const std::string& name, const std::string& key) const {
    return child(parent, name, key, YAML::NodeType::Scalar).Scalar();
  }

  // A list of segments {min: x, fixed: s, per_unit: s} (names per quantity), starting at 0 and increasing.
  PiecewiseLinear segments(const YAML::Node& list, const std::string& key, const char* min_name, const char* fixed_name,
                           const char* rate_name) const {
    if (!list.IsSequence() || list.size() == 0) fail(list, key, "must be a non-empty list of segments");
    PiecewiseLinear p;
    for (size_t i = 0; i < list.size(); ++i) {
      const YAML::Node s = list[i];
      const std::string k = fmt::format("{}.{}", key, i);
      if (!s.IsMap()) fail(s, k, fmt::format("must be a mapping {{{}, {}, {}}}", min_name, fixed_name, rate_name));
      Segment seg;
      seg.min_x = number(s, min_name, k + "." + min_name, 0, false);
      seg.fixed = number(s, fixed_name, k + "." + fixed_name, 0, false);
      seg.per_unit = 1.0 / number(s, rate_name, k + "." + rate_name, 0, true);
      if (i == 0 && seg.min_x != 0) fail(s[min_name], k + "." + min_name, "the first segment must start at 0");
      if (i > 0 && seg.min_x <= p.segments.back().min_x) {
        fail(s[min_name], k + "." + min_name, "segments must be listed by increasing size");
      }
      p.segments.push_back(seg);
    }
    return p;
  }

  std::vector<Sample> samples(const YAML::Node& list, const std::string& key) const {
    if (!list.IsSequence()) fail(list, key, "must be a list of [x, seconds] pairs");
    std::vector<Sample> out;
    for (size_t i = 0; i < list.size(); ++i) {
      const YAML::Node p = list[i];
      if (!p.IsSequence() || p.size() != 2) fail(p, fmt::format("{}.{}", key, i), "must be a pair [x, seconds]");
      try {
        out.push_back(Sample{p[0].as<double>(), p[1].as<double>()});
      } catch (const YAML::Exception&) {
        fail(p, fmt::format("{}.{}", key, i), "must hold two numbers [x, seconds]");
      }
    }
    return out;
  }

  Residuals residuals(const YAML::Node& parent, const std::string& name, const std::string& key) const {
    const YAML::Node r = child(parent, name, key, YAML::NodeType::Map);
    return Residuals{count(r, "points", key + ".points", 0, false),
                     number(r, "rms_relative", key + ".rms_relative", 0, false),
                     number(r, "max_relative", key + ".max_relative", 0, false)};
  }

 private:
  std::string path_;
};

void read_machine(const Reader& rd, const YAML::Node& root, MachineInfo& m) {
  const YAML::Node n = rd.child(root, "machine", "machine", YAML::NodeType::Map);
  m.hostname = rd.text(n, "hostname", "machine.hostname");
  m.cpu_model = rd.text(n, "cpu_model", "machine.cpu_model");
  m.cores = rd.count(n, "cores", "machine.cores", 0, true);
  const std::string backend = rd.text(n, "backend", "machine.backend");
  const std::optional<Backend> named = backend_named(backend);
  if (!named) {
    rd.fail(n["backend"], "machine.backend",
            fmt::format("'{}' is not a backend (valid: {})", backend, backend_names()));
  }
  m.backend = *named;
  if (n["device"]) m.device = rd.text(n, "device", "machine.device");
  m.when = rd.text(n, "when", "machine.when");
  m.ranks = rd.count(n, "ranks", "machine.ranks", 0, true);
  m.hosts = rd.count(n, "hosts", "machine.hosts", 0, true);
  if (n["dtsim_version"]) m.dtsim_version = n["dtsim_version"].as<std::string>();
  if (n["quick"]) m.quick = n["quick"].as<std::string>() == "true";
  if (n["from_trace"]) m.from_trace = rd.text(n, "from_trace", "machine.from_trace");
  if (n["llc_bytes"]) m.llc_bytes = rd.number(n, "llc_bytes", "machine.llc_bytes", 0, false);
}

// Fitted curves by name under `fitted.<what>`, their residuals under `residuals.<what>` and
// samples under `measurements.<raw>`.
void read_curves(const Reader& rd, const YAML::Node& root, const std::string& what, const std::string& raw,
                 const char* min_name, const char* fixed_name, const char* rate_name,
                 const std::set<std::string>& valid, std::map<std::string, FittedCurve>& out) {
  const YAML::Node fitted =
      rd.child(rd.child(root, "fitted", "fitted", YAML::NodeType::Map), what, "fitted." + what, YAML::NodeType::Map);
  const YAML::Node res = rd.child(root, "residuals", "residuals", YAML::NodeType::Map)[what];
  const YAML::Node meas = rd.child(root, "measurements", "measurements", YAML::NodeType::Map)[raw];
  for (const auto& kv : fitted) {
    const std::string name = kv.first.Scalar();
    const std::string key = fmt::format("fitted.{}.{}", what, name);
    if (!valid.empty() && !valid.count(name)) {
      std::string names;
      for (const auto& v : valid) names += (names.empty() ? "" : ", ") + v;
      rd.fail(kv.first, key, fmt::format("'{}' is not known here (valid: {})", name, names));
    }
    FittedCurve c;
    c.fit = rd.segments(kv.second, key, min_name, fixed_name, rate_name);
    if (res && res[name]) c.residuals = rd.residuals(res, name, fmt::format("residuals.{}.{}", what, name));
    if (meas && meas[name]) c.samples = rd.samples(meas[name], fmt::format("measurements.{}.{}", raw, name));
    out.emplace(name, std::move(c));
  }
}

void read_collectives(const Reader& rd, const YAML::Node& meas, std::vector<CollectiveSample>& out) {
  const YAML::Node list = meas["collectives"];
  if (!list) return;
  if (!list.IsSequence()) rd.fail(list, "measurements.collectives", "must be a list");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string k = fmt::format("measurements.collectives.{}", i);
    const YAML::Node c = list[i];
    if (!c.IsMap()) rd.fail(c, k, "must be a mapping");
    out.push_back(CollectiveSample{
        rd.text(c, "kind", k + ".kind"), rd.text(c, "algorithm", k + ".algorithm"),
        rd.count(c, "ranks", k + ".ranks", 1, false), rd.number(c, "bytes", k + ".bytes", 0, false),
        rd.number(c, "time_s", k + ".time_s", 0, false), rd.number(c, "algbw_Bps", k + ".algbw_Bps", 0, false),
        rd.number(c, "busbw_Bps", k + ".busbw_Bps", 0, false),
        rd.number(c, "predicted_s", k + ".predicted_s", 0, false)});
  }
}

// measurements.contention (ContentionSample), absent in profiles from before it and from one rank.
void read_contention(const Reader& rd, const YAML::Node& meas, CalibrationProfile& p) {
  const YAML::Node c = meas["contention"];
  if (!c) return;
  const std::string k = "measurements.contention";
  if (!c.IsMap()) rd.fail(c, k, "must be a mapping");
  ContentionSample s;
  s.gemm_flops = rd.number(c, "gemm_flops", k + ".gemm_flops", 0, true);
  s.collective_bytes = rd.number(c, "collective_bytes", k + ".collective_bytes", 0, true);
  const std::pair<const char*, std::vector<double>*> lists[] = {{"gemm_alone_s", &s.gemm_alone},
                                                                {"collective_alone_s", &s.collective_alone},
                                                                {"gemm_under_comm_s", &s.gemm_under_comm},
                                                                {"collective_under_gemm_s", &s.collective_under_gemm},
                                                                {"both_s", &s.both}};
  for (const auto& [name, v] : lists) {
    const std::string key = k + "." + name;
    const YAML::Node list = c[name];
    if (!list || !list.IsSequence() || list.size() == 0)
      rd.fail(list ? list : c, key, "must be a non-empty list of seconds");
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string at = fmt::format("{}.{}", key, i);
      if (!list[i].IsScalar()) rd.fail(list[i], at, "must be a number of seconds");
      double t = 0;
      try {
        t = list[i].as<double>();
      } catch (const YAML::Exception&) {
        rd.fail(list[i], at, fmt::format("'{}' is not a number", list[i].Scalar()));
      }
      if (!std::isfinite(t) || t <= 0) rd.fail(list[i], at, fmt::format("must be a finite time > 0 (got {})", t));
      v->push_back(t);
    }
  }
  p.contention = std::move(s);
}

// fit_checks: one {group, name, verdict, reason} per fitted curve (absent before the checks).
void read_fit_checks(const Reader& rd, const YAML::Node& root, std::vector<FitCheck>& out) {
  const YAML::Node list = root["fit_checks"];
  if (!list) return;
  if (!list.IsSequence()) rd.fail(list, "fit_checks", "must be a list of {group, name, verdict, reason}");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string k = fmt::format("fit_checks.{}", i);
    const YAML::Node c = list[i];
    if (!c.IsMap()) rd.fail(c, k, "must be a mapping {group, name, verdict, reason}");
    FitCheck check{rd.text(c, "group", k + ".group"), rd.text(c, "name", k + ".name"), FitVerdict::Ok,
                   rd.text(c, "reason", k + ".reason")};
    const std::string verdict = rd.text(c, "verdict", k + ".verdict");
    const std::optional<FitVerdict> v = parse_fit_verdict(verdict);
    if (!v)
      rd.fail(c["verdict"], k + ".verdict", fmt::format("'{}' is not a verdict (valid: ok, marked, refused)", verdict));
    check.verdict = *v;
    out.push_back(std::move(check));
  }
}

}  // namespace

std::shared_ptr<const CalibrationProfile> load_calibration_profile(const std::string& path,
                                                                   std::optional<Backend> expected_backend) {
  if (!std::filesystem::is_regular_file(path)) {
    throw InputError(SourceLocation{path, 0, 0},
                     fmt::format("calibration profile '{}' not found (make one with: mpirun -np 2 dtsim calibrate "
                                 "--backend cpu --out {})",
                                 path, path));
  }
  refuse_if_too_big_to_parse(path, "the calibration profile");
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    throw InputError(SourceLocation{path, e.mark.line + 1, e.mark.column + 1},
                     fmt::format("calibration profile is not valid YAML: {}", e.msg));
  }
  try {
    const Reader rd(path);
    if (!root.IsMap()) rd.fail(root, "format", "a calibration profile is a YAML mapping (from dtsim calibrate)");
    const std::string format = rd.text(root, "format", "format");
    if (format != kFormat)
      rd.fail(root["format"], "format", fmt::format("'{}' is not a known format (valid: {})", format, kFormat));

    auto p = std::make_shared<CalibrationProfile>();
    p->path = path;
    read_machine(rd, root, p->machine);
    if (expected_backend && p->machine.backend != *expected_backend) {
      rd.fail(root["machine"]["backend"], "machine.backend",
              fmt::format("the profile was measured with backend '{}' but '{}' was asked for (calibrate with: dtsim "
                          "calibrate --backend {})",
                          backend_name(p->machine.backend), backend_name(*expected_backend),
                          backend_name(*expected_backend)));
    }
    read_curves(rd, root, "links", "link_rounds", "min_bytes", "latency_s", "bandwidth_Bps",
                {kSameHost, kCrossHost, kSameHostP2p, in_cache_curve(kSameHost)}, p->links);
    // One rank (one GPU) measures no link: its profile calibrates compute, memory and kernels, and the
    // scenario's links stay.
    if (p->links.empty() && p->machine.ranks > 1) {
      rd.fail(root["fitted"]["links"], "fitted.links", "needs same_host or cross_host (measured by 2 or more ranks)");
    }
    // The dtypes a compute or attention curve is fitted for (a trace's GEMMs name tf32 apart from fp32).
    const std::set<std::string> dtypes{"fp32", "tf32", "fp16", "bf16"};
    read_curves(rd, root, "compute", "gemm", "min_flops", "overhead_s", "rate_flops", dtypes, p->compute);
    if (p->compute.empty()) {
      rd.fail(root["fitted"]["compute"], "fitted.compute", "needs a compute curve (fp32, tf32, fp16 or bf16)");
    }
    const YAML::Node fitted = root["fitted"];
    if (fitted["attention"]) {
      read_curves(rd, root, "attention", "attention", "min_flops", "overhead_s", "rate_flops", dtypes, p->attention);
    }
    if (fitted["compression"]) {
      std::set<std::string> kernels;
      for (std::string_view k : compression_kernels()) {
        kernels.emplace(k);
        kernels.insert(decompress_kernel(k));
      }
      read_curves(rd, root, "compression", "compression", "min_bytes", "fixed_s", "rate_Bps", kernels, p->compression);
    }
    if (fitted["memory"]) {
      read_curves(rd, root, "memory", "memory", "min_bytes", "fixed_s", "rate_Bps",
                  {"sgd_step", kCollectiveBuffer, kPushBuffer, in_cache_curve("sgd_step")}, p->memory);
    }
    p->memory_bandwidth = rd.number(fitted, "memory_bandwidth_Bps", "fitted.memory_bandwidth_Bps", 0, false);
    if (fitted["memory_roofline"]) p->memory_roofline = fitted["memory_roofline"].as<std::string>() == "true";
    read_fit_checks(rd, root, p->fit_checks);
    if (const YAML::Node c = root["self_check"]) {  // the verdict and error are for people: derived again here
      if (!c.IsMap()) rd.fail(c, "self_check", "must be a mapping {job, measured_s, predicted_s}");
      p->self_check =
          SelfCheck{rd.text(c, "job", "self_check.job"), rd.number(c, "measured_s", "self_check.measured_s", 0, true),
                    rd.number(c, "predicted_s", "self_check.predicted_s", 0, true)};
    }
    const YAML::Node meas = root["measurements"];
    read_collectives(rd, meas, p->collectives);
    if (meas) read_contention(rd, meas, *p);
    if (meas["exchange"] && meas["exchange"].IsMap()) {
      for (const auto& kv : meas["exchange"]) {
        p->exchange[kv.first.Scalar()] = rd.samples(kv.second, "measurements.exchange." + kv.first.Scalar());
      }
    }
    return p;
  } catch (const YAML::Exception& e) {  // a shape the reader did not expect: still the file's fault
    throw InputError(
        SourceLocation{path, e.mark.is_null() ? 0 : e.mark.line + 1, e.mark.is_null() ? 0 : e.mark.column + 1},
        fmt::format("calibration profile: unexpected YAML here: {}", e.msg));
  }
}

}  // namespace dtsim
