// The engines' and backends' tables (core/base/executors.hpp) held to their enums: one entry per value, in order,
// every name read back to its value, and the names the scenario key table and the command lines accept.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "core/base/executors.hpp"
#include "core/scenario/loader.hpp"

using namespace dtsim;

TEST_CASE("the engines' table has one entry per Engine, in order, each name read back") {
  std::set<std::string_view> names;
  for (size_t i = 0; i < engines().size(); ++i) {
    const EngineTraits& t = engines()[i];
    CHECK(static_cast<size_t>(t.engine) == i);
    CHECK(engine_named(t.name) == t.engine);
    CHECK(engine_name(t.engine) == t.name);
    CHECK_FALSE(t.title.empty());
    names.insert(t.name);
  }
  CHECK(names.size() == 2);  // Engine::Analytical, Engine::SimGrid
  CHECK(engine_named("Simgrid") == std::nullopt);
  CHECK(engine_names() == "analytical, simgrid");
}

TEST_CASE("the backends' table has one entry per Backend, in order, each name read back") {
  for (size_t i = 0; i < backends().size(); ++i) {
    const BackendTraits& t = backends()[i];
    CHECK(static_cast<size_t>(t.backend) == i);
    CHECK(backend_named(t.name) == t.backend);
    CHECK(backend_name(t.backend) == t.name);
  }
  CHECK(backends().size() == 2);  // Backend::Cpu, Backend::Cuda
  CHECK(backend_named("gpu") == std::nullopt);
  CHECK(backend_names() == "cpu, cuda");
}

TEST_CASE("run.engine takes every engine's name and refuses others, naming the table's") {
  const std::string scenario = std::string(DTSIM_SOURCE_DIR) + "/scenarios/quickstart.yaml";
  for (const EngineTraits& t : engines()) {
    CHECK(load_scenario(scenario, {"run.engine=" + std::string(t.name)}).run.engine == t.engine);
  }
  try {
    load_scenario(scenario, {"run.engine=ns3"});
    FAIL("run.engine=ns3 was accepted");
  } catch (const InputError& e) {
    const std::string what = e.what();
    for (const EngineTraits& t : engines()) CHECK(what.find(std::string(t.name)) != std::string::npos);
  }
}
