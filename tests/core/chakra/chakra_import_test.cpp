// Chakra traces -> Plan, without an engine: dependency order, refusals that name the rank and the
// node (a cycle, a missing dependency, a receive without its send, unequal collectives), unknown
// node types and attributes warned about once each, and process groups named or described.
#include <catch2/catch.hpp>

#include "core/base/error.hpp"
#include "core/plan/compiler.hpp"
#include "core/scenario/warnings.hpp"
#include "tests/support/chakra_traces.hpp"

namespace dtsim::test {
namespace {

using T = EtNodeType;

EtNode comp(std::uint64_t id, std::vector<std::uint64_t> deps, std::uint64_t micros = 10) {
  return et_node(id, T::Compute, std::move(deps), {}, micros);
}

std::string refusal(const std::string& prefix, int nodes) {
  try {
    compile_plan(replay_scenario(prefix, nodes));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("Chakra nodes become ops in dependency order, control and data deps alike") {
  if (!chakra_supported()) return;
  // File order 3, 1, 2: node 3 waits (ctrl) for 2, node 2 (data) for 1.
  EtNode third = comp(3, {});
  third.ctrl_deps = {2};
  const std::string prefix = write_set("order", {et_trace({third, comp(1, {}), comp(2, {1})})});
  const Plan plan = compile_plan(replay_scenario(prefix, 1));
  REQUIRE(plan.ranks.size() == 1);
  const auto& ops = plan.ranks[0].ops;
  REQUIRE(ops.size() == 3);
  CHECK(ops[0].label == "n1");
  CHECK(ops[1].label == "n2");
  CHECK(ops[2].label == "n3");
  CHECK(ops[1].deps == std::vector<int>{0});
  CHECK(ops[2].deps == std::vector<int>{1});
  CHECK(std::get<ComputeOp>(ops[0].body).host == Approx(10e-6));
}

TEST_CASE("a Chakra dependency cycle is refused naming its nodes") {
  if (!chakra_supported()) return;
  const std::string prefix = write_set("cycle", {et_trace({comp(1, {}), comp(2, {}, 5)}),
                                                 et_trace({comp(7, {}), comp(3, {7, 5}), comp(4, {3}), comp(5, {4})})});
  const std::string line = refusal(prefix, 2);
  CHECK(line == prefix + ".1.et: error: rank 1: a dependency cycle: 3 -> 4 -> 5 -> 3");
}

TEST_CASE("a dependency on a node the trace does not hold is refused") {
  if (!chakra_supported()) return;
  const std::string prefix = write_set("missing", {et_trace({comp(1, {}), comp(2, {9})})});
  CHECK(refusal(prefix, 1) ==
        prefix + ".0.et: error: rank 0: node 2 depends on node 9, which this trace does not hold");
}

TEST_CASE("a Chakra receive without its send is refused naming the rank and the node") {
  if (!chakra_supported()) return;
  const auto recv = [](std::uint64_t id, int src, int tag) {
    return et_node(id, T::Recv, {}, {et_int("comm_src", src), et_int("comm_size", 1024), et_int("comm_tag", tag)});
  };
  const auto send = [](std::uint64_t id, int dst, int tag) {
    return et_node(id, T::Send, {}, {et_int("comm_dst", dst), et_int("comm_size", 1024), et_int("comm_tag", tag)});
  };
  SECTION("no send with that tag") {
    const std::string prefix = write_set("norecv", {et_trace({send(1, 1, 4)}), et_trace({recv(8, 0, 5)})});
    const std::string line = refusal(prefix, 2);
    const bool sent =
        line.rfind(prefix + ".0.et: error: rank 0: node 1 sends a message with tag 4 that no node receives", 0) == 0;
    const bool received =
        line.rfind(prefix + ".1.et: error: rank 1: node 8 receives a message with tag 5 that no node sends", 0) == 0;
    INFO(line);
    CHECK((sent || received));
  }
  SECTION("a second receive of one tag, sent once") {
    const std::string prefix =
        write_set("tworecv", {et_trace({send(1, 1, 4)}), et_trace({recv(8, 0, 4), recv(9, 0, 4)})});
    CHECK(refusal(prefix, 2).rfind(
              prefix + ".1.et: error: rank 1: node 9 receives a message with tag 4 that no node sends", 0) == 0);
  }
  SECTION("sends and receives of one tag pair in order") {
    const std::string prefix =
        write_set("pairs", {et_trace({send(1, 1, 4), send(2, 1, 4)}), et_trace({recv(8, 0, 4), recv(9, 0, 4)})});
    const Plan plan = compile_plan(replay_scenario(prefix, 2));
    CHECK(std::get<SendOp>(plan.ranks[0].ops[0].body).tag == std::get<RecvOp>(plan.ranks[1].ops[0].body).tag);
    CHECK(std::get<SendOp>(plan.ranks[0].ops[1].body).tag == std::get<RecvOp>(plan.ranks[1].ops[1].body).tag);
    CHECK(std::get<SendOp>(plan.ranks[0].ops[0].body).tag != std::get<SendOp>(plan.ranks[0].ops[1].body).tag);
  }
}

TEST_CASE("matched Chakra messages that wait for each other are refused as a deadlock naming the rank and node") {
  if (!chakra_supported()) return;
  const auto recv = [](std::uint64_t id, std::vector<std::uint64_t> deps, int src, int tag) {
    return et_node(id, T::Recv, std::move(deps),
                   {et_int("comm_src", src), et_int("comm_size", 1024), et_int("comm_tag", tag)});
  };
  const auto send = [](std::uint64_t id, std::vector<std::uint64_t> deps, int dst, int tag) {
    return et_node(id, T::Send, std::move(deps),
                   {et_int("comm_dst", dst), et_int("comm_size", 1024), et_int("comm_tag", tag)});
  };
  // Each rank receives first, then sends what the other waits for.
  const std::string prefix = write_set("deadlock", {et_trace({comp(1, {}), recv(2, {1}, 1, 0), send(3, {2}, 1, 1)}),
                                                    et_trace({recv(4, {}, 0, 1), send(5, {4}, 0, 0)})});
  CHECK(refusal(prefix, 2) == prefix +
                                  ".0.et: error: rank 0: node 2 ('n2') never runs: the traces deadlock (it waits "
                                  "for rank 1's send, which never comes)");
}

TEST_CASE("more Chakra ranks than the cluster's devices are refused at the workload.chakra key") {
  if (!chakra_supported()) return;
  const std::string prefix =
      write_set("toomany", {et_trace({comp(1, {})}), et_trace({comp(1, {})}), et_trace({comp(1, {})})});
  const std::string line = refusal(prefix, 2);
  CHECK(line.rfind("replay.yaml:2:", 0) == 0);
  CHECK(line.find("error: 3 Chakra traces, but rank 2 would run on node 2 device 0 of a cluster of 2 nodes x 1 "
                  "devices") != std::string::npos);
}

TEST_CASE("unknown Chakra node types and attributes get one warning each and pass dependencies on") {
  if (!chakra_supported()) return;
  EtNode odd = et_node(2, T::Checkpoint, {1});
  EtNode odd2 = et_node(3, T::Checkpoint, {2});
  EtNode strange = et_node(4, static_cast<T>(42), {3});
  EtNode last = comp(5, {4});
  last.attrs = {et_int("my_attr", 1), et_int("rf_id", 3)};
  EtNode again = comp(6, {5});
  again.attrs = {et_int("my_attr", 2)};
  const std::string prefix = write_set("unknown", {et_trace({comp(1, {}), odd, odd2, strange, last, again})});
  const Plan plan = compile_plan(replay_scenario(prefix, 1));
  REQUIRE(plan.ranks[0].ops.size() == 3);
  CHECK(plan.ranks[0].ops[1].label == "n5");
  CHECK(plan.ranks[0].ops[1].deps == std::vector<int>{0});  // through 4, 3 and 2 to 1
  REQUIRE(plan.warnings.size() == 3);
  CHECK(plan.warnings[0] == prefix +
                                ".0.et: warning: rank 0: node 2: CHECKPOINT_NODE (type 10) is not modelled: such "
                                "nodes take no time and pass their dependencies on (warned once)");
  CHECK(plan.warnings[1].find("node 4: an unknown type (type 42)") != std::string::npos);
  CHECK(plan.warnings[2] ==
        prefix + ".0.et: warning: rank 0: node 5: attribute 'my_attr' is not modelled (ignored) (warned once)");
}

TEST_CASE("Chakra collectives run on the process group their pg_name names") {
  if (!chakra_supported()) return;
  const auto coll = [](std::uint64_t id, const std::string& pg) {
    return et_node(id, T::Collective, {},
                   {et_int("comm_type", 0), et_int("comm_size", 1 << 20), et_text("pg_name", pg)});
  };
  SECTION("groups inferred from the ranks that name them") {
    const std::string prefix = write_set("groups", {et_trace({coll(1, "a"), coll(2, "")}), et_trace({coll(1, "")}),
                                                    et_trace({coll(1, "a"), coll(2, "")})});
    const Plan plan = compile_plan(replay_scenario(prefix, 3));
    REQUIRE(plan.groups.size() == 2);
    CHECK(plan.groups[0].ranks == std::vector<int>{0, 2});
    CHECK(plan.groups[1].ranks == std::vector<int>{0, 1, 2});
    CHECK(std::get<CollectiveOp>(plan.ranks[2].ops[1].body).group == 1);
  }
  SECTION("groups described by the metadata; a member that issues fewer is refused") {
    const EtAttr members{"pg_ranks.a", std::vector<std::int64_t>{0, 1}};
    const std::string prefix = write_set(
        "described", {et_trace({coll(1, "a"), coll(2, "a")}, {members}), et_trace({coll(1, "a")}, {members})});
    CHECK(refusal(prefix, 2) == prefix +
                                    ".1.et: error: rank 1: 1 collectives on process group 'a', where rank 0 "
                                    "issues 2: they would wait for each other forever");
  }
}

TEST_CASE("model and strategy keys a Chakra replay does not read are warned about, those it reads are not") {
  if (!chakra_supported()) return;
  const std::string prefix = write_set("keys", {et_trace({comp(1, {})})});
  const Scenario s = load_scenario_text(fmt::format(R"(workload: {{chakra: {}}}
model: {{dtype: fp16, optimizer: adam}}
strategy: {{allreduce: {{algorithm: ring, bucket_size: 10MB}}}}
cluster: {{nodes: 1, device: a100_80gb}}
)",
                                                    prefix),
                                        "keys.yaml");
  const std::vector<std::string> warnings = scenario_warnings(s);
  REQUIRE(warnings.size() == 2);
  CHECK(warnings[0] ==
        "keys.yaml:2:33: warning: model.optimizer: ignored by a job replaying Chakra traces "
        "(workload.chakra)");
  CHECK(warnings[1].find("strategy.allreduce.bucket_size: ignored by a job replaying Chakra traces") !=
        std::string::npos);
}

}  // namespace dtsim::test
