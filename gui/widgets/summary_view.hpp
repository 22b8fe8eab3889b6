// The summary tab: where each rank's iteration goes (compute, exposed communication, waiting)
// as stacked bars from metrics.json's per_rank, plus the run's headline numbers; for a hybrid run
// also the pipeline bubble and, beside it, the memory of a rank of each stage by category against
// the device's capacity.
#pragma once

#include <QWidget>

#include "gui/model/kinds.hpp"
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
  QChartView* memory_view() const { return memory_; }  // hidden when the run has no memory section
  QLabel* headline() const { return headline_; }

 private:
  QChartView* chart_;
  QChartView* memory_;
  QLabel* headline_;
};

// The memory chart of a run with a memory section: per stage, a rank's bytes by category stacked,
// and the device's capacity as a line when it is on the same scale.
QChart* memory_chart(const JobMetrics& job);

// Gives a chart view a new chart and deletes the old one (QChartView only releases it).
void replace_chart(QChartView* view, QChart* chart);

// The colours of the memory chart (the time categories' are model/kinds.hpp's, the timeline's too).
inline constexpr unsigned kParametersColour = 0x4e79a7, kGradientsColour = 0x59a14f, kOptimizerColour = 0xb07aa1,
                          kActivationsColour = 0xedc948, kCommunicationColour = 0xf28e2b, kDeviceColour = 0xe31a1c;

}  // namespace dtsim::gui
