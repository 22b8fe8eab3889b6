// A resume journal (sim/sweep/sweep_results.hpp): a sweep's or a tune's points.jsonl, read line by line as a resume
// reads it. Beyond the loaders' invariant: every point it keeps passes the journal's own check, and the sweep's
// results (results.csv, results.json, scaling.json) are written from whatever it keeps without another exception.
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "fuzz/fuzz_support.hpp"
#include "sim/sweep/sweep_results.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string dir = dtsim::fuzz::as_file_in(dtsim::fuzz::text_of(data, size), "journal", "points.jsonl");
  dtsim::fuzz::refuses_or_loads([&] {
    using namespace dtsim::sweep;
    const JournalRead whole = read_journal(dir);
    if (whole.rejected > whole.lines || (whole.rejected == 0) != whole.summary("j").empty()) std::abort();
    for (const auto& [key, metrics] : whole.points) {
      if (journal_line_problem(nlohmann::json{{"key", key}, {"metrics", metrics}})) std::abort();
    }
    const JournalRead summary = read_journal(dir, RankDetail::Summary);
    if (summary.points.size() != whole.points.size()) std::abort();
    SweepManifest m;
    m.scenario = "fuzz";
    m.param_keys = {"cluster.nodes"};
    int workers = 0;
    for (const auto& [key, metrics] : summary.points) {
      SweepPointInfo p;
      p.params = {{"cluster.nodes", std::to_string(++workers)}};
      p.key = key;
      p.workers = workers;
      m.points.push_back(p);
    }
    write_results(dir, m, summary.points);
  });
  return 0;
}
