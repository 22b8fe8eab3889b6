// The sync policies' table held to the code: every policy's name parses from a scenario into its
// kind, its parameter is a scenario key that warns under the other policies, and its texts put the
// parameter where the summary and the Learner show it.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "core/base/error.hpp"
#include "core/scenario/loader.hpp"
#include "core/scenario/sync_policy.hpp"
#include "core/scenario/warnings.hpp"
#include "tests/support/scenario_error.hpp"
#include "tests/support/tiny_job.hpp"

using dtsim::test::error_of;

using namespace dtsim;

namespace {

const char* const kJob = test::kTinyJob;

// --set lines that make a scenario of the policy valid.
std::vector<std::string> sets_for(SyncKind k) {
  const std::string policy = "sync.policy=" + std::string(sync_policy_name(k));
  switch (k) {
    case SyncKind::Bsp:
    case SyncKind::LocalSgd:
    case SyncKind::Gossip: return {policy};
    case SyncKind::Asp:
    case SyncKind::Ssp: return {policy, "strategy.kind=parameter_server"};
    case SyncKind::Backup: return {policy, "sync.backup_workers=1"};
  }
  return {};
}

}  // namespace

TEST_CASE("the policies' table lists every policy once, in the enum's order") {
  const auto policies = sync_policies();
  REQUIRE(policies.size() == 6);
  std::set<std::string_view> names;
  for (size_t i = 0; i < policies.size(); ++i) {
    INFO(policies[i].name);
    CHECK(static_cast<size_t>(policies[i].kind) == i);
    CHECK(&sync_policy(policies[i].kind) == &policies[i]);
    CHECK(names.insert(policies[i].name).second);
  }
}

TEST_CASE("every policy's name parses into its kind, and an unknown one is refused at its line") {
  for (const SyncPolicyTraits& p : sync_policies()) {
    INFO(p.name);
    const Scenario s = load_scenario_text(kJob, "x.yaml", sets_for(p.kind));
    CHECK(s.job().sync.kind == p.kind);
  }
  CHECK(error_of(std::string(kJob) + "sync:\n  policy: bsq\n") ==
        "x.yaml:9:11: error: sync.policy: 'bsq' is not valid (valid: bsp, asp, ssp, local_sgd, backup, gossip) (did "
        "you mean 'bsp'?)");
}

TEST_CASE("every strategy's name parses into its kind") {
  for (StrategyKind k : {StrategyKind::AllReduce, StrategyKind::ParameterServer}) {
    INFO(strategy_name(k));
    const Scenario s = load_scenario_text(kJob, "x.yaml", {"strategy.kind=" + std::string(strategy_name(k))});
    CHECK(s.job().strategy.kind == k);
  }
}

TEST_CASE("a policy's texts hold its parameter where it reads one") {
  SyncSpec spec;
  spec.staleness = 2;
  spec.period = 4;
  spec.backup_workers = 1;
  std::vector<std::string> titles, columns, labels;
  for (const SyncPolicyTraits& p : sync_policies()) {
    INFO(p.name);
    const bool reads = p.parameter != SyncParameter::None;
    CHECK((p.title.find("{}") != std::string_view::npos) == reads);
    if (!p.column.empty()) CHECK((p.column.find("{}") != std::string_view::npos) == reads);
    CHECK(sync_parameter_key(p.parameter).empty() == !reads);
    spec.kind = p.kind;
    titles.push_back(sync_text(p.title, spec));
    columns.push_back(sync_text(p.column, spec));
    labels.push_back(sync_label(spec));
  }
  using V = std::vector<std::string>;
  CHECK(titles == V{"BSP", "ASP", "SSP (staleness bound 2)", "local SGD (average every 4)", "BSP with 1 backup workers",
                    "gossip (AD-PSGD)"});
  CHECK(columns == V{"", "asp", "ssp(2)", "local SGD every 4", "1 backup", "gossip"});
  CHECK(labels == V{"bsp", "asp", "ssp(2)", "local_sgd(4)", "backup(1)", "gossip"});
}

TEST_CASE("a policy's parameter is a scenario key that warns under every other policy", "[warnings]") {
  for (const SyncPolicyTraits& p : sync_policies()) {
    if (p.parameter == SyncParameter::None) continue;
    const std::string key(sync_parameter_key(p.parameter));
    for (const SyncPolicyTraits& under : sync_policies()) {
      INFO(p.name << " under " << under.name);
      std::vector<std::string> sets = sets_for(under.kind);
      if (under.kind != p.kind) sets.push_back(key + "=1");
      const std::vector<std::string> w = scenario_warnings(load_scenario_text(kJob, "x.yaml", sets));
      if (under.kind == p.kind) {
        CHECK(w.empty());
      } else {
        REQUIRE(w.size() == 1);
        CHECK(w[0] == "--set " + key + "=1: warning: " + key + ": ignored under sync.policy " +
                          std::string(under.name) + " (it applies to " + std::string(p.name) + ")");
      }
    }
  }
}

TEST_CASE("dtsim-real runs on the cuda backend only what it runs on the cpu backend") {
  for (const SyncPolicyTraits& p : sync_policies()) {
    INFO(p.name);
    if (p.real_cuda) CHECK(p.real_cpu);
  }
}
