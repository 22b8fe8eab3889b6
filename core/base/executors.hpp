// The executors of a Plan and their names, each written once here (executors.cpp): the simulator's engines
// (run.engine, `--engine`, the engine a run's metrics.json names) and the real backends (`--backend` of dtsim-real,
// calibrate and validate, and a calibration profile's machine.backend). The scenario's key table, the command lines,
// the profile reader and writer, the executors' RunInfo and every message that names one read their names from the
// tables. Adding one is its entry in executors.cpp plus its executor (sim/make_executor.cpp for an engine,
// real/launch.cpp for a backend) and the cases -Wswitch asks for in the switches over Engine or Backend (none has a
// default:); tests/core/base/executors_test.cpp holds the tables to the enums.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace dtsim {

enum class Engine { Analytical, SimGrid };
enum class Backend { Cpu, Cuda };

struct EngineTraits {
  Engine engine = Engine::SimGrid;
  std::string_view name;   // as run.engine and --engine spell it, and a run's metrics.json names it
  std::string_view title;  // in tables and sentences: "SimGrid"
};

struct BackendTraits {
  Backend backend = Backend::Cpu;
  std::string_view name;  // as --backend and machine.backend spell it, and a real run's metrics.json names it
  std::string_view what;  // what it runs on: "MPI + Eigen"
};

// Every engine and backend, in their enums' order.
std::span<const EngineTraits> engines();
std::span<const BackendTraits> backends();

std::string_view engine_name(Engine e);
std::string_view engine_title(Engine e);
std::string_view backend_name(Backend b);

// The engine or backend of that name, or nothing.
std::optional<Engine> engine_named(std::string_view name);
std::optional<Backend> backend_named(std::string_view name);

// The names joined for a message or a help line: "analytical, simgrid", "cpu, cuda".
std::string engine_names();
std::string backend_names();

}  // namespace dtsim
