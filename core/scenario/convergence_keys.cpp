// The `run.convergence.*` keys: the proxy model, its data, and how it is trained and evaluated
// along the simulated schedule (learn/, docs/convergence.md).
#include <filesystem>

#include <fmt/format.h>

#include "core/scenario/convergence_keys.hpp"
#include "core/scenario/validate.hpp"

namespace dtsim {
namespace {

using S = Scenario;
using V = ScalarValue;

}  // namespace

void add_convergence_keys(KeyTable& keys) {
  keys.run("run.convergence.enabled", "bool", "false",
           "Train a small proxy model along the simulated schedule (docs/convergence.md): real gradients per worker, "
           "compressed and delivered in the simulated order; loss and accuracy against simulated time.",
           [](S& s, const V& v) { s.run.convergence.enabled = v.boolean(); });
  keys.run(
      "run.convergence.model", "one of: softmax, mlp", "softmax",
      "The proxy: softmax regression, or a two-layer MLP (ReLU) with run.convergence.hidden units.",
      [](S& s, const V& v) {
        s.run.convergence.model = v.choice<ProxyModel>({{"softmax", ProxyModel::Softmax}, {"mlp", ProxyModel::Mlp}});
      });
  keys.run("run.convergence.hidden", "count", "32", "mlp: hidden units.",
           [](S& s, const V& v) { s.run.convergence.hidden = v.count(1); });
  keys.run("run.convergence.dataset", "one of: synthetic, csv, mnist", "synthetic",
           "synthetic (seeded Gaussian classes), csv (run.convergence.file: label first, then features) or mnist "
           "(IDX files run.convergence.file and run.convergence.labels).",
           [](S& s, const V& v) {
             s.run.convergence.dataset = v.choice<ProxyDataset>(
                 {{"synthetic", ProxyDataset::Synthetic}, {"csv", ProxyDataset::Csv}, {"mnist", ProxyDataset::Mnist}});
           });
  keys.run("run.convergence.classes", "count", "10",
           "synthetic: classes (at most 99999, as a convergence CSV's labels).",
           [](S& s, const V& v) { s.run.convergence.classes = v.count(2, 99999); });
  keys.run("run.convergence.features", "count", "32", "synthetic: features per sample.",
           [](S& s, const V& v) { s.run.convergence.features = v.count(1); });
  keys.run("run.convergence.samples", "count", "4096", "synthetic: samples (training and held-out together).",
           [](S& s, const V& v) { s.run.convergence.samples = v.count(2); });
  keys.run("run.convergence.separation", "number", "0.5", "synthetic: scale of the class means (larger is easier).",
           [](S& s, const V& v) { s.run.convergence.separation = v.at_least(0.0); });
  keys.run("run.convergence.file", "path", "",
           "csv: the data file (one sample per line: integer label, then features); mnist: the images IDX file. "
           "Relative to the scenario file.",
           [](S& s, const V& v) { s.run.convergence.file = v.text(); });
  keys.run("run.convergence.labels", "path", "", "mnist: the labels IDX file, relative to the scenario file.",
           [](S& s, const V& v) { s.run.convergence.labels = v.text(); });
  keys.run("run.convergence.batch", "count", "32", "Samples each worker's gradient is computed on per iteration.",
           [](S& s, const V& v) { s.run.convergence.batch = v.count(1); });
  keys.run("run.convergence.lr", "number", "0.1", "SGD learning rate of the proxy.", [](S& s, const V& v) {
    s.run.convergence.lr = v.at_least(0.0);
    if (s.run.convergence.lr <= 0) v.fail(fmt::format("must be greater than zero (got '{}')", v.text()));
  });
  keys.run("run.convergence.target_loss", "number", "0.6",
           "Held-out cross-entropy to reach: the run reports the simulated time and updates to reach it.",
           [](S& s, const V& v) { s.run.convergence.target_loss = v.at_least(0.0); });
  keys.run("run.convergence.eval_every", "count", "10", "Evaluate the model every this many updates (and at the end).",
           [](S& s, const V& v) { s.run.convergence.eval_every = v.count(1); });
  keys.run("run.convergence.holdout", "number", "0.2", "Fraction of the samples held out for evaluation, in (0, 1).",
           [](S& s, const V& v) {
             const double h = v.at_least(0.0);
             if (h <= 0 || h >= 1) v.fail(fmt::format("must be in (0, 1) (got '{}')", v.text()));
             s.run.convergence.holdout = h;
           });
}

void finish_convergence(Scenario& s) {
  ConvergenceSpec& c = s.run.convergence;
  auto resolve = [&s](std::string& file, const std::string& key) {
    if (file.empty()) return;
    std::filesystem::path p(file);
    if (p.is_relative() && s.where.count(key) > 0 && s.location_of(key).line > 0) {
      p = std::filesystem::path(s.path).parent_path() / p;
    }
    if (!std::filesystem::exists(p)) {
      throw InputError(s.location_of(key), fmt::format("{}: no such file '{}'", key, p.string()));
    }
    file = p.string();
  };
  if (!c.enabled) return;
  if (c.dataset == ProxyDataset::Synthetic) return;
  if (c.file.empty()) {
    throw InputError(s.location_of("run.convergence.dataset"),
                     fmt::format("run.convergence.dataset {} needs run.convergence.file",
                                 c.dataset == ProxyDataset::Csv ? "csv" : "mnist"));
  }
  resolve(c.file, "run.convergence.file");
  if (c.dataset == ProxyDataset::Mnist) {
    if (c.labels.empty()) {
      throw InputError(s.location_of("run.convergence.dataset"),
                       "run.convergence.dataset mnist needs run.convergence.labels (the labels IDX file)");
    }
    resolve(c.labels, "run.convergence.labels");
  }
}

}  // namespace dtsim
