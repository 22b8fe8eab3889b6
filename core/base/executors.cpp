// The engines' and backends' tables (executors.hpp).
#include "core/base/executors.hpp"

#include <array>

namespace dtsim {
namespace {

constexpr std::array kEngines{
    EngineTraits{Engine::Analytical, "analytical", "analytical"},
    EngineTraits{Engine::SimGrid, "simgrid", "SimGrid"},
};

constexpr std::array kBackends{
    BackendTraits{Backend::Cpu, "cpu", "MPI + Eigen"},
    BackendTraits{Backend::Cuda, "cuda", "NCCL + cuBLAS, one GPU per rank"},
};

template <typename Table, typename Name>
std::string joined(const Table& table, Name name) {
  std::string out;
  for (const auto& t : table) out += (out.empty() ? "" : ", ") + std::string(name(t));
  return out;
}

}  // namespace

std::span<const EngineTraits> engines() { return kEngines; }
std::span<const BackendTraits> backends() { return kBackends; }

std::string_view engine_name(Engine e) { return kEngines[static_cast<size_t>(e)].name; }
std::string_view engine_title(Engine e) { return kEngines[static_cast<size_t>(e)].title; }
std::string_view backend_name(Backend b) { return kBackends[static_cast<size_t>(b)].name; }

std::optional<Engine> engine_named(std::string_view name) {
  for (const EngineTraits& t : kEngines) {
    if (t.name == name) return t.engine;
  }
  return std::nullopt;
}

std::optional<Backend> backend_named(std::string_view name) {
  for (const BackendTraits& t : kBackends) {
    if (t.name == name) return t.backend;
  }
  return std::nullopt;
}

std::string engine_names() {
  return joined(kEngines, [](const EngineTraits& t) { return t.name; });
}
std::string backend_names() {
  return joined(kBackends, [](const BackendTraits& t) { return t.name; });
}

}  // namespace dtsim
