// The timeline tab.
#include "gui/widgets/timeline_view.hpp"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "gui/model/format.hpp"

namespace dtsim::gui {

QString kind_legend_html(const Trace& trace) {
  QString html;
  for (size_t i = 0; i < trace.kinds.size(); ++i) {
    const auto& k = trace.kinds.info(static_cast<uint16_t>(i));
    html += QStringLiteral("<span style='color:#%1'>&#9632;</span>&nbsp;%2&nbsp;&nbsp; ")
                .arg(k.colour, 6, 16, QChar('0'))
                .arg(QString::fromStdString(k.label).toHtmlEscaped());
  }
  return html;
}

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) {
  timeline_ = new TimelineWidget(this);
  filter_ = new QLineEdit(this);
  filter_->setPlaceholderText(tr("Filter ops by label or kind (regular expression), e.g. allreduce|wait"));
  filter_->setClearButtonEnabled(true);
  representatives_ = new QCheckBox(tr("One rank per stage"), this);
  representatives_->setToolTip(
      tr("Show one representative rank per pipeline stage, or every rank (R). Every rank of a stage runs "
         "the same timeline when nothing contends."));
  representatives_->hide();
  auto* fit = new QPushButton(tr("Fit"), this);
  fit->setToolTip(tr("Show the whole run (F)"));
  legend_ = new QLabel(this);
  legend_->setTextFormat(Qt::RichText);
  legend_->setWordWrap(true);
  details_ = new QTextBrowser(this);
  details_->setMinimumWidth(220);
  details_->setHtml(
      tr("<i>Click an op to see its details; hover for a tooltip.</i><br><br>Wheel: zoom around the cursor<br>"
         "Shift+wheel: scroll lanes<br>Drag: pan<br>F: fit<br>Esc: clear selection<br>"
         "R: one rank per pipeline stage / all ranks<br><br>"
         "Pipeline runs: the number in a bar is its micro-batch (forward, recompute and backward of one "
         "micro-batch carry the same number)."));

  auto* bar = new QHBoxLayout;
  bar->addWidget(filter_, 1);
  bar->addWidget(representatives_);
  bar->addWidget(fit);
  auto* left = new QWidget(this);
  auto* left_layout = new QVBoxLayout(left);
  left_layout->setContentsMargins(0, 0, 0, 0);
  left_layout->addLayout(bar);
  left_layout->addWidget(legend_);
  left_layout->addWidget(timeline_, 1);
  auto* split = new QSplitter(this);
  split->addWidget(left);
  split->addWidget(details_);
  split->setStretchFactor(0, 1);
  split->setSizes({1000, 240});
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(split);

  connect(fit, &QPushButton::clicked, timeline_, &TimelineWidget::fit);
  connect(filter_, &QLineEdit::textChanged, this, [this](const QString& text) {
    const bool ok = timeline_->set_filter(text);
    filter_->setStyleSheet(ok ? QString() : QStringLiteral("background:#fdd"));
  });
  connect(timeline_, &TimelineWidget::selection_changed, this, &TimelineView::show_details);
  connect(representatives_, &QCheckBox::toggled, timeline_, &TimelineWidget::set_stage_representatives);
  connect(timeline_, &TimelineWidget::stage_representatives_changed, representatives_, [this](bool on) {
    const QSignalBlocker block(representatives_);
    representatives_->setChecked(on);
  });
}

void TimelineView::set_run(const RunData& run) {
  timeline_->set_trace(run.trace, run.metrics ? run.metrics->job_of_rank() : std::vector<std::string>{});
  representatives_->setVisible(run.trace && run.trace->has_stages());
  representatives_->setChecked(timeline_->stage_representatives());
  update_legend();
}

void TimelineView::update_legend() {
  legend_->setText(timeline_->trace() ? kind_legend_html(*timeline_->trace()) : QString());
}

void TimelineView::show_details(long event) {
  const Trace* trace = timeline_->trace();
  if (!trace || event < 0) {
    details_->setHtml(tr("<i>No op selected.</i>"));
    return;
  }
  QString html = "<h3>" + QString::fromStdString(trace->strings.at(trace->events[event].name)).toHtmlEscaped() +
                 "</h3><table cellspacing=4>";
  for (const auto& [k, v] : event_details(*trace, static_cast<size_t>(event)))
    html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>")
                .arg(QString::fromStdString(k).toHtmlEscaped(), QString::fromStdString(v).toHtmlEscaped());
  details_->setHtml(html + "</table>");
}

}  // namespace dtsim::gui
