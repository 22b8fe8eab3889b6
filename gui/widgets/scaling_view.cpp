// The scaling tab.
#include "gui/widgets/scaling_view.hpp"

#include <algorithm>
#include <cmath>

#include <QChart>
#include <QChartView>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPainter>
#include <QScatterSeries>
#include <QSvgGenerator>
#include <QVBoxLayout>
#include <QValueAxis>

#include "gui/widgets/summary_view.hpp"

namespace dtsim::gui {
namespace {

QLineSeries* curve(const QString& name, QColor colour, Qt::PenStyle style, double n_max, auto&& f) {
  auto* s = new QLineSeries;
  s->setName(name);
  QPen pen(colour, 2, style);
  s->setPen(pen);
  for (int i = 0; i <= 200; ++i) {
    const double n = std::pow(n_max, i / 200.0);  // log-spaced from 1 to n_max
    s->append(n, f(n));
  }
  return s;
}

void attach(QChart* chart, QAbstractSeries* s, QAbstractAxis* x, QAbstractAxis* y) {
  chart->addSeries(s);
  s->attachAxis(x);
  s->attachAxis(y);
}

QChart* make_chart(const ScalingData& d, bool efficiency) {
  auto* chart = new QChart;
  chart->setAnimationOptions(QChart::NoAnimation);
  double n_max = 1;
  for (const auto& p : d.points) n_max = std::max(n_max, static_cast<double>(p.workers));
  n_max *= 2;
  auto* x = new QLogValueAxis;
  x->setBase(2);
  x->setLabelFormat("%g");
  x->setTitleText(QObject::tr("workers N"));
  x->setRange(1, n_max);
  x->setMinorTickCount(0);
  auto* y = new QValueAxis;
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  const auto per_n = [efficiency](double s, double n) { return efficiency ? s / n : s; };
  attach(chart, curve(QObject::tr("ideal"), Qt::gray, Qt::DashLine, n_max, [&](double n) { return per_n(n, n); }), x,
         y);
  if (d.amdahl) {
    const double p = d.amdahl->p;
    attach(
        chart,
        curve(QObject::tr("Amdahl p=%1 (R²=%2)").arg(p, 0, 'f', 4).arg(d.amdahl->r2, 0, 'f', 3),
              QColor(0xd6, 0x27, 0x28), Qt::SolidLine, n_max, [&](double n) { return per_n(amdahl_speedup(p, n), n); }),
        x, y);
  }
  if (d.gustafson) {
    const double p = d.gustafson->p;
    attach(chart,
           curve(QObject::tr("Gustafson p=%1 (R²=%2)").arg(p, 0, 'f', 4).arg(d.gustafson->r2, 0, 'f', 3),
                 QColor(0x2c, 0xa0, 0x2c), Qt::DashDotLine, n_max,
                 [&](double n) { return per_n(gustafson_speedup(p, n), n); }),
           x, y);
  }
  auto* measured = new QScatterSeries;
  measured->setName(QObject::tr("measured (%1 scaling)").arg(QString::fromStdString(d.mode)));
  measured->setMarkerSize(11);
  measured->setColor(QColor(0x1f, 0x4e, 0x9a));
  double y_max = efficiency ? 1.1 : 1;
  for (const auto& p : d.points) {
    const double v = efficiency ? p.efficiency : p.speedup;
    measured->append(p.workers, v);
    y_max = std::max(y_max, v * 1.15);
  }
  attach(chart, measured, x, y);
  if (efficiency) {
    auto* threshold = new QLineSeries;
    threshold->setName(QObject::tr("threshold %1").arg(d.efficiency_threshold));
    threshold->setPen(QPen(QColor(0xff, 0x7f, 0x0e), 1, Qt::DotLine));
    threshold->append(1, d.efficiency_threshold);
    threshold->append(n_max, d.efficiency_threshold);
    attach(chart, threshold, x, y);
    y->setRange(0, 1.2);
    y->setTickCount(7);
  } else {
    if (d.mode == "strong" && d.amdahl) y_max = std::min(std::max(y_max, 2.0), n_max);
    y->setRange(0, y_max);
    y->applyNiceNumbers();
  }
  y->setTitleText(efficiency ? QObject::tr("efficiency S/N") : QObject::tr("speedup S"));
  chart->setTitle(efficiency ? QObject::tr("Efficiency")
                             : QObject::tr("Speedup: %1").arg(QString::fromStdString(d.scenario)));
  chart->legend()->setAlignment(Qt::AlignBottom);
  return chart;
}

}  // namespace

ScalingView::ScalingView(QWidget* parent) : QWidget(parent) {
  speedup_ = new QChartView(this);
  efficiency_ = new QChartView(this);
  for (auto* v : {speedup_, efficiency_}) v->setRenderHint(QPainter::Antialiasing);
  summary_ = new QLabel(this);
  summary_->setTextFormat(Qt::RichText);
  summary_->setWordWrap(true);
  auto* charts = new QHBoxLayout;
  charts->addWidget(speedup_);
  charts->addWidget(efficiency_);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(summary_);
  layout->addLayout(charts, 1);
  set_data(nullptr);
}

void ScalingView::set_data(const ScalingData* d) {
  if (!d) {
    auto* empty = new QChart;
    empty->setTitle(tr("Open a sweep folder (scaling.json) to see speedup and efficiency"));
    replace_chart(speedup_, empty);
    replace_chart(efficiency_, new QChart);
    summary_->clear();
    return;
  }
  replace_chart(speedup_, make_chart(*d, false));
  replace_chart(efficiency_, make_chart(*d, true));
  QString text =
      tr("<b>%1</b>: %2 scaling over %3")
          .arg(QString::fromStdString(d->scenario), QString::fromStdString(d->mode), QString::fromStdString(d->param));
  if (d->amdahl)
    text += tr(" &nbsp; Amdahl: parallel fraction p = %1, speedup at most %2")
                .arg(d->amdahl->p, 0, 'f', 4)
                .arg(d->amdahl->max_speedup, 0, 'f', 1);
  if (d->gustafson) text += tr(" &nbsp; Gustafson: p = %1").arg(d->gustafson->p, 0, 'f', 4);
  if (d->efficiency_below_threshold_at)
    text += tr(" &nbsp; efficiency falls below %1 at N = %2")
                .arg(d->efficiency_threshold)
                .arg(*d->efficiency_below_threshold_at);
  summary_->setText(text);
}

bool ScalingView::export_to(const QString& path) {
  const QSize one = speedup_->size().expandedTo(QSize(560, 420));
  const QSize size(one.width() * 2, one.height());
  auto paint = [&](QPainter& p) {
    // QWidget's render (QChartView's own is QGraphicsView's scene render).
    static_cast<QWidget*>(speedup_)->render(&p, QPoint(0, 0));
    static_cast<QWidget*>(efficiency_)->render(&p, QPoint(one.width(), 0));
  };
  if (path.endsWith(".svg", Qt::CaseInsensitive)) {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(size);
    svg.setViewBox(QRect(QPoint(0, 0), size));
    svg.setTitle(tr("dtsim scaling"));
    QPainter p;
    if (!p.begin(&svg)) return false;
    paint(p);
    return p.end();
  }
  QImage image(size, QImage::Format_ARGB32);
  image.fill(Qt::white);
  QPainter p(&image);
  paint(p);
  p.end();
  return image.save(path);
}

}  // namespace dtsim::gui
