// End-to-end tests of `dtsim sweep`, `merge` and `compare`: outputs, --jobs, MPI, shards,
// resume and errors before any simulation.
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/support/run_process.hpp"

namespace {

using dtsim::test::run_dtsim;
using dtsim::test::slurp;
using dtsim::test::temp_dir;

nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(slurp(path)); }

// results.json with wall times removed: what must be identical between ways of running a sweep.
nlohmann::json comparable(const std::string& dir) {
  nlohmann::json j = read_json(dir + "/results.json");
  for (auto& p : j["points"]) {
    p["metrics"].erase("wall_time_s");
    for (auto& job : p["metrics"]["jobs"]) job.erase("wall_time_s");
  }
  return j;
}

const std::string kSmallSimgrid =
    "scenarios/quickstart.yaml --engine simgrid --set run.iterations=2 --set run.warmup=0 --param cluster.nodes=1,2,4";

}  // namespace

TEST_CASE("sweep writes results and scaling json with the documented schema") {
  const std::string out = temp_dir("sweep-analytical");
  const auto r = run_dtsim(
      "sweep scenarios/quickstart.yaml --engine analytical --param cluster.nodes=1..64:x2 --out '" + out + "'",
      "sweep-analytical");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("Amdahl     not fitted: a weak-scaling sweep") != std::string::npos);  // a fixed problem's law
  CHECK(r.out.find("Gustafson") != std::string::npos);
  const auto s = read_json(out + "/scaling.json");
  CHECK(s["schema_version"] == 2);
  CHECK(s["mode"] == "weak");
  CHECK(s["param"] == "cluster.nodes");
  CHECK(s["efficiency_threshold"] == 0.8);
  REQUIRE(s["points"].size() == 7);
  CHECK(s["points"][0]["workers"] == 4);
  CHECK(s["points"][0]["speedup"].get<double>() == Approx(4.0));
  for (const char* k : {"iteration_time_s", "throughput_samples_per_s", "speedup", "efficiency", "karp_flatt"}) {
    CHECK(s["points"][3].contains(k));
  }
  CHECK(s["amdahl"].is_null());
  for (const char* k : {"p", "r2", "residuals"}) CHECK(s["gustafson"].contains(k));
  CHECK(s.contains("efficiency_below_threshold_at"));
  const auto res = read_json(out + "/results.json");
  CHECK(res["params"] == nlohmann::json::array({"cluster.nodes"}));
  REQUIRE(res["points"].size() == 7);
  CHECK(res["points"][2]["params"]["cluster.nodes"] == "4");
  CHECK(res["points"][2]["workers"] == 16);
  CHECK(res["points"][2]["metrics"]["engine"] == "analytical");
  const std::string csv = slurp(out + "/results.csv");
  CHECK(csv.rfind("cluster.nodes,job,workers,iteration_time_s", 0) == 0);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 8);
  for (const char* f : {"speedup.svg", "efficiency.svg"}) {
    const std::string svg = slurp(out + "/" + f);
    CHECK(svg.find("<svg") != std::string::npos);
    CHECK(svg.find("</svg>") != std::string::npos);
  }
  if (!std::filesystem::exists(out + "/speedup.png")) WARN("no PNG plots: dtsim was built without Qt 6 Gui");
}

TEST_CASE("the sweep table's header is a line of its own, above one row per point") {
  const std::string out = temp_dir("sweep-table");
  const auto r = run_dtsim(
      "sweep scenarios/quickstart.yaml --engine analytical --no-plots --param cluster.nodes=1,2 --out '" + out + "'",
      "sweep-table");
  INFO(r.out);
  REQUIRE(r.code == 0);
  std::istringstream lines(r.out);
  std::string line, header;
  std::vector<std::string> rows;
  while (std::getline(lines, line)) {
    if (line.find("Karp-Flatt") != std::string::npos) header = line;
    if (!header.empty() && line != header && line.find(" ms ") != std::string::npos) rows.push_back(line);
  }
  REQUIRE(!header.empty());
  CHECK(header.substr(header.find_last_not_of(' ') - 9) == "Karp-Flatt");  // nothing after the last column's name
  CHECK(rows.size() == 2);
}

TEST_CASE("a sweep of a scenario with two jobs reports both, in its table and in results.csv") {
  // Before the table had a row per job, two_jobs.yaml's BERT job was in neither (only in results.json).
  const std::string out = temp_dir("sweep-two-jobs");
  const auto r = run_dtsim(
      "sweep scenarios/two_jobs.yaml --engine analytical --no-plots --param "
      "cluster.nic.rate=10Gbps,100Gbps --out '" +
          out + "'",
      "sweep-two-jobs");
  INFO(r.out);
  REQUIRE(r.code == 0);
  std::istringstream lines(r.out);
  std::string line;
  std::vector<std::string> rows;
  bool header = false;
  while (std::getline(lines, line)) {
    if (line.find("Karp-Flatt") != std::string::npos) {
      header = true;
      CHECK(line.find(" job ") != std::string::npos);
    } else if (header && (line.find(" resnet ") != std::string::npos || line.find(" bert ") != std::string::npos)) {
      rows.push_back(line);
    }
  }
  REQUIRE(rows.size() == 4);
  for (size_t i = 0; i < 4; ++i) CHECK(rows[i].find(i % 2 == 0 ? " resnet " : " bert ") != std::string::npos);
  const auto results = read_json(out + "/results.json");
  std::istringstream csv(slurp(out + "/results.csv"));
  std::getline(csv, line);
  CHECK(line.rfind("cluster.nic.rate,job,workers,iteration_time_s,", 0) == 0);
  for (size_t i = 0; i < 4; ++i) {
    REQUIRE(std::getline(csv, line));
    const auto& job = results["points"][i / 2]["metrics"]["jobs"][i % 2];
    CHECK(line.rfind(fmt::format("{},{},{},{},", i < 2 ? "10Gbps" : "100Gbps", job["job"].get<std::string>(),
                                 job["workers"].get<int>(), job["iteration_time_s"]["mean"].get<double>()),
                     0) == 0);
  }
  CHECK_FALSE(std::getline(csv, line));
}

TEST_CASE("sweep with a bad parameter fails before any simulation with the loader's error line") {
  const std::string out = temp_dir("sweep-bad");
  const auto r =
      run_dtsim("sweep scenarios/quickstart.yaml --param cluster.nodez=4 --out '" + out + "/x'", "sweep-bad");
  CHECK(r.code == 2);
  CHECK(r.err == "--set cluster.nodez=4: error: unknown key 'cluster.nodez' (did you mean 'nodes'?)\n");
  CHECK_FALSE(std::filesystem::exists(out + "/x"));
  const auto v = run_dtsim("sweep scenarios/quickstart.yaml --param cluster.nodes=2,4,lots --out '" + out + "/y'",
                           "sweep-bad-value");
  CHECK(v.code == 2);
  CHECK(v.err.rfind("--set cluster.nodes=lots: error: ", 0) == 0);
  CHECK(std::count(v.err.begin(), v.err.end(), '\n') == 1);
  CHECK_FALSE(std::filesystem::exists(out + "/y"));
  const auto range = run_dtsim("sweep scenarios/quickstart.yaml --param cluster.nodes=1..8:q --out '" + out + "/z'",
                               "sweep-bad-range");
  CHECK(range.code == 2);
}

TEST_CASE("sweep with --jobs 2 gives the same results as --jobs 1") {
  const std::string one = temp_dir("sweep-jobs1"), two = temp_dir("sweep-jobs2");
  REQUIRE(run_dtsim("sweep " + kSmallSimgrid + " --no-plots --jobs 1 --out '" + one + "'", "sweep-jobs1").code == 0);
  REQUIRE(run_dtsim("sweep " + kSmallSimgrid + " --no-plots --jobs 2 --out '" + two + "'", "sweep-jobs2").code == 0);
  CHECK(comparable(one) == comparable(two));
  CHECK(read_json(one + "/scaling.json") == read_json(two + "/scaling.json"));
  CHECK(slurp(one + "/results.csv") == slurp(two + "/results.csv"));
}

TEST_CASE("sweep resumes: points already in the output are skipped") {
  const std::string out = temp_dir("sweep-resume");
  const std::string base = "sweep scenarios/quickstart.yaml --engine analytical --no-plots --out '" + out + "' ";
  REQUIRE(run_dtsim(base + "--param cluster.nodes=1,2,4 --shard 0/2", "sweep-resume-a").code == 0);
  CHECK(read_json(out + "/results.json")["points"].size() == 2);
  const auto r = run_dtsim(base + "--param cluster.nodes=1,2,4", "sweep-resume-b");
  REQUIRE(r.code == 0);
  CHECK(r.err.find("resuming: 2 of 3 points already done") != std::string::npos);
  CHECK(r.err.find("[3/3]") != std::string::npos);
  CHECK(r.err.find("[1/3]") == std::string::npos);
  CHECK(read_json(out + "/results.json")["points"].size() == 3);
  // A torn last line (an interrupted write) is ignored and that point runs again.
  std::system(("printf '{\"key\": \"trunc' >> '" + out + "/points.jsonl'").c_str());
  CHECK(run_dtsim(base + "--param cluster.nodes=1,2,4", "sweep-resume-c").code == 0);
  const auto other = run_dtsim(base + "--param cluster.nodes=8", "sweep-resume-d");
  CHECK(other.code == 2);
  CHECK(other.err.find("holds the results of a different sweep") != std::string::npos);
}

TEST_CASE("sweep shards merged give the same results as one local sweep") {
  const std::string local = temp_dir("sweep-local"), a = temp_dir("sweep-shard0"), b = temp_dir("sweep-shard1"),
                    merged = temp_dir("sweep-merged");
  const std::string args =
      "sweep scenarios/quickstart.yaml --engine analytical --no-plots --param cluster.nodes=1..16:x2 ";
  REQUIRE(run_dtsim(args + "--out '" + local + "'", "shard-local").code == 0);
  REQUIRE(run_dtsim(args + "--shard 0/2 --out '" + a + "'", "shard-0").code == 0);
  REQUIRE(run_dtsim(args + "--shard 1/2 --out '" + b + "'", "shard-1").code == 0);
  REQUIRE(run_dtsim("merge '" + merged + "' '" + a + "' '" + b + "'", "merge").code == 0);
  CHECK(comparable(local) == comparable(merged));
  CHECK(read_json(local + "/scaling.json") == read_json(merged + "/scaling.json"));
}

TEST_CASE("sweep over MPI ranks gives the same results as a local sweep") {
  if (std::system("command -v mpirun >/dev/null 2>&1") != 0) {
    WARN("mpirun not found: the MPI sweep test is skipped");
    return;
  }
  const std::string local = temp_dir("sweep-mpi-local"), mpi = temp_dir("sweep-mpi");
  REQUIRE(run_dtsim("sweep " + kSmallSimgrid + " --no-plots --out '" + local + "'", "mpi-local").code == 0);
  const std::string cmd = "cd '" + std::string(DTSIM_SOURCE_DIR) +
                          "' && OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader "
                          "mpirun --oversubscribe -np 2 '" +
                          DTSIM_BINARY_DIR + "/bin/dtsim' sweep " + kSmallSimgrid + " --no-plots --mpi --out '" + mpi +
                          "' >'" + mpi + "/../mpi.out' 2>&1";
  const int status = std::system(cmd.c_str());
  INFO(slurp(mpi + "/../mpi.out"));
  REQUIRE(status == 0);
  CHECK(comparable(local) == comparable(mpi));
  CHECK(read_json(local + "/scaling.json") == read_json(mpi + "/scaling.json"));
}

TEST_CASE("compare prints runs side by side with deltas") {
  const std::string a = temp_dir("compare-a"), b = temp_dir("compare-b");
  REQUIRE(run_dtsim("run scenarios/quickstart.yaml --engine analytical --no-trace --out '" + a + "'", "cmp-a").code ==
          0);
  REQUIRE(
      run_dtsim("run scenarios/quickstart.yaml --engine analytical --no-trace --set cluster.nodes=4 --out '" + b + "'",
                "cmp-b")
          .code == 0);
  const auto r = run_dtsim("compare '" + a + "' '" + b + "/metrics.json'", "cmp");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("iteration time mean") != std::string::npos);
  CHECK(r.out.find("(+100.0%)") != std::string::npos);  // workers 8 -> 16
  CHECK(run_dtsim("compare '" + a + "' /nonexistent", "cmp-bad").code == 2);
}

TEST_CASE("kill -9 of a sweep leaves no point running") {
  // A point of a few seconds (quickstart on 512 nodes, SimGrid); the sweep is killed once its point
  // process runs, and the point must be gone (dead or a zombie awaiting init) within half a second.
  const auto r = dtsim::test::run_shell(
      "D=$(mktemp -d) && { '" + std::string(DTSIM_BINARY_DIR) +
          "/bin/dtsim' sweep scenarios/quickstart.yaml --param cluster.nodes=512,513 --jobs 1 --no-plots "
          "--out $D/s >/dev/null 2>&1 & p=$!; } && "
          "for i in $(seq 1 100); do c=$(pgrep -P $p | head -1); [ -n \"$c\" ] && break; sleep 0.05; done && "
          "[ -n \"$c\" ] && kill -9 $p && sleep 0.5 && s=$(ps -o stat= -p $c | tr -d ' ') && "
          "echo \"point ${s:-gone}\" && rm -rf $D && case \"$s\" in ''|Z*) exit 0;; *) kill -9 $c; exit 1;; esac",
      "sweep-kill");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
}
