// The summary tab.
#include "gui/widgets/summary_view.hpp"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QLabel>
#include <QStackedBarSeries>
#include <QVBoxLayout>
#include <QValueAxis>

#include "gui/model/format.hpp"

namespace dtsim::gui {

void replace_chart(QChartView* view, QChart* chart) {
  QChart* old = view->chart();
  view->setChart(chart);
  delete old;
}

SummaryView::SummaryView(QWidget* parent) : QWidget(parent) {
  chart_ = new QChartView(this);
  chart_->setRenderHint(QPainter::Antialiasing);
  headline_ = new QLabel(this);
  headline_->setTextFormat(Qt::RichText);
  headline_->setWordWrap(true);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(headline_);
  layout->addWidget(chart_, 1);
  set_metrics(nullptr);
}

void SummaryView::set_metrics(const RunMetrics* metrics) {
  auto* chart = new QChart;
  chart->setAnimationOptions(QChart::NoAnimation);
  if (!metrics) {
    chart->setTitle(tr("Open a metrics.json or a run folder to see where the time goes"));
    replace_chart(chart_, chart);
    headline_->clear();
    return;
  }
  const JobMetrics& top = metrics->top;
  QString head = QStringLiteral("<b>%1</b> &nbsp; engine %2 (%3)")
                     .arg(QString::fromStdString(top.scenario), QString::fromStdString(top.engine),
                          QString::fromStdString(top.fidelity));
  for (const auto& job : metrics->jobs) {
    head += QStringLiteral("<br>%1: iteration %2, %3 samples/s; compute %4%, exposed comm %5%, waiting %6%")
                .arg(job.job.empty() ? tr("run") : QString::fromStdString(job.job))
                .arg(QString::fromStdString(format_duration_us(job.iteration_mean_s * 1e6)))
                .arg(job.throughput, 0, 'f', 0)
                .arg(job.compute_fraction * 100, 0, 'f', 1)
                .arg(job.exposed_comm_fraction * 100, 0, 'f', 1)
                .arg(job.wait_fraction * 100, 0, 'f', 1);
  }
  headline_->setText(head);

  auto* compute = new QBarSet(tr("compute"));
  auto* exposed = new QBarSet(tr("exposed communication"));
  auto* wait = new QBarSet(tr("waiting"));
  compute->setColor(QColor::fromRgb(kComputeColour));
  exposed->setColor(QColor::fromRgb(kExposedColour));
  wait->setColor(QColor::fromRgb(kWaitColour));
  for (auto* s : {compute, exposed, wait}) s->setBorderColor(Qt::transparent);
  QStringList categories;
  double scale = 1e3;  // milliseconds
  for (const auto& job : metrics->jobs) {
    for (const auto& r : job.ranks) {
      QString name = QStringLiteral("%1%2").arg(r.role == "server" ? "s" : "r").arg(r.rank);
      if (metrics->jobs.size() > 1) name = QString::fromStdString(job.job) + " " + name;
      categories << name;
      *compute << r.compute_s * scale;
      *exposed << r.exposed_comm_s * scale;
      *wait << r.wait_s * scale;
    }
  }
  auto* series = new QStackedBarSeries;
  series->append(compute);
  series->append(exposed);
  series->append(wait);
  series->setBarWidth(0.85);
  chart->addSeries(series);
  auto* x = new QBarCategoryAxis;
  x->append(categories);
  x->setLabelsAngle(categories.size() > 16 ? -90 : 0);
  QFont small = x->labelsFont();
  small.setPixelSize(categories.size() > 40 ? 8 : 11);
  x->setLabelsFont(small);
  auto* y = new QValueAxis;
  y->setTitleText(tr("ms per iteration"));
  y->setLabelFormat("%.1f");
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  series->attachAxis(x);
  series->attachAxis(y);
  chart->setTitle(tr("Where time goes per rank: %1").arg(QString::fromStdString(top.scenario)));
  chart->legend()->setAlignment(Qt::AlignTop);
  replace_chart(chart_, chart);
}

}  // namespace dtsim::gui
