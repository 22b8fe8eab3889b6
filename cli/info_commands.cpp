// `dtsim models`, `dtsim devices` and `dtsim keys`: what the zoo and the scenario language hold.
#include <algorithm>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.hpp"
#include "core/base/atomic_file.hpp"
#include "core/base/error.hpp"
#include "core/base/units.hpp"
#include "core/scenario/loader.hpp"
#include "core/scenario/megatron_args.hpp"
#include "core/scenario/megatron_scenario.hpp"
#include "core/scenario/schema.hpp"
#include "models/zoo/device.hpp"
#include "models/zoo/hf_config.hpp"
#include "models/zoo/model_file.hpp"
#include "models/zoo/transformer_fields.hpp"
#include "models/zoo/workload.hpp"

namespace dtsim::cli {

namespace {

int import_model(const std::string& config, const std::string& out) {
  if (config.empty()) throw InputError("models import needs a Hugging Face config.json (dtsim models import FILE)");
  const HfModel hf = load_hf_config(config);
  const std::string text = model_file_text(hf.name, hf.source, hf.shape);
  if (out.empty()) {
    std::cout << text;
    return 0;
  }
  const Workload w = make_transformer(hf.shape, hf.name);
  write_file_atomic(out, text);
  std::cout << fmt::format(
      "wrote {}: {} ({:.4g} M parameters, {:.4g} GFLOP/sample forward, {}); use it as "
      "model.file: {}\n",
      out, hf.name, w.total_params() / 1e6, w.fwd_flops_per_sample() / 1e9, w.input, out);
  return 0;
}

}  // namespace

int import_megatron_command(const ImportMegatronOptions& o) {
  const MegatronImport in = load_megatron_args(o.args);
  const std::string name = std::filesystem::path(o.out.empty() ? o.args : o.out).stem().string();
  const std::string text =
      megatron_scenario_text(in, MegatronCluster{o.preset, o.device, o.nodes, o.gpus_per_node}, name, o.args);
  // The scenario is checked as dtsim will read it before anything is written: a layout the cluster cannot hold, a
  // batch the data-parallel size does not divide, is refused here naming its key.
  const Scenario s = load_scenario_text(text, o.out.empty() ? "import-megatron" : o.out);
  if (o.out.empty()) {
    std::cout << text;
    return 0;
  }
  write_file_atomic(o.out, text);
  const JobSpec& job = s.jobs.front();
  std::cout << fmt::format(
      "wrote {}: {:.4g} B parameters on {} x {} {} (tensor {} x pipeline {} x context {}, {} arguments read, {} "
      "not read: listed in its header); run it with dtsim run {}\n",
      o.out, job.workload.total_params() / 1e9, s.cluster.nodes, s.cluster.devices_per_node, s.cluster.device.name,
      job.strategy.hybrid.tensor, job.strategy.hybrid.pipeline, job.strategy.hybrid.context, in.mapped.size(),
      in.not_read.size(), o.out);
  return 0;
}

int models_command(const std::string& action, const std::string& name, const std::string& out) {
  if (action == "import") return import_model(name, out);
  if (!out.empty()) throw InputError("models: --out is for models import");
  if (action == "list") {
    std::cout << fmt::format("{:<14} {:>14} {:>18}  {}\n", "model", "parameters", "GFLOP/sample fwd", "input");
    for (const auto& n : zoo_model_names()) {
      const Workload w = load_zoo_model(n);
      std::cout << fmt::format("{:<14} {:>14.0f} {:>18.4g}  {}\n", n, w.total_params(), w.fwd_flops_per_sample() / 1e9,
                               w.input);
    }
    std::cout
        << "also: transformer (model.transformer.*), synthetic (model.synthetic.*), model.file, or model.hf_config "
           "(a Hugging Face config.json; dtsim models import)\n";
    return 0;
  }
  if (action != "show")
    throw InputError(fmt::format("unknown models action '{}' (valid: list, show NAME, import CONFIG.json)", action));
  if (name.empty()) throw InputError("models show needs a NAME (see `dtsim models list`)");
  const Workload w = load_zoo_model(name);
  std::cout << fmt::format("{}: {}\nsource: {}\ninput: {}\n", w.name, fmt::format("{} layers", w.layers.size()),
                           w.source, w.input);
  if (const auto shape = zoo_transformer(name)) {
    // A shape-defined model: its fields, which the scenario keys model.transformer.* override.
    std::vector<std::string> fields;
    for (const auto& f : transformer_fields()) fields.push_back(fmt::format("{} {}", f.name, field_text(f, *shape)));
    std::cout << fmt::format("shape (model.transformer.*): {}\n", fmt::join(fields, ", "));
  }
  std::cout << fmt::format("{:<28} {:>14} {:>16} {:>16} {:>14}\n", "layer", "params", "fwd FLOP/sample",
                           "bwd FLOP/sample", "activations");
  for (const auto& l : w.layers) {
    std::cout << fmt::format("{:<28} {:>14.0f} {:>16.4g} {:>16.4g} {:>14.0f}\n", l.name, l.params, l.fwd_flops,
                             l.bwd_flops, l.activations);
  }
  std::cout << fmt::format("{:<28} {:>14.0f} {:>16.4g} {:>16.4g} {:>14.0f}\n", "total", w.total_params(),
                           w.fwd_flops_per_sample(), w.bwd_flops_per_sample(), w.activations_per_sample());
  return 0;
}

int devices_command() {
  size_t width = 6;
  for (const auto& n : device_names()) width = std::max(width, n.size());
  std::cout << fmt::format("{:<{}} {:>12} {:>12} {:>12} {:>12} {:>12} {:>9} {:>6} {:>14} {:>6}  {}\n", "device", width,
                           "fp32", "tf32", "fp16", "bf16", "memory bw", "memory", "eff.", "gemm/attn/mem", "comm",
                           "description");
  for (const auto& n : device_names()) {
    const DeviceSpec d = load_device(n);
    auto peak = [](double p) { return p > 0 ? format_flop_rate(p) : std::string("-"); };
    const KernelProfile& k = d.kernels;
    const std::string kernels = k.present() ? fmt::format("{:.2f}/{:.2f}/{:.2f}", k.gemm_at(Dtype::Fp16),
                                                          k.attention_for(AttentionBackend::Flash2).forward, k.memory)
                                            : std::string("-");
    std::cout << fmt::format("{:<{}} {:>12} {:>12} {:>12} {:>12} {:>12} {:>9} {:>6.2f} {:>14} {:>6.2f}  {}\n", n, width,
                             peak(d.peak_fp32), peak(d.peak_tf32), peak(d.peak_fp16), peak(d.peak_bf16),
                             format_rate(d.mem_bandwidth), format_bytes(d.mem_capacity), d.efficiency, kernels,
                             d.compute_under_comm, d.description);
  }
  std::cout << "'-': no such mode on the device; fp32 is used instead. eff.: the fraction of peak layer-table models "
               "reach; gemm/attn/mem: the fp16 GEMM's, fused attention's fractions of peak and the fraction of memory "
               "bandwidth streaming kernels reach (other dtypes and convolutions: devices.yaml; docs/engines.md; "
               "'-': eff. for all); comm: the fraction of its compute rate the device keeps while it communicates "
               "(docs/engines.md, Contention). Sources: models/zoo/data/devices.yaml\n";
  return 0;
}

int keys_command(bool markdown) {
  if (markdown) {
    std::cout << scenario_keys_markdown();
    return 0;
  }
  for (const auto& k : scenario_keys()) {
    std::cout << fmt::format("{:<38} {:<14} {}\n", k.path, k.required ? "(required)" : k.default_value, k.doc);
  }
  return 0;
}

}  // namespace dtsim::cli
