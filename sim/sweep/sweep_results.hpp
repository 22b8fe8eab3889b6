// A sweep's folder: sweep.json (the manifest), points.jsonl (a journal, one line appended per
// finished point, so an interrupted sweep resumes where it stopped), and the results rewritten
// whole after each point: results.csv, results.json and scaling.json.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/sweep/scaling_fit.hpp"
#include "sim/sweep/sweep_plan.hpp"
#include "sim/sweep/sweep_table.hpp"

namespace dtsim::sweep {

// A point's metrics without its per-rank arrays ("per_rank", at the top and in each of "jobs"): what a
// sweep keeps in memory for its table, CSV and scaling fit. Every rank's metrics of every point
// would hold about 11 KB a rank in memory (a sweep to 4,096 ranks, point by point, about 24 GB);
// results.json takes each point's whole metrics from points.jsonl instead (write_results).
nlohmann::json without_ranks(nlohmann::json metrics);
enum class RankDetail { Whole, Summary };  // metrics as written, or without_ranks()

// Why a journal line cannot be trusted: not JSON (a torn line: a run stopped while writing it), not
// {"key": text, "metrics": object}, or metrics a resume would misread: a field the sweep's table, its scaling fit
// or a tune's ranking reads that is missing, of another type, not finite, negative, or an iteration time that is
// not positive. nullopt for a line to trust.
std::optional<std::string> journal_line_problem(const nlohmann::json& line);

// A folder's journal as read: each point's metrics from its last line that can be trusted, and the lines that
// could not (their points are run again).
struct JournalRead {
  PointResults points;
  long lines = 0;
  long rejected = 0;
  std::string first_rejected;  // "line N: why" of the first of them
  // One line for the user when lines were rejected, "" otherwise: how many, the first and why, what happens.
  std::string summary(const std::string& journal) const;
};

// Finished points in a folder's journal (empty if none), every line checked (journal_line_problem).
JournalRead read_journal(const std::string& dir, RankDetail detail = RankDetail::Whole);

// Appends finished points to DIR/points.jsonl, one whole line per write.
class Journal {
 public:
  explicit Journal(const std::string& dir);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;
  void append(const std::string& key, const nlohmann::json& metrics);

 private:
  void append_raw(const std::string& text);
  int fd_ = -1;
  std::string path_;
};

void write_manifest(const std::string& dir, const SweepManifest& m);
// Throws InputError if DIR has no sweep.json.
SweepManifest read_manifest(const std::string& dir);
// Throws InputError when DIR already holds a different sweep (other points).
void check_same_sweep(const std::string& dir, const SweepManifest& m);

// The scaling analysis of the finished points: for one-parameter sweeps whose points have
// distinct worker counts, with at least one point done; otherwise none.
std::optional<ScalingReport> scaling_of(const SweepManifest& m, const PointResults& done);

// Writes results.csv, results.json and (when scaling_of gives one) scaling.json atomically. results.json
// holds each done point's whole metrics, read back one point at a time from DIR/points.jsonl (the
// last whole line of its key; `done`'s own metrics for a point not there), so `done` may hold summaries.
void write_results(const std::string& dir, const SweepManifest& m, const PointResults& done);

// Merges the shard folders of one sweep into OUT (journal, manifest, results) and returns the points'
// summaries (without_ranks). Throws InputError if the shards belong to different sweeps.
// A shard's journal lines that cannot be trusted are left out, and `report` is given the shard's summary line.
PointResults merge_sweeps(const std::string& out, const std::vector<std::string>& shards,
                          const std::function<void(const std::string&)>& report = {});

}  // namespace dtsim::sweep
