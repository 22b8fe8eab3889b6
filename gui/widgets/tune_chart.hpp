// The tune view's chart: iteration time against peak memory per rank, as `dtsim tune` draws it in
// pareto.svg: the Pareto front of every layout that fits (closed form, a line), the ranked layouts
// the engines ran (points by their most exact engine, that engine's time), the best, the selected
// layout (a ring) and a vertical guide at the memory allowed (device memory x max memory fraction).
#pragma once

#include <vector>

#include <QPointF>

#include "gui/model/tune.hpp"

QT_BEGIN_NAMESPACE
class QChart;
class QScatterSeries;
QT_END_NAMESPACE

namespace dtsim::gui {

struct TuneChart {
  QChart* chart = nullptr;
  QScatterSeries* selected = nullptr;     // empty until a layout is selected
  std::vector<QScatterSeries*> layouts;   // by engine; their points' order is by rank within each
  std::vector<std::vector<int>> rank_of;  // rank_of[series][point]: the ranked index of each point
};

// Where layout `row` of `data` is drawn: (peak memory per rank in GB, iteration time in s), or time per sample in ms
// where the search took each layout's batch within a token budget (TuneData::batch_searched), as it ranked them.
QPointF tune_point(const TuneData& data, const TuneRow& row);
// The chart of a tune; an empty chart asking for a tune folder when `data` is null.
TuneChart make_tune_chart(const TuneData* data);

}  // namespace dtsim::gui
