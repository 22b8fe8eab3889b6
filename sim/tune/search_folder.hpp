// dtsim tune's folder (cli/tune_command.cpp), kept so that a search resumes, and so that shards of one combine:
//   search.json   what the search is: the scenario (its file's digest), the overrides, the search's constraints and
//                 objective; a folder of another search is refused;
//   points.jsonl  the engines' runs as they finish, one line each keyed by TuneResult::run_key (sweep's journal,
//                 sim/sweep/sweep_results.hpp: a torn last line is ignored);
//   results.csv, pareto.svg and tune.json: the ranked search, tune.json written last.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/sweep/sweep_results.hpp"
#include "sim/tune/tuner.hpp"

namespace dtsim::tune {

// What makes two searches the same: the scenario file's text (by digest), every --set (the device count's too), the
// resolved limits (the scenario's tune.* keys and the command line's), the memory fraction and the objective.
// --screen, --top and --jobs are not part of it: a run is the same run under any of them.
nlohmann::json search_json(const std::string& scenario_file, const std::vector<std::string>& sets,
                           const TuneRequest& request);

// The runs kept in DIR's journal for `search` (none when DIR or its journal is missing). Throws InputError when DIR
// holds another search. Writes nothing. Lines that cannot be trusted are left out and counted (sweep::JournalRead).
sweep::JournalRead kept_runs(const std::string& dir, const nlohmann::json& search);

// Makes DIR (created if need be) the folder of `search`: writes search.json, before its first run is kept.
void claim_search_folder(const std::string& dir, const nlohmann::json& search);

// The runs kept in the shard folders of one search, each of which must hold `search` (InputError otherwise), added
// to OUT's journal (OUT's own kept, OUT claimed for `search`); returns all of OUT's runs.
sweep::JournalRead merge_search_folders(const std::string& out, const std::vector<std::string>& shards,
                                        const nlohmann::json& search);

}  // namespace dtsim::tune
