// The tune tab: what `dtsim tune` found (tune.json). A header (scenario, devices, global batch,
// objective, layouts valid and over memory), the `dtsim run` command of the selected layout (to
// copy), a sortable table of the ranked layouts (each engine's time, samples/s, MFU, bubble, peak
// memory, exposed communication by kind; the best highlighted) and the chart of iteration time
// against memory per rank (tune_chart.hpp), where the selected row's layout is ringed. Clicking a
// point selects its row.
#pragma once

#include <optional>

#include <QPointF>
#include <QWidget>

#include "gui/model/tune.hpp"
#include "gui/widgets/tune_chart.hpp"

class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;
QT_BEGIN_NAMESPACE
class QChartView;
QT_END_NAMESPACE

namespace dtsim::gui {

class TuneView : public QWidget {
  Q_OBJECT

 public:
  explicit TuneView(QWidget* parent = nullptr);
  void set_data(const TuneData* data);

  QLabel* header() const { return header_; }
  QLineEdit* command() const { return command_; }
  QPushButton* copy_button() const { return copy_; }
  QTableWidget* table() const { return table_; }
  QChartView* chart_view() const { return chart_view_; }
  // The table row showing ranked layout `index` (rows move when sorted); -1 when none.
  int row_of(int index) const;
  // The ranked index of the selected row; -1 when none.
  int selected_layout() const;
  void select_layout(int index);
  // The ringed point on the chart.
  std::optional<QPointF> selected_point() const;

 private:
  void fill_table();
  void on_selection();

  std::optional<TuneData> data_;
  QLabel* header_;
  QLineEdit* command_;
  QPushButton* copy_;
  QTableWidget* table_;
  QChartView* chart_view_;
  TuneChart chart_;
};

}  // namespace dtsim::gui
