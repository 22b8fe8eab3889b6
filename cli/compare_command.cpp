// `dtsim compare A B ...`: runs (metrics.json files or run folders) side by side, each with its
// difference from the first.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "core/base/units.hpp"

namespace dtsim::cli {
namespace {

struct Run {
  std::string label;
  nlohmann::json metrics;
};

Run load_run(const std::string& arg) {
  std::filesystem::path path(arg);
  if (std::filesystem::is_directory(path)) path /= "metrics.json";
  std::ifstream in(path);
  if (!in) throw InputError(SourceLocation{path.string()}, "cannot read (give a metrics.json or a run folder)");
  std::stringstream ss;
  ss << in.rdbuf();
  auto j = nlohmann::json::parse(ss.str(), nullptr, false);
  if (j.is_discarded() || !j.contains("iteration_time_s")) {
    throw InputError(SourceLocation{path.string()}, "not a dtsim metrics.json");
  }
  std::string label = arg;
  while (label.size() > 1 && label.back() == '/') label.pop_back();
  return {label, std::move(j)};
}

struct Row {
  const char* name;
  double (*get)(const nlohmann::json&);
  std::string (*show)(double);
};

std::string show_time(double v) { return format_time(v); }
std::string show_rate(double v) { return fmt::format("{:.1f}", v); }
std::string show_percent(double v) { return fmt::format("{:.1f}%", 100 * v); }
std::string show_bytes(double v) { return format_bytes(v); }
std::string show_count(double v) { return fmt::format("{:.0f}", v); }

const Row kRows[] = {
    {"workers", [](const nlohmann::json& j) { return j["workers"].get<double>(); }, show_count},
    {"servers", [](const nlohmann::json& j) { return j["servers"].get<double>(); }, show_count},
    {"iteration time mean", [](const nlohmann::json& j) { return j["iteration_time_s"]["mean"].get<double>(); },
     show_time},
    {"iteration time p99", [](const nlohmann::json& j) { return j["iteration_time_s"]["p99"].get<double>(); },
     show_time},
    {"throughput (samples/s)", [](const nlohmann::json& j) { return j["throughput_samples_per_s"].get<double>(); },
     show_rate},
    {"compute", [](const nlohmann::json& j) { return j["compute_fraction"].get<double>(); }, show_percent},
    {"exposed communication", [](const nlohmann::json& j) { return j["exposed_comm_fraction"].get<double>(); },
     show_percent},
    {"waiting", [](const nlohmann::json& j) { return j["wait_fraction"].get<double>(); }, show_percent},
    {"bytes on the wire / it.", [](const nlohmann::json& j) { return j["bytes_on_wire_per_iteration"].get<double>(); },
     show_bytes},
};

std::string delta(double v, double base) {
  if (base == 0) return v == 0 ? "" : " (new)";
  return fmt::format(" ({:+.1f}%)", 100 * (v - base) / base);
}

}  // namespace

int compare_command(const std::vector<std::string>& args) {
  std::vector<Run> runs;
  for (const auto& a : args) runs.push_back(load_run(a));
  constexpr int kWidth = 24;
  std::string head = fmt::format("{:<24}", "");
  std::string engines = fmt::format("{:<24}", "engine");
  for (const auto& r : runs) {
    std::string label = r.label;  // its last kWidth - 3 characters after "..." when longer
    if (label.size() > kWidth) label.replace(0, label.size() - kWidth + 3, "...");
    head += fmt::format(" {:>{}}", label, kWidth);
    engines += fmt::format(" {:>{}}", r.metrics.value("engine", "?") + "/" + r.metrics.value("job", "?"), kWidth);
  }
  std::cout << head << "\n" << engines << "\n";
  for (const Row& row : kRows) {
    std::string line = fmt::format("{:<24}", row.name);
    const double base = row.get(runs.front().metrics);
    for (size_t i = 0; i < runs.size(); ++i) {
      const double v = row.get(runs[i].metrics);
      line += fmt::format(" {:>{}}", row.show(v) + (i == 0 ? "" : delta(v, base)), kWidth);
    }
    std::cout << line << "\n";
  }
  std::cout << "(differences in parentheses are relative to the first run)\n";
  return 0;
}

}  // namespace dtsim::cli
