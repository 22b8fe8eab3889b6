// A sweep's table: one row per point and job (a scenario of several jobs has a row for each, named in the `job`
// column), its columns listed once here. results.csv is written from it (sweep_results.hpp), `dtsim sweep` prints
// it (cli/sweep_report.hpp) and dtsim.sweep() returns it as dicts (python/module.cpp), so the three agree.
//
// How to add a column: add its name and how a row gives its cell to the table in sweep_table.cpp; a cell is a
// number, a text or null (an empty cell). tests/sim/sweep/sweep_table_test.cpp holds every row to its metrics.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/sweep/scaling_fit.hpp"
#include "sim/sweep/sweep_plan.hpp"

namespace dtsim::sweep {

using PointResults = std::map<std::string, nlohmann::json>;  // point key -> metrics.json object

struct SweepRow {
  const SweepPointInfo* point = nullptr;
  int job = 0;                              // the job's index in the scenario
  int workers = 0;                          // the job's workers (the point's, for the first job)
  const nlohmann::json* metrics = nullptr;  // the job's metrics (metrics.json's jobs[job])
  // The scaling analysis of this row's workers: on the first job's rows of a sweep that has one (scaling_of
  // measures the first job's throughput); null on the others.
  const ScalingPoint* scaling = nullptr;
};

struct SweepTable {
  std::vector<std::string> columns;                // the swept keys, then the table's columns
  std::vector<SweepRow> rows;                      // in grid order, each point's jobs in the scenario's order
  std::vector<std::vector<nlohmann::json>> cells;  // cells[i][c]: row i's cell of columns[c]
  bool convergence = false;                        // time_to_target_s and updates_to_target are columns
  bool several_jobs = false;                       // some point has more than one job
};

// The finished points' rows (points without metrics in `done` have none). `report` is scaling_of(m, done); the
// table points into it, into `m` and into `done`, which must outlive it.
SweepTable sweep_table(const SweepManifest& m, const PointResults& done, const std::optional<ScalingReport>& report);

// results.csv: the columns, then one line per row (numbers as {fmt} writes them shortest, texts quoted where they
// hold a comma or a quote, null as nothing).
std::string to_csv(const SweepTable& t);
// The rows as objects, column -> cell (what dtsim.sweep() turns into its Table's rows).
nlohmann::json rows_json(const SweepTable& t);

}  // namespace dtsim::sweep
