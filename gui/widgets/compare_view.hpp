// The compare tab: two runs (or two jobs of one run, e.g. a parameter server against a ring
// AllReduce) stacked on one time axis, zoomed and panned together, with a table of metric deltas.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include <QWidget>

#include "gui/model/document.hpp"
#include "gui/widgets/timeline_widget.hpp"

class QComboBox;
class QLabel;
class QTableWidget;

namespace dtsim::gui {

// One side of a comparison: a run, or one job of a run.
struct CompareSide {
  QString title;
  std::shared_ptr<const Trace> trace;
  std::optional<JobMetrics> metrics;
  std::vector<std::string> job_of_rank;
};

// The sides a run offers: one per job when it has several, else the whole run.
std::vector<CompareSide> compare_sides(const RunData& run, const QString& title);

class CompareView : public QWidget {
  Q_OBJECT

 public:
  explicit CompareView(QWidget* parent = nullptr);
  // Replaces the candidates and shows candidates a and b.
  void set_candidates(std::vector<CompareSide> sides, int a = 0, int b = 1);
  void show_pair(int a, int b);
  TimelineWidget* top() const { return top_; }
  TimelineWidget* bottom() const { return bottom_; }
  QTableWidget* table() const { return table_; }

 private:
  void fill_table();

  std::vector<CompareSide> sides_;
  QComboBox* pick_a_;
  QComboBox* pick_b_;
  QLabel* label_a_;
  QLabel* label_b_;
  TimelineWidget* top_;
  TimelineWidget* bottom_;
  QTableWidget* table_;
  int a_ = -1, b_ = -1;
};

}  // namespace dtsim::gui
