// `dtsim tune`'s kept engine runs: a search resumed after an interruption, shards of one merged, and its runs spread
// over MPI ranks, each giving the tune.json of one plain search.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/support/run_process.hpp"

namespace dtsim::test {
namespace {

// Small: 6 layouts on the analytical engine, the best 2 of them on SimGrid (about 2 s).
const std::string kSearch = "tune scenarios/gpt3_175b_megatron.yaml --top 2 --screen 6";

// tune.json without its wall times: what must be identical between ways of running a search.
nlohmann::json comparable(const std::string& dir) {
  nlohmann::json j = nlohmann::json::parse(slurp(dir + "/tune.json"));
  j.erase("closed_form_seconds");
  j.erase("engine_seconds");
  return j;
}

long lines(const std::string& path) {
  const std::string text = slurp(path);
  return std::count(text.begin(), text.end(), '\n');
}

}  // namespace

TEST_CASE("dtsim tune resumes: a rerun reuses the runs kept before it was stopped", "[tune]") {
  const std::string out = temp_dir("tune-resume");
  const auto first = run_dtsim(kSearch + " --out '" + out + "'", "tune-resume-first");
  INFO(first.out << first.err);
  REQUIRE(first.code == 0);
  CHECK(first.out.find("reused") == std::string::npos);
  const nlohmann::json whole = comparable(out);
  REQUIRE(lines(out + "/points.jsonl") == 8);  // 6 analytical runs, 2 SimGrid
  // As if killed during the analytical pass: no tune.json, 3 runs kept, the 4th torn mid-line.
  std::filesystem::remove(out + "/tune.json");
  const std::string journal = slurp(out + "/points.jsonl");
  size_t cut = 0;
  for (int i = 0; i < 3; ++i) cut = journal.find('\n', cut) + 1;
  std::ofstream(out + "/points.jsonl", std::ios::trunc) << journal.substr(0, cut) << journal.substr(cut, 40);
  const auto resumed = run_dtsim(kSearch + " --out '" + out + "'", "tune-resume-again");
  INFO(resumed.out << resumed.err);
  REQUIRE(resumed.code == 0);
  CHECK(resumed.out.find("reused 3 engine runs kept in " + out + " (5 run now)") != std::string::npos);
  CHECK(comparable(out) == whole);
  // Done: a rerun runs nothing.
  const auto again = run_dtsim(kSearch + " --out '" + out + "'", "tune-resume-done");
  CHECK(again.out.find("reused 8 engine runs kept in " + out + " (0 run now)") != std::string::npos);
  CHECK(comparable(out) == whole);
}

TEST_CASE("dtsim tune --shard i/n, then --merge: the tune.json of one search", "[tune]") {
  const std::string whole = temp_dir("tune-shard-whole"), a = temp_dir("tune-shard-0"), b = temp_dir("tune-shard-1"),
                    merged = temp_dir("tune-shard-merged");
  REQUIRE(run_dtsim(kSearch + " --out '" + whole + "'", "tune-shard-whole").code == 0);
  const auto zero = run_dtsim(kSearch + " --shard 0/2 --out '" + a + "'", "tune-shard-0");
  INFO(zero.out << zero.err);
  REQUIRE(zero.code == 0);
  CHECK(zero.out.find("shard 0/2 of the analytical pass: 3 of its 6 runs kept in " + a) != std::string::npos);
  CHECK(!std::filesystem::exists(a + "/tune.json"));  // a shard is not a search
  REQUIRE(run_dtsim(kSearch + " --shard 1/2 --out '" + b + "'", "tune-shard-1").code == 0);
  CHECK(lines(a + "/points.jsonl") == 3);
  CHECK(lines(b + "/points.jsonl") == 3);
  const auto merge = run_dtsim(kSearch + " --merge '" + a + "' '" + b + "' --out '" + merged + "'", "tune-merge");
  INFO(merge.out << merge.err);
  REQUIRE(merge.code == 0);
  CHECK(merge.out.find("reused 6 engine runs kept in " + merged + " (2 run now)") != std::string::npos);
  CHECK(comparable(merged) == comparable(whole));
  CHECK(slurp(merged + "/results.csv") == slurp(whole + "/results.csv"));
  // The SimGrid pass in shards too: each takes the analytical shards' runs and runs its share of the best 2.
  const std::string c = temp_dir("tune-shard-c0"), d = temp_dir("tune-shard-c1"), last = temp_dir("tune-shard-last");
  const auto second =
      run_dtsim(kSearch + " --shard 1/2 --merge '" + a + "' '" + b + "' --out '" + d + "'", "tune-shard-c1");
  INFO(second.out << second.err);
  REQUIRE(second.code == 0);
  CHECK(second.out.find("reused 6 engine runs kept in " + d + " (1 run now)") != std::string::npos);
  CHECK(second.out.find("shard 1/2 of the SimGrid pass: 1 of its 2 runs kept in " + d) != std::string::npos);
  REQUIRE(run_dtsim(kSearch + " --shard 0/2 --merge '" + a + "' '" + b + "' --out '" + c + "'", "tune-shard-c0").code ==
          0);
  const auto ranking = run_dtsim(kSearch + " --merge '" + c + "' '" + d + "' --out '" + last + "'", "tune-shard-last");
  CHECK(ranking.out.find("reused 8 engine runs kept in " + last + " (0 run now)") != std::string::npos);
  CHECK(comparable(last) == comparable(whole));
  // A shard missing (a task that failed): the merge runs its share.
  const std::string lacking = temp_dir("tune-shard-lacking");
  const auto one = run_dtsim(kSearch + " --merge '" + a + "' --out '" + lacking + "'", "tune-merge-lacking");
  CHECK(one.out.find("reused 3 engine runs kept in " + lacking + " (5 run now)") != std::string::npos);
  CHECK(comparable(lacking) == comparable(whole));
  // Shards of another search are refused, in one line.
  const auto other =
      run_dtsim(kSearch + " --fix zero=1 --merge '" + a + "' --out '" + merged + "-other'", "tune-merge-other");
  CHECK(other.code == 2);
  CHECK(other.err == a + ": error: is a shard of a different search (scenario, --set, --devices, constraints or "
                         "objective)\n");
  const auto both = run_dtsim(kSearch + " --shard 0/2 --mpi", "tune-shard-mpi");
  CHECK(both.code == 2);
  CHECK(both.err == "error: --mpi and --shard: use one or the other\n");
}

TEST_CASE("dtsim tune --mpi over 2 ranks gives the tune.json of a plain search, resumed or not", "[tune]") {
  if (std::system("command -v mpirun >/dev/null 2>&1") != 0) {
    WARN("mpirun not found: the MPI tune test is skipped");
    return;
  }
  const std::string plain = temp_dir("tune-mpi-plain"), mpi = temp_dir("tune-mpi");
  REQUIRE(run_dtsim(kSearch + " --out '" + plain + "'", "tune-mpi-plain").code == 0);
  const std::string mpirun =
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader mpirun --oversubscribe -np 2 "
      "'" +
      std::string(DTSIM_BINARY_DIR) + "/bin/dtsim' ";
  const auto r = run_shell(mpirun + kSearch + " --mpi --out '" + mpi + "'", "tune-mpi");
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("wrote pareto.svg") != std::string::npos);
  CHECK(comparable(mpi) == comparable(plain));
  CHECK(slurp(mpi + "/results.csv") == slurp(plain + "/results.csv"));
  CHECK(lines(mpi + "/points.jsonl") == 8);  // rank 0 keeps every rank's runs
  // Resumed over MPI: rank 0 reuses what it kept, the ranks share the rest.
  std::filesystem::remove(mpi + "/tune.json");
  const std::string journal = slurp(mpi + "/points.jsonl");
  std::ofstream(mpi + "/points.jsonl", std::ios::trunc) << journal.substr(0, journal.find('\n') + 1);
  const auto resumed = run_shell(mpirun + kSearch + " --mpi --out '" + mpi + "'", "tune-mpi-resumed");
  INFO(resumed.out << resumed.err);
  REQUIRE(resumed.code == 0);
  CHECK(resumed.out.find("reused 1 engine runs kept in " + mpi + " (7 run now)") != std::string::npos);
  CHECK(comparable(mpi) == comparable(plain));
}

}  // namespace dtsim::test
