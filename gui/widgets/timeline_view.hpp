// The timeline tab: a toolbar (label filter, one rank per pipeline stage, fit, legend of the kinds
// present), the timeline, and a side panel with the selected op's details.
#pragma once

#include <memory>

#include <QWidget>

#include "gui/model/document.hpp"
#include "gui/widgets/timeline_widget.hpp"

class QCheckBox;
class QLineEdit;
class QTextBrowser;
class QLabel;

namespace dtsim::gui {

class TimelineView : public QWidget {
  Q_OBJECT

 public:
  explicit TimelineView(QWidget* parent = nullptr);
  void set_run(const RunData& run);
  TimelineWidget* timeline() const { return timeline_; }
  QLineEdit* filter() const { return filter_; }
  QCheckBox* representatives() const { return representatives_; }

 private:
  void show_details(long event);
  void update_legend();

  TimelineWidget* timeline_;
  QLineEdit* filter_;
  QCheckBox* representatives_;
  QLabel* legend_;
  QTextBrowser* details_;
};

// The legend of a trace's kinds as rich text (coloured squares), in palette order.
QString kind_legend_html(const Trace& trace);

}  // namespace dtsim::gui
