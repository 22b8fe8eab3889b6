// The summary tab.
#include "gui/widgets/summary_view.hpp"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QHorizontalStackedBarSeries>
#include <QLabel>
#include <QLineSeries>
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
  memory_ = new QChartView(this);
  memory_->setRenderHint(QPainter::Antialiasing);
  memory_->hide();
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(headline_);
  layout->addWidget(chart_, 3);
  layout->addWidget(memory_, 2);
  set_metrics(nullptr);
}

QChart* memory_chart(const JobMetrics& job) {
  auto* chart = new QChart;
  chart->setAnimationOptions(QChart::NoAnimation);
  if (!job.memory) return chart;
  const MemoryMetrics& mem = *job.memory;
  double top = 0;
  for (const auto& s : mem.stages) top = std::max(top, s.total_bytes);
  // The device line only when it shares the bars' scale (else the bars would be slivers).
  const bool draw_device = mem.device_bytes > 0 && mem.device_bytes <= 3 * top;
  if (draw_device) top = std::max(top, mem.device_bytes);
  const bool gb = top >= 1e9;
  const double scale = gb ? 1e-9 : 1e-6;
  struct Category {
    const char* name;
    double StageMemory::*bytes;
    unsigned colour;
  };
  const Category categories[] = {{"parameters", &StageMemory::parameters_bytes, kParametersColour},
                                 {"gradients", &StageMemory::gradients_bytes, kGradientsColour},
                                 {"optimizer", &StageMemory::optimizer_bytes, kOptimizerColour},
                                 {"activations", &StageMemory::activations_bytes, kActivationsColour},
                                 {"communication", &StageMemory::communication_bytes, kCommunicationColour}};
  auto* series = new QHorizontalStackedBarSeries;
  for (const auto& c : categories) {
    auto* set = new QBarSet(QObject::tr(c.name));
    set->setColor(QColor::fromRgb(c.colour));
    set->setBorderColor(Qt::transparent);
    for (auto s = mem.stages.rbegin(); s != mem.stages.rend(); ++s) *set << (*s).*(c.bytes) * scale;
    series->append(set);
  }
  series->setBarWidth(0.7);
  chart->addSeries(series);
  // Stages top to bottom (a vertical category axis counts upwards: the last stage comes first).
  QStringList names;
  for (auto s = mem.stages.rbegin(); s != mem.stages.rend(); ++s) {
    QString name = QObject::tr("stage %1").arg(s->stage);
    const std::string ranks = stage_ranks_label(job, s->stage);
    if (!ranks.empty()) name += QStringLiteral(" · %1").arg(QString::fromStdString(ranks));
    if (s->micro_batches_in_flight > 0)
      name += s->micro_batches_in_flight == 1
                  ? QObject::tr(" · 1 micro-batch in flight")
                  : QObject::tr(" · %1 micro-batches in flight").arg(s->micro_batches_in_flight);
    names << name;
  }
  auto* stages = new QBarCategoryAxis;
  stages->append(names);
  auto* bytes = new QValueAxis;
  bytes->setTitleText(gb ? QObject::tr("GB per rank") : QObject::tr("MB per rank"));
  bytes->setLabelFormat("%.4g");
  bytes->setRange(0, top * scale * 1.05);
  bytes->applyNiceNumbers();
  chart->addAxis(stages, Qt::AlignLeft);
  chart->addAxis(bytes, Qt::AlignBottom);
  series->attachAxis(stages);
  series->attachAxis(bytes);
  if (draw_device) {
    auto* device = new QLineSeries;
    device->setName(QObject::tr("device memory (%1)").arg(QString::fromStdString(format_bytes(mem.device_bytes))));
    const double n = static_cast<double>(mem.stages.size());
    device->append(mem.device_bytes * scale, -0.5);
    device->append(mem.device_bytes * scale, n - 0.5);
    device->setPen(QPen(QColor::fromRgb(kDeviceColour), 2, Qt::DashLine));
    chart->addSeries(device);
    device->attachAxis(bytes);
    device->attachAxis(stages);
  }
  const bool fits = mem.fits_device();
  QString title = QObject::tr("Memory per rank by stage: %1").arg(QString::fromStdString(memory_verdict(mem)));
  if (!draw_device && mem.device_bytes > 0)
    title += QObject::tr("<br><small>(the device's %1 is off this scale)</small>")
                 .arg(QString::fromStdString(format_bytes(mem.device_bytes)));
  chart->setTitle(title);
  if (!fits) chart->setTitleBrush(QColor::fromRgb(kDeviceColour));
  chart->legend()->setAlignment(Qt::AlignTop);
  return chart;
}

void SummaryView::set_metrics(const RunMetrics* metrics) {
  auto* chart = new QChart;
  chart->setAnimationOptions(QChart::NoAnimation);
  if (!metrics) {
    chart->setTitle(tr("Open a metrics.json or a run folder to see where the time goes"));
    replace_chart(chart_, chart);
    replace_chart(memory_, new QChart);
    memory_->hide();
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
    if (job.tokens_per_s_per_device)
      head += tr("; %1 tokens/s per device").arg(*job.tokens_per_s_per_device, 0, 'f', 0);
    if (job.mfu && job.hfu)
      head += tr("; MFU %1%, HFU %2%").arg(*job.mfu * 100, 0, 'f', 1).arg(*job.hfu * 100, 0, 'f', 1);
    if (job.bubble_fraction) {
      head += tr("; pipeline bubble %1%").arg(*job.bubble_fraction * 100, 0, 'f', 1);
      if (job.pipeline_bubble_s > 0)
        head += tr(" (%1 of waiting per iteration)")
                    .arg(QString::fromStdString(format_duration_us(job.pipeline_bubble_s * 1e6)));
    }
  }
  if (top.memory) {
    const QString text =
        tr("memory per rank: %1").arg(QString::fromStdString(memory_verdict(*top.memory)).toHtmlEscaped());
    head += top.memory->fits_device() ? "<br>" + text : QStringLiteral("<br><b style='color:#e31a1c'>%1</b>").arg(text);
  }
  headline_->setText(head);
  if (top.memory) {
    replace_chart(memory_, memory_chart(top));
    memory_->show();
  } else {
    replace_chart(memory_, new QChart);
    memory_->hide();
  }

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
