// The tune view's chart.
#include "gui/widgets/tune_chart.hpp"

#include <algorithm>
#include <cmath>

#include <QChart>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QValueAxis>

namespace dtsim::gui {
namespace {

constexpr double kGB = 1e9;

void attach(QChart* chart, QAbstractSeries* s, QAbstractAxis* x, QAbstractAxis* y) {
  chart->addSeries(s);
  s->attachAxis(x);
  s->attachAxis(y);
}

QScatterSeries* points(const QString& name, QColor colour, double size,
                       QScatterSeries::MarkerShape shape = QScatterSeries::MarkerShapeCircle) {
  auto* s = new QScatterSeries;
  s->setName(name);
  s->setColor(colour);
  s->setBorderColor(colour.darker(140));
  s->setMarkerSize(size);
  s->setMarkerShape(shape);
  return s;
}

// An iteration's seconds as the chart's y: as they are, or milliseconds a sample where the batch was searched.
double chart_y(const TuneData& d, double seconds, int global_batch) {
  return d.batch_searched && global_batch > 0 ? 1e3 * seconds / global_batch : seconds;
}

}  // namespace

QPointF tune_point(const TuneData& data, const TuneRow& row) {
  return {row.peak_memory_bytes / kGB, chart_y(data, row.iteration_time_s, row.global_batch)};
}

TuneChart make_tune_chart(const TuneData* d) {
  TuneChart out;
  out.chart = new QChart;
  out.chart->setAnimationOptions(QChart::NoAnimation);
  if (!d) {
    out.chart->setTitle(QObject::tr("Open a tune folder (tune.json, from dtsim tune) to see its layouts"));
    return out;
  }
  QChart* chart = out.chart;
  // The range: every point and the memory allowed, unless it is so far beyond the points (a CPU's
  // memory, a small model) that they would crowd at the left: then the title states it.
  const double allowed = d->memory_allowed_bytes() / kGB;
  double x_min = 1e300, x_max = 0, y_min = 1e300, y_max = 0;
  const auto grow = [&](double x, double y) {
    x_min = std::min(x_min, x);
    x_max = std::max(x_max, x);
    y_min = std::min(y_min, y);
    y_max = std::max(y_max, y);
  };
  for (const ParetoPoint& p : d->pareto) grow(p.peak_memory_bytes / kGB, chart_y(*d, p.closed_form_s, p.global_batch));
  for (const TuneRow& r : d->ranked) grow(tune_point(*d, r).x(), tune_point(*d, r).y());
  const bool guide_shown = allowed <= 3 * x_max;
  if (guide_shown) x_min = std::min(x_min, allowed), x_max = std::max(x_max, allowed);
  auto* x = new QValueAxis;
  x->setTitleText(QObject::tr("peak memory per rank (GB)"));
  x->setLabelFormat("%g");
  // From a little left of the leanest layout: the front and the guide fill the width.
  const double x_pad = 0.06 * std::max(x_max - x_min, 0.05 * x_max);
  x->setRange(std::max(0.0, x_min - x_pad), x_max + x_pad);
  x->applyNiceNumbers();
  // Times a decade or more apart (a front from a few layouts that barely fit to many that are
  // fast) read better on a log scale.
  QAbstractAxis* y = nullptr;
  double y_low = 0, y_high = 0;  // the axis' range, for the guide
  if (y_max > 10 * y_min) {
    auto* log = new QLogValueAxis;
    log->setBase(10);
    log->setLabelFormat("%g");
    log->setMinorTickCount(8);
    y_low = y_min / 1.3;
    y_high = y_max * 1.3;
    log->setRange(y_low, y_high);
    y = log;
  } else {
    auto* lin = new QValueAxis;
    lin->setLabelFormat("%g");
    const double pad = 0.1 * std::max(y_max - y_min, 0.1 * y_max);
    lin->setRange(std::max(0.0, y_min - pad), y_max + pad);
    lin->applyNiceNumbers();
    y_low = lin->min();
    y_high = lin->max();
    y = lin;
  }
  y->setTitleText(d->batch_searched ? QObject::tr("time per sample (ms)") : QObject::tr("iteration time (s)"));
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);

  auto* front = new QLineSeries;
  front->setName(QObject::tr("Pareto front (closed form, %1 points)").arg(d->pareto.size()));
  front->setPen(QPen(QColor(0x1f, 0x77, 0xb4), 2));
  front->setPointsVisible(true);
  for (const ParetoPoint& p : d->pareto)
    front->append(p.peak_memory_bytes / kGB, chart_y(*d, p.closed_form_s, p.global_batch));
  attach(chart, front, x, y);

  if (guide_shown) {
    auto* guide = new QLineSeries;
    guide->setName(QObject::tr("memory allowed: %1 GB (%2 % of %3 GB)")
                       .arg(allowed, 0, 'f', 1)
                       .arg(100 * d->max_memory_fraction, 0, 'g', 3)
                       .arg(d->device_memory_bytes / kGB, 0, 'f', 1));
    guide->setPen(QPen(QColor(0x88, 0x88, 0x88), 2, Qt::DashLine));
    guide->append(allowed, y_low);
    guide->append(allowed, y_high);
    attach(chart, guide, x, y);
  }

  // The ranked layouts by their most exact engine, SimGrid on top.
  const struct {
    TuneEngine engine;
    QColor colour;
  } engines[] = {{TuneEngine::ClosedForm, QColor(0xaa, 0xaa, 0xaa)},
                 {TuneEngine::Analytical, QColor(0xff, 0x7f, 0x0e)},
                 {TuneEngine::SimGrid, QColor(0x2c, 0xa0, 0x2c)}};
  for (const auto& [engine, colour] : engines) {
    std::vector<int> ranks;
    for (size_t i = 0; i < d->ranked.size(); ++i)
      if (d->ranked[i].most_exact_engine() == engine) ranks.push_back(static_cast<int>(i));
    if (ranks.empty()) continue;
    const QString what = engine == TuneEngine::ClosedForm
                             ? QObject::tr("ranked, closed form only")
                             : QObject::tr("ran on %1")
                                   .arg(QString::fromUtf8(tune_engine_name(engine).data(),
                                                          static_cast<int>(tune_engine_name(engine).size())));
    auto* s = points(QObject::tr("%1 (%2)").arg(what).arg(ranks.size()), colour, 10);
    for (int i : ranks) s->append(tune_point(*d, d->ranked[static_cast<size_t>(i)]));
    attach(chart, s, x, y);
    out.layouts.push_back(s);
    out.rank_of.push_back(std::move(ranks));
  }

  const TuneRow& best = d->ranked.front();
  auto* b = points(QObject::tr("the best: %1").arg(QString::fromStdString(best.layout)), QColor(0xd6, 0x27, 0x28), 16,
                   QScatterSeries::MarkerShapeStar);
  b->append(tune_point(*d, best));
  attach(chart, b, x, y);

  out.selected = points(QObject::tr("selected"), Qt::transparent, 24);
  out.selected->setBorderColor(Qt::black);
  out.selected->setPen(QPen(Qt::black, 2.5));
  attach(chart, out.selected, x, y);

  QString title = QObject::tr("%1 on %2 devices: %3 against memory per rank")
                      .arg(QString::fromStdString(d->scenario))
                      .arg(d->devices)
                      .arg(d->batch_searched ? QObject::tr("time per sample") : QObject::tr("iteration time"));
  if (!guide_shown)
    title += QObject::tr(" (memory allowed: %1 GB, %2 x the most any layout here needs)")
                 .arg(allowed, 0, 'f', 1)
                 .arg(allowed / x_max, 0, 'f', 0);
  chart->setTitle(title);
  chart->legend()->setAlignment(Qt::AlignBottom);
  return out;
}

}  // namespace dtsim::gui
