// The scaling tab: speedup and efficiency against the number of workers, measured points with
// the fitted Amdahl and Gustafson curves and the ideal line; exports as PNG or SVG.
#pragma once

#include <QWidget>

#include "gui/model/scaling.hpp"

class QLabel;
QT_BEGIN_NAMESPACE
class QChart;
class QChartView;
QT_END_NAMESPACE

namespace dtsim::gui {

class ScalingView : public QWidget {
  Q_OBJECT

 public:
  explicit ScalingView(QWidget* parent = nullptr);
  void set_data(const ScalingData* data);
  QChartView* speedup_view() const { return speedup_; }
  QChartView* efficiency_view() const { return efficiency_; }
  // Writes the two charts side by side; the format follows the suffix (.png or .svg).
  bool export_to(const QString& path);

 private:
  QChartView* speedup_;
  QChartView* efficiency_;
  QLabel* summary_;
};

}  // namespace dtsim::gui
