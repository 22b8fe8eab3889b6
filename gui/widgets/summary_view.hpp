// The summary tab: where each rank's iteration goes (compute, exposed communication, waiting)
// as stacked bars from metrics.json's per_rank, plus the run's headline numbers.
#pragma once

#include <QWidget>

#include "gui/model/run_metrics.hpp"

class QLabel;
QT_BEGIN_NAMESPACE
class QChart;
class QChartView;
QT_END_NAMESPACE

namespace dtsim::gui {

class SummaryView : public QWidget {
  Q_OBJECT

 public:
  explicit SummaryView(QWidget* parent = nullptr);
  void set_metrics(const RunMetrics* metrics);
  QChartView* chart_view() const { return chart_; }

 private:
  QChartView* chart_;
  QLabel* headline_;
};

// Gives a chart view a new chart and deletes the old one (QChartView only releases it).
void replace_chart(QChartView* view, QChart* chart);

// The colours the summary uses (shared with the timeline's palette).
inline constexpr unsigned kComputeColour = 0x4e79a7, kExposedColour = 0xf28e2b, kWaitColour = 0xe31a1c;

}  // namespace dtsim::gui
