// dtsim: the command-line front. Parses arguments, calls the libraries, maps errors to exit codes:
// 0 success, 1 runtime failure, 2 bad usage or bad scenario.
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "models/error.hpp"

namespace {

constexpr const char* kExamples = R"(
Examples:
  dtsim run scenarios/quickstart.yaml
  dtsim run scenarios/quickstart.yaml --set cluster.nodes=8 --out runs/8nodes
  dtsim run scenarios/parameter_server.yaml --set strategy.parameter_server.shards=4
  dtsim check scenarios/quickstart.yaml
  dtsim models list          dtsim models show resnet50
  dtsim devices              dtsim keys
)";

}  // namespace

int main(int argc, char** argv) {
  using namespace dtsim;
  CLI::App app{"dtsim: simulate distributed deep-learning training before you rent the cluster"};
  app.footer(kExamples);
  app.set_version_flag("--version", std::string("dtsim ") + DTSIM_VERSION);
  app.require_subcommand(1);

  cli::RunOptions run;
  auto* run_cmd = app.add_subcommand("run", "Run a scenario and write metrics.json and trace.json");
  run_cmd->add_option("scenario", run.scenario, "Scenario file (YAML)")->required();
  run_cmd->add_option("--set", run.sets, "Override a scenario key: key.path=value (repeatable)");
  run_cmd->add_option("--engine", run.engine, "analytical or simgrid (default: the scenario's run.engine)");
  run_cmd->add_option("--out", run.out, "Output folder (default: runs/<scenario name>)");
  run_cmd->add_flag("!--no-trace", run.trace, "Do not write trace.json");
  run_cmd->add_flag("--json", run.json, "Print metrics.json instead of the summary table");

  std::string check_file;
  std::vector<std::string> check_sets;
  auto* check_cmd = app.add_subcommand("check", "Validate a scenario and compile its plan, without running it");
  check_cmd->add_option("scenario", check_file, "Scenario file (YAML)")->required();
  check_cmd->add_option("--set", check_sets, "Override a scenario key: key.path=value (repeatable)");

  std::string models_action = "list", model_name;
  auto* models_cmd = app.add_subcommand("models", "List the model zoo, or show one model's layer table");
  models_cmd->add_option("action", models_action, "list or show")->check(CLI::IsMember({"list", "show"}));
  models_cmd->add_option("name", model_name, "Model to show");

  auto* devices_cmd = app.add_subcommand("devices", "List the device zoo");

  bool markdown = false;
  auto* keys_cmd = app.add_subcommand("keys", "List every scenario key with its default and meaning");
  keys_cmd->add_flag("--markdown", markdown, "Print docs/scenarios.md");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  try {
    if (*run_cmd) return cli::run_command(run);
    if (*check_cmd) return cli::check_command(check_file, check_sets);
    if (*models_cmd) return cli::models_command(models_action, model_name);
    if (*devices_cmd) return cli::devices_command();
    if (*keys_cmd) return cli::keys_command(markdown);
  } catch (const InputError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const RuntimeError& e) {
    std::cerr << "dtsim: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "dtsim: internal error: " << e.what() << "\n";
    return 1;
  }
  return 2;
}
