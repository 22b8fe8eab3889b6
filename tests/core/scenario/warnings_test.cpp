// Keys the sync policy leaves unused are named in one warning line each, with where they were set.
#include <catch2/catch.hpp>

#include "core/scenario/loader.hpp"
#include "core/scenario/warnings.hpp"

namespace {

const char* const kOne = R"(name: one
cluster: {nodes: 1, devices_per_node: 4, device: a100_80gb}
model: {name: resnet50}
strategy: {kind: parameter_server}
sync:
  policy: bsp
  staleness: 3
)";

const char* const kTwo = R"(name: two
cluster: {nodes: 2, devices_per_node: 2, device: a100_80gb}
jobs:
  - name: a
    model: {name: resnet50}
    strategy: {kind: parameter_server}
    sync: {policy: ssp, staleness: 2}
    placement: {first_local: 0, devices_per_node: 1}
  - name: b
    model: {name: resnet50}
    placement: {first_local: 1, devices_per_node: 1}
)";

}  // namespace

TEST_CASE("a key of another sync policy is named with its line and the policy that uses it", "[warnings]") {
  const auto w = dtsim::scenario_warnings(dtsim::load_scenario_text(kOne, "one.yaml", {}));
  REQUIRE(w.size() == 1);
  CHECK(w[0] == "one.yaml:7:14: warning: sync.staleness: ignored under sync.policy bsp (it applies to ssp)");
}

TEST_CASE("keys the policy uses, and defaults, give no warning", "[warnings]") {
  CHECK(dtsim::scenario_warnings(dtsim::load_scenario_text(kOne, "one.yaml", {"sync.policy=ssp"})).empty());
  CHECK(dtsim::scenario_warnings(dtsim::load_scenario_text(kOne, "one.yaml",
                                                           {"sync.policy=backup", "sync.backup_workers=1",
                                                            "strategy.kind=allreduce", "sync.staleness=0"}))
            .size() == 1);  // sync.staleness, set here to its default, is still named: the user wrote it
}

TEST_CASE("every policy key is checked, per job, with --set locations", "[warnings]") {
  const auto w = dtsim::scenario_warnings(
      dtsim::load_scenario_text(kTwo, "two.yaml", {"jobs.1.sync.period=4", "jobs.1.sync.backup_workers=1"}));
  REQUIRE(w.size() == 2);
  CHECK(w[0].find("jobs.1.sync.period: ignored under sync.policy bsp (it applies to local_sgd)") != std::string::npos);
  CHECK(w[0].rfind("--set", 0) == 0);
  CHECK(w[1].find("jobs.1.sync.backup_workers: ignored under sync.policy bsp (it applies to backup)") !=
        std::string::npos);
}
