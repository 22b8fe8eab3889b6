// The compiled half of the `dtsim` Python module (`_dtsim`): loading and checking scenarios, runs,
// sweeps and the zoo's tables, with the GIL released while dtsim works. python/dtsim.py builds the
// user-facing classes on these functions.
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "core/scenario/loader.hpp"
#include "core/scenario/megatron_args.hpp"
#include "core/scenario/megatron_scenario.hpp"
#include "core/scenario/schema.hpp"
#include "learn/learner.hpp"
#include "models/zoo/device.hpp"
#include "models/zoo/workload.hpp"
#include "python/error_key.hpp"
#include "python/run.hpp"
#include "python/to_python.hpp"
#include "sim/kernel_table.hpp"
#include "sim/sweep/sweep_plan.hpp"
#include "sim/sweep/sweep_results.hpp"
#include "sim/tune/devices.hpp"
#include "sim/tune/tune_json.hpp"
#include "sim/tune/tuner.hpp"

namespace pb = pybind11;

namespace dtsim::py {
namespace {

// dtsim.ScenarioError (a ValueError), created at import.
PyObject* scenario_error_type = nullptr;

// Raises ScenarioError with the error's file, line, column, key and message.
[[noreturn]] void raise_scenario_error(const InputError& e, const std::string& text, const std::string& origin) {
  pb::object error = pb::reinterpret_borrow<pb::object>(scenario_error_type)(pb::str(e.what()));
  error.attr("file") = e.where().file.empty() ? pb::object(pb::none()) : pb::object(pb::str(e.where().file));
  error.attr("line") = e.where().line > 0 ? pb::object(pb::int_(e.where().line)) : pb::object(pb::none());
  error.attr("column") = e.where().col > 0 ? pb::object(pb::int_(e.where().col)) : pb::object(pb::none());
  const auto key = error_key(e, text, origin);
  error.attr("key") = key ? pb::object(pb::str(*key)) : pb::object(pb::none());
  error.attr("message") = pb::str(e.message());
  PyErr_SetObject(scenario_error_type, error.ptr());
  throw pb::error_already_set();
}

// Asked while children run: a pending signal (Ctrl-C) raises its Python exception, which stops the points.
void check_signals() {
  pb::gil_scoped_acquire acquire;
  if (PyErr_CheckSignals() != 0) throw pb::error_already_set();
}

// A scenario as dtsim.py keeps it: its YAML text, the name errors give it, and its --set overrides.
struct Source {
  std::string text, origin;
  std::vector<std::string> sets;
};

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// The text of a scenario file, after the loader has read and checked it (its located errors, for a
// missing file, a directory or bytes that are not UTF-8 too).
pb::bytes read_scenario(const std::string& path) {
  std::string text;
  try {
    pb::gil_scoped_release release;
    load_scenario(path);
    text = file_text(path);
  } catch (const InputError& e) {
    raise_scenario_error(e, file_text(path), path);
  }
  return pb::bytes(text);
}

// A scenario's text from Megatron-LM's launch arguments (dtsim import-megatron), its errors located in the
// arguments' file.
pb::bytes import_megatron(const std::string& path, const std::string& preset, const std::string& device, int nodes,
                          int gpus_per_node, const std::string& name) {
  std::string text;
  try {
    pb::gil_scoped_release release;
    const MegatronImport in = load_megatron_args(path);
    text = megatron_scenario_text(in, MegatronCluster{preset, device, nodes, gpus_per_node}, name, path);
  } catch (const InputError& e) {
    raise_scenario_error(e, file_text(path), path);
  }
  return pb::bytes(text);
}

// Loads the scenario (the YAML loader and its checks), returning what dtsim.Scenario shows of it.
pb::dict check(const Source& src) {
  Scenario s;
  try {
    pb::gil_scoped_release release;
    s = load_scenario_text(src.text, src.origin, src.sets);
  } catch (const InputError& e) {
    raise_scenario_error(e, src.text, src.origin);
  }
  pb::dict d;
  d["name"] = s.name;
  d["engine"] = engine_name(s.run.engine);
  d["nodes"] = s.cluster.nodes;
  d["workers"] = s.workers();
  d["jobs"] = s.jobs.size();
  pb::dict written;
  for (const auto& [key, text] : s.written) written[pb::str(key)] = text;
  d["written"] = written;
  return d;
}

pb::object run(const Source& src, const std::string& engine, bool trace) {
  std::vector<std::string> sets = src.sets;
  if (!engine.empty()) sets.push_back("run.engine=" + engine);
  nlohmann::json out;
  try {
    pb::gil_scoped_release release;
    out = run_scenario(load_scenario_text(src.text, src.origin, sets), trace, check_signals);
  } catch (const InputError& e) {
    raise_scenario_error(e, src.text, src.origin);
  }
  return to_python(out);
}

// Every point of the grid, run over `jobs` processes (sim/sweep), with the scaling analysis when
// the sweep has one.
pb::object sweep(const Source& src, const std::vector<std::string>& params, int jobs, const std::string& engine,
                 const std::string& scaling) {
  nlohmann::json out;
  try {
    pb::gil_scoped_release release;
    sweep::SweepRequest request;
    request.scenario = src.origin;
    request.text = src.text;
    request.sets = src.sets;
    request.params = params;
    request.engine = engine;
    if (scaling != "weak" && scaling != "strong") throw InputError("scaling: expected 'weak' or 'strong'");
    request.mode = scaling == "strong" ? sweep::ScalingMode::Strong : sweep::ScalingMode::Weak;
    const sweep::SweepPlan plan = sweep::plan_sweep(request);
    std::vector<size_t> pending(plan.scenarios.size());
    for (size_t i = 0; i < pending.size(); ++i) pending[i] = i;
    // As `dtsim sweep`: the Learner needs every op record, so only sweeps that train it give up the
    // analytical fast path; a bad data file is reported before any point runs.
    bool learns = false;
    for (const Scenario& s : plan.scenarios) {
      if (s.run.convergence.enabled) learn::load_split(s);
      learns = learns || s.run.convergence.enabled;
    }
    const sweep::PointHook hook = learns ? sweep::PointHook(learn::add_convergence) : sweep::PointHook();
    sweep::PointResults done;
    std::map<size_t, nlohmann::json> by_index;
    sweep::run_points_with(
        plan.scenarios, pending, jobs,
        [&](size_t index, const nlohmann::json& metrics) {
          done[plan.manifest.points[index].key] = metrics;
          by_index[index] = metrics;
        },
        [&](const Scenario& s) { return sweep::simulate_point(s, hook); }, check_signals);
    nlohmann::json points = nlohmann::json::array();
    for (size_t i = 0; i < plan.manifest.points.size(); ++i) {
      const sweep::SweepPointInfo& p = plan.manifest.points[i];
      nlohmann::json values = nlohmann::json::object();
      for (const auto& [k, v] : p.params) values[k] = v;
      points.push_back({{"params", values}, {"sets", p.sets}, {"workers", p.workers}, {"metrics", by_index.at(i)}});
    }
    const auto scaling_report = sweep::scaling_of(plan.manifest, done);
    out = {{"scenario", plan.manifest.scenario},
           {"params", plan.manifest.param_keys},
           {"points", points},
           {"rows", sweep::rows_json(sweep::sweep_table(plan.manifest, done, scaling_report))},
           {"scaling", scaling_report ? sweep::scaling_json(*scaling_report, plan.manifest.scenario, scaling,
                                                            plan.manifest.param_keys.front())
                                      : nlohmann::json()}};
  } catch (const InputError& e) {
    raise_scenario_error(e, src.text, src.origin);
  }
  return to_python(out);
}

// `dtsim tune`'s search (sim/tune) with the scenario's tune.* limits: the layouts that fit, best first.
pb::object tune(const Source& src, int top, int screen, int jobs, const std::string& objective, int devices) {
  nlohmann::json out;
  const std::map<std::string, tune::Objective> objectives{
      {"time", tune::Objective::Time}, {"throughput", tune::Objective::Throughput}, {"cost", tune::Objective::Cost}};
  const auto chosen = objectives.find(objective);
  if (chosen == objectives.end()) {
    throw pb::value_error("tune: objective '" + objective + "': expected one of time, throughput, cost");
  }
  try {
    pb::gil_scoped_release release;
    const Scenario given = load_scenario_text(src.text, src.origin, src.sets);
    tune::TuneRequest request;
    request.limits = given.job().tune.limits;
    request.max_memory_fraction = given.job().tune.max_memory_fraction;
    // devices: the search on N devices, as dtsim tune --devices (sim/tune/devices.hpp).
    const tune::DeviceTarget target = tune::target_devices(given, request.limits, devices);
    std::vector<std::string> sets = src.sets;
    sets.insert(sets.end(), target.sets.begin(), target.sets.end());
    std::vector<std::string> all = sets;
    all.insert(all.end(), target.start.begin(), target.start.end());
    const Scenario s = target.sets.empty() ? given : load_scenario_text(src.text, src.origin, all);
    request.top = top;
    request.screen = screen;
    request.jobs = jobs;
    request.objective = chosen->second;
    const tune::TuneResult r = tune::tune(s, request);
    // A scenario read from a file names it, as the command line does; one made in Python ("<dict>") names none.
    const std::string file = src.origin.starts_with("<") ? "" : src.origin;
    out = tune::tune_json(r, request, {file, sets});
  } catch (const InputError& e) {
    raise_scenario_error(e, src.text, src.origin);
  }
  return to_python(out);
}

pb::list models() {
  pb::list out;
  for (const auto& n : zoo_model_names()) {
    const Workload w = load_zoo_model(n);
    pb::dict d;
    d["name"] = n;
    d["parameters"] = w.total_params();
    d["gflop_per_sample_fwd"] = w.fwd_flops_per_sample() / 1e9;
    d["input"] = w.input;
    d["layers"] = w.layers.size();
    d["source"] = w.source;
    out.append(d);
  }
  return out;
}

pb::list devices() {
  pb::list out;
  for (const auto& n : device_names()) {
    const DeviceSpec dev = load_device(n);
    auto peak = [](double p) { return p > 0 ? pb::object(pb::float_(p)) : pb::object(pb::none()); };
    const KernelProfile& k = dev.kernels;
    pb::dict d;
    d["name"] = n;
    d["peak_fp32_flops"] = peak(dev.peak_fp32);
    d["peak_tf32_flops"] = peak(dev.peak_tf32);
    d["peak_fp16_flops"] = peak(dev.peak_fp16);
    d["peak_bf16_flops"] = peak(dev.peak_bf16);
    d["memory_bandwidth_bytes_per_s"] = dev.mem_bandwidth;
    d["memory_bytes"] = dev.mem_capacity;
    d["efficiency"] = dev.efficiency;
    d["gemm_fp16_fraction"] = k.present() ? peak(k.gemm_at(Dtype::Fp16)) : pb::object(pb::none());
    // FlashAttention-2's forward figure, and every backend's forward and backward figures (models/zoo/attention.hpp).
    d["attention_fraction"] =
        k.present() ? peak(k.attention_for(AttentionBackend::Flash2).forward) : pb::object(pb::none());
    pb::dict attention;
    for (const AttentionBackendTraits& b : attention_backends()) {
      const AttentionFigures f = k.attention[static_cast<size_t>(b.backend)];
      if (f.present()) attention[pb::str(std::string(b.name))] = pb::make_tuple(f.forward, f.backward);
    }
    d["attention_fractions"] = attention;
    d["memory_fraction"] = k.present() ? peak(k.memory) : pb::object(pb::none());
    d["compute_under_comm"] = dev.compute_under_comm;
    d["description"] = dev.description;
    out.append(d);
  }
  return out;
}

// One rank's kernels and collectives in one iteration (sim/kernel_table.hpp), the rows `dtsim kernels` prints.
pb::dict kernels(const Source& src, int rank) {
  sim::KernelTable t;
  try {
    pb::gil_scoped_release release;
    t = sim::kernel_table(load_scenario_text(src.text, src.origin, src.sets), rank);
  } catch (const InputError& e) {
    raise_scenario_error(e, src.text, src.origin);
  }
  const auto maybe = [](bool present, double v) {
    return present ? pb::object(pb::float_(v)) : pb::object(pb::none());
  };
  pb::list rows;
  for (const sim::KernelRow& r : t.rows) {
    pb::dict d;
    d["name"] = r.name;
    d["kind"] = r.kind;
    d["stream"] = r.stream == Stream::Compute ? "compute" : r.stream == Stream::Comm ? "comm" : "posted";
    d["phase"] = std::string(phase_name(r.phase));
    d["calls"] = r.calls;
    d["seconds"] = r.seconds;
    d["total_seconds"] = r.total();
    d["share_of_step"] = t.step_seconds > 0 ? r.total() / t.step_seconds : 0.0;
    d["flops"] = r.flops;
    d["bytes"] = r.bytes;
    d["shape"] = r.shape.known() ? pb::object(pb::make_tuple(r.shape.m, r.shape.n, r.shape.k, r.shape.batch))
                                 : pb::object(pb::none());
    d["causal"] = r.shape.causal;
    const bool m = r.model.has_value();
    d["waves"] = maybe(m && r.model->waves > 0, m ? r.model->waves : 0);
    d["compute_seconds"] = maybe(m, m ? r.model->compute : 0);
    d["memory_seconds"] = maybe(m, m ? r.model->memory : 0);
    d["fixed_seconds"] = maybe(m, m ? r.model->fixed : 0);
    d["bound"] = r.bound;
    rows.append(d);
  }
  pb::dict out;
  out["scenario"] = t.scenario;
  out["device"] = t.device;
  out["rank"] = t.rank;
  out["stage"] = t.stage >= 0 ? pb::object(pb::int_(t.stage)) : pb::object(pb::none());
  out["step_seconds"] = t.step_seconds;
  out["rows"] = rows;
  return out;
}

pb::list keys() {
  pb::list out;
  for (const auto& k : scenario_keys()) {
    pb::dict d;
    d["path"] = k.path;
    d["type"] = k.type;
    d["default"] =
        k.required || k.default_value.empty() ? pb::object(pb::none()) : pb::object(pb::str(k.default_value));
    d["required"] = k.required;
    d["doc"] = k.doc;
    out.append(d);
  }
  return out;
}

}  // namespace
}  // namespace dtsim::py

PYBIND11_MODULE(_dtsim, m) {
  using namespace dtsim::py;
  m.doc() = "The compiled part of dtsim's Python module; import dtsim instead.";
  m.attr("__version__") = DTSIM_VERSION;
  scenario_error_type = PyErr_NewExceptionWithDoc(
      "dtsim.ScenarioError",
      "A mistake in a scenario, located as the YAML loader locates it: file, line, column, key, message.",
      PyExc_ValueError, nullptr);
  m.attr("ScenarioError") = pb::reinterpret_borrow<pb::object>(scenario_error_type);
  pb::class_<Source>(m, "Source")
      .def(pb::init<std::string, std::string, std::vector<std::string>>(), pb::arg("text"), pb::arg("origin"),
           pb::arg("sets"))
      .def_readonly("text", &Source::text)
      .def_readonly("origin", &Source::origin)
      .def_readonly("sets", &Source::sets);
  m.def("read_scenario", &read_scenario, pb::arg("path"), "A scenario file's text, once the loader has checked it.");
  m.def("import_megatron", &import_megatron, pb::arg("path"), pb::arg("preset") = "", pb::arg("device") = "",
        pb::arg("nodes") = 0, pb::arg("gpus_per_node") = 0, pb::arg("name") = "megatron",
        "A scenario's text from Megatron-LM's launch arguments, as dtsim import-megatron writes it.");
  m.def("check", &check, pb::arg("source"), "Loads and checks a scenario; a dict of its name, engine and size.");
  m.def("run", &run, pb::arg("source"), pb::arg("engine") = "", pb::arg("trace") = true,
        "Runs a scenario: {'metrics': ..., 'trace': ..., 'warnings': [...]}.");
  m.def("sweep", &sweep, pb::arg("source"), pb::arg("params"), pb::arg("jobs") = 1, pb::arg("engine") = "",
        pb::arg("scaling") = "weak", "Runs a sweep's points: {'points': [...], 'scaling': ...}.");
  m.def("tune", &tune, pb::arg("source"), pb::arg("top") = 5, pb::arg("screen") = 0, pb::arg("jobs") = 1,
        pb::arg("objective") = "time", pb::arg("devices") = 0,
        "dtsim tune's search: {'ranked': [...], 'layouts': ..., ...}.");
  m.def("kernels", &kernels, pb::arg("source"), pb::arg("rank") = -1,
        "One rank's kernels and collectives in one iteration, as `dtsim kernels` prints them.");
  m.def("models", &models, "The model zoo, one dict per model.");
  m.def("devices", &devices, "The device zoo, one dict per device.");
  m.def("keys", &keys, "The scenario keys, one dict per key.");
}
