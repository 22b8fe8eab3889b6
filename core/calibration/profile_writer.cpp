// Writing a calibration profile as YAML: machine, fitted parameters, residuals, raw measurements.
#include <yaml-cpp/yaml.h>

#include "core/calibration/profile_writer.hpp"

namespace dtsim {
namespace {

void write_segments(YAML::Emitter& e, const PiecewiseLinear& p, const char* min_name, const char* fixed_name,
                    const char* rate_name) {
  e << YAML::BeginSeq;
  for (const Segment& s : p.segments) {
    e << YAML::Flow << YAML::BeginMap << YAML::Key << min_name << YAML::Value << s.min_x << YAML::Key << fixed_name
      << YAML::Value << s.fixed << YAML::Key << rate_name << YAML::Value << 1.0 / s.per_unit << YAML::EndMap;
  }
  e << YAML::EndSeq;
}

void write_fits(YAML::Emitter& e, const char* what, const std::map<std::string, FittedCurve>& curves,
                const char* min_name, const char* fixed_name, const char* rate_name) {
  e << YAML::Key << what << YAML::Value << YAML::BeginMap;
  for (const auto& [name, c] : curves) {
    e << YAML::Key << name << YAML::Value;
    write_segments(e, c.fit, min_name, fixed_name, rate_name);
  }
  e << YAML::EndMap;
}

void write_residuals(YAML::Emitter& e, const char* what, const std::map<std::string, FittedCurve>& curves) {
  e << YAML::Key << what << YAML::Value << YAML::BeginMap;
  for (const auto& [name, c] : curves) {
    e << YAML::Key << name << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "points" << YAML::Value
      << c.residuals.points << YAML::Key << "rms_relative" << YAML::Value << c.residuals.rms_relative << YAML::Key
      << "max_relative" << YAML::Value << c.residuals.max_relative << YAML::EndMap;
  }
  e << YAML::EndMap;
}

void write_samples(YAML::Emitter& e, const std::vector<Sample>& samples) {
  e << YAML::BeginSeq;
  for (const Sample& s : samples) e << YAML::Flow << YAML::BeginSeq << s.x << s.seconds << YAML::EndSeq;
  e << YAML::EndSeq;
}

void write_raw(YAML::Emitter& e, const char* what, const std::map<std::string, FittedCurve>& curves) {
  e << YAML::Key << what << YAML::Value << YAML::BeginMap;
  for (const auto& [name, c] : curves) {
    e << YAML::Key << name << YAML::Value;
    write_samples(e, c.samples);
  }
  e << YAML::EndMap;
}

}  // namespace

std::string profile_yaml(const CalibrationProfile& p) {
  YAML::Emitter e;
  e.SetDoublePrecision(6);
  e << YAML::Comment(
      "dtsim calibration profile, written by `dtsim calibrate`. Use it with cluster.calibration in a scenario or "
      "`dtsim validate --calibration`. Times in seconds, sizes in bytes, rates in bytes/s or FLOP/s; each fitted "
      "segment applies from its min_* up to the next segment's.");
  e << YAML::BeginMap;
  e << YAML::Key << "format" << YAML::Value << "dtsim-calibration/1";
  const MachineInfo& m = p.machine;
  e << YAML::Key << "machine" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "hostname" << YAML::Value << m.hostname << YAML::Key << "cpu_model" << YAML::Value << m.cpu_model;
  e << YAML::Key << "cores" << YAML::Value << m.cores << YAML::Key << "backend" << YAML::Value
    << std::string(backend_name(m.backend));
  if (!m.device.empty()) e << YAML::Key << "device" << YAML::Value << m.device;
  e << YAML::Key << "when" << YAML::Value << m.when << YAML::Key << "ranks" << YAML::Value << m.ranks;
  e << YAML::Key << "hosts" << YAML::Value << m.hosts << YAML::Key << "dtsim_version" << YAML::Value << m.dtsim_version;
  e << YAML::Key << "quick" << YAML::Value << (m.quick ? "true" : "false");
  if (!m.from_trace.empty()) e << YAML::Key << "from_trace" << YAML::Value << m.from_trace;
  if (m.llc_bytes > 0) e << YAML::Key << "llc_bytes" << YAML::Value << static_cast<long long>(m.llc_bytes);
  e << YAML::EndMap;

  e << YAML::Key << "fitted" << YAML::Value << YAML::BeginMap;
  write_fits(e, "links", p.links, "min_bytes", "latency_s", "bandwidth_Bps");
  write_fits(e, "compute", p.compute, "min_flops", "overhead_s", "rate_flops");
  if (!p.attention.empty()) write_fits(e, "attention", p.attention, "min_flops", "overhead_s", "rate_flops");
  if (!p.memory.empty()) write_fits(e, "memory", p.memory, "min_bytes", "fixed_s", "rate_Bps");
  e << YAML::Key << "memory_bandwidth_Bps" << YAML::Value << p.memory_bandwidth;
  e << YAML::Key << "memory_roofline" << YAML::Value << (p.memory_roofline ? "true" : "false");
  if (!p.compression.empty()) write_fits(e, "compression", p.compression, "min_bytes", "fixed_s", "rate_Bps");
  if (p.contention) {  // for people: the reader fits them again from measurements.contention
    const ContentionFit f = p.contention_rates();
    const BothAtOnce b = both_at_once(*p.contention);
    e << YAML::Key << "contention" << YAML::Value << YAML::Flow << YAML::BeginMap;
    const std::pair<const char*, double> values[] = {
        {"compute_kept", f.compute_kept},     {"comm_kept", f.comm_kept},
        {"both_measured_s", b.measured},      {"both_none_s", b.none},
        {"both_serial_s", b.serial},          {"both_compute_slowed_s", b.compute_slowed},
        {"both_both_slowed_s", b.both_slowed}};
    for (const auto& [name, v] : values) e << YAML::Key << name << YAML::Value << v;
    e << YAML::EndMap;
  }
  e << YAML::EndMap;

  if (!p.fit_checks.empty()) {
    e << YAML::Key << "fit_checks" << YAML::Value << YAML::BeginSeq;
    for (const FitCheck& c : p.fit_checks) {
      e << YAML::Flow << YAML::BeginMap << YAML::Key << "group" << YAML::Value << c.group << YAML::Key << "name"
        << YAML::Value << c.name << YAML::Key << "verdict" << YAML::Value << std::string(fit_verdict_name(c.verdict))
        << YAML::Key << "reason" << YAML::Value << c.reason << YAML::EndMap;
    }
    e << YAML::EndSeq;
  }

  if (p.self_check) {
    const SelfCheck& c = *p.self_check;
    e << YAML::Key << "self_check" << YAML::Value << YAML::BeginMap << YAML::Key << "job" << YAML::Value << c.job
      << YAML::Key << "measured_s" << YAML::Value << c.measured_s << YAML::Key << "predicted_s" << YAML::Value
      << c.predicted_s << YAML::Key << "error_pct" << YAML::Value << c.error_pct() << YAML::Key << "verdict"
      << YAML::Value << (c.passed() ? "passed" : "failed") << YAML::EndMap;
  }

  e << YAML::Key << "residuals" << YAML::Value << YAML::BeginMap;
  write_residuals(e, "links", p.links);
  write_residuals(e, "compute", p.compute);
  if (!p.attention.empty()) write_residuals(e, "attention", p.attention);
  if (!p.memory.empty()) write_residuals(e, "memory", p.memory);
  if (!p.compression.empty()) write_residuals(e, "compression", p.compression);
  e << YAML::EndMap;

  e << YAML::Key << "measurements" << YAML::Value << YAML::BeginMap;
  write_raw(e, "link_rounds", p.links);
  write_raw(e, "gemm", p.compute);
  if (!p.attention.empty()) write_raw(e, "attention", p.attention);
  write_raw(e, "memory", p.memory);
  e << YAML::Key << "exchange" << YAML::Value << YAML::BeginMap;
  for (const auto& [cls, samples] : p.exchange) {
    e << YAML::Key << cls << YAML::Value;
    write_samples(e, samples);
  }
  e << YAML::EndMap;
  write_raw(e, "compression", p.compression);
  e << YAML::Key << "collectives" << YAML::Value << YAML::BeginSeq;
  for (const CollectiveSample& c : p.collectives) {
    e << YAML::Flow << YAML::BeginMap << YAML::Key << "kind" << YAML::Value << c.kind << YAML::Key << "algorithm"
      << YAML::Value << c.algorithm << YAML::Key << "ranks" << YAML::Value << c.ranks << YAML::Key << "bytes"
      << YAML::Value << c.bytes << YAML::Key << "time_s" << YAML::Value << c.seconds << YAML::Key << "algbw_Bps"
      << YAML::Value << c.algbw << YAML::Key << "busbw_Bps" << YAML::Value << c.busbw << YAML::Key << "predicted_s"
      << YAML::Value << c.predicted << YAML::EndMap;
  }
  e << YAML::EndSeq;
  if (p.contention) {
    const ContentionSample& c = *p.contention;
    e << YAML::Key << "contention" << YAML::Value << YAML::BeginMap;
    e << YAML::Key << "gemm_flops" << YAML::Value << c.gemm_flops;
    e << YAML::Key << "collective_bytes" << YAML::Value << c.collective_bytes;
    const std::pair<const char*, const std::vector<double>*> lists[] = {
        {"gemm_alone_s", &c.gemm_alone},
        {"collective_alone_s", &c.collective_alone},
        {"gemm_under_comm_s", &c.gemm_under_comm},
        {"collective_under_gemm_s", &c.collective_under_gemm},
        {"both_s", &c.both}};
    for (const auto& [name, v] : lists) e << YAML::Key << name << YAML::Value << YAML::Flow << *v;
    e << YAML::EndMap;
  }
  e << YAML::EndMap;
  e << YAML::EndMap;
  return std::string(e.c_str()) + "\n";
}

}  // namespace dtsim
