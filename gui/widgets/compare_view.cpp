// The compare tab.
#include "gui/widgets/compare_view.hpp"

#include <algorithm>
#include <cmath>

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include "gui/model/format.hpp"

namespace dtsim::gui {

std::vector<CompareSide> compare_sides(const RunData& run, const QString& title) {
  std::vector<CompareSide> out;
  if (run.metrics && run.metrics->jobs.size() > 1) {
    for (const auto& job : run.metrics->jobs) {
      CompareSide side;
      side.title = title + " / " + QString::fromStdString(job.job);
      side.metrics = job;
      if (run.trace) {
        std::vector<int> ranks;
        for (const auto& r : job.ranks) ranks.push_back(r.rank);
        side.trace = std::make_shared<Trace>(subset_trace(*run.trace, ranks));
      }
      out.push_back(std::move(side));
    }
    return out;
  }
  CompareSide side;
  side.title = title;
  side.trace = run.trace;
  if (run.metrics) side.metrics = run.metrics->top;
  out.push_back(std::move(side));
  return out;
}

CompareView::CompareView(QWidget* parent) : QWidget(parent) {
  pick_a_ = new QComboBox(this);
  pick_b_ = new QComboBox(this);
  label_a_ = new QLabel(this);
  label_b_ = new QLabel(this);
  top_ = new TimelineWidget(this);
  bottom_ = new TimelineWidget(this);
  table_ = new QTableWidget(this);
  table_->setColumnCount(5);
  table_->setHorizontalHeaderLabels({tr("metric"), tr("A"), tr("B"), tr("B - A"), tr("change")});
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);

  auto* picks = new QHBoxLayout;
  picks->addWidget(new QLabel(tr("A:"), this));
  picks->addWidget(pick_a_, 1);
  picks->addWidget(new QLabel(tr("B:"), this));
  picks->addWidget(pick_b_, 1);
  auto* timelines = new QWidget(this);
  auto* tl = new QVBoxLayout(timelines);
  tl->setContentsMargins(0, 0, 0, 0);
  tl->addWidget(label_a_);
  tl->addWidget(top_, 1);
  tl->addWidget(label_b_);
  tl->addWidget(bottom_, 1);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(timelines);
  split->addWidget(table_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(picks);
  layout->addWidget(split, 1);

  // One time axis: zooming or panning either timeline moves the other.
  connect(top_, &TimelineWidget::axis_changed, bottom_, &TimelineWidget::set_axis);
  connect(bottom_, &TimelineWidget::axis_changed, top_, &TimelineWidget::set_axis);
  auto repick = [this] { show_pair(pick_a_->currentIndex(), pick_b_->currentIndex()); };
  connect(pick_a_, &QComboBox::currentIndexChanged, this, repick);
  connect(pick_b_, &QComboBox::currentIndexChanged, this, repick);
}

void CompareView::set_candidates(std::vector<CompareSide> sides, int a, int b) {
  sides_ = std::move(sides);
  a_ = b_ = -1;
  for (auto* pick : {pick_a_, pick_b_}) {
    const QSignalBlocker block(pick);
    pick->clear();
    for (const auto& s : sides_) pick->addItem(s.title);
  }
  const int n = static_cast<int>(sides_.size());
  a = std::clamp(a, 0, std::max(n - 1, 0));
  b = std::clamp(b, 0, std::max(n - 1, 0));
  {
    const QSignalBlocker ba(pick_a_), bb(pick_b_);
    pick_a_->setCurrentIndex(a);
    pick_b_->setCurrentIndex(b);
  }
  show_pair(n > 0 ? a : -1, n > 0 ? b : -1);
}

void CompareView::show_pair(int a, int b) {
  if (a == a_ && b == b_) return;
  a_ = a;
  b_ = b;
  const CompareSide* sa = a >= 0 && a < static_cast<int>(sides_.size()) ? &sides_[a] : nullptr;
  const CompareSide* sb = b >= 0 && b < static_cast<int>(sides_.size()) ? &sides_[b] : nullptr;
  label_a_->setText(sa ? QStringLiteral("<b>A</b>: ") + sa->title : tr("A: open a run"));
  label_b_->setText(sb ? QStringLiteral("<b>B</b>: ") + sb->title : tr("B: open a second run (File > Add to compare)"));
  top_->set_trace(sa ? sa->trace : nullptr, sa ? sa->job_of_rank : std::vector<std::string>{});
  bottom_->set_trace(sb ? sb->trace : nullptr, sb ? sb->job_of_rank : std::vector<std::string>{});
  // Aligned axes: both fit the union of the two spans.
  double t0 = 0, t1 = 0;
  bool any = false;
  for (const auto* s : {sa, sb}) {
    if (!s || !s->trace) continue;
    t0 = any ? std::min(t0, s->trace->t_min) : s->trace->t_min;
    t1 = any ? std::max(t1, s->trace->t_max) : s->trace->t_max;
    any = true;
  }
  for (auto* t : {top_, bottom_}) {
    t->set_fit_span(t0, t1);
    t->fit();
  }
  fill_table();
}

void CompareView::fill_table() {
  table_->setRowCount(0);
  if (a_ < 0 || b_ < 0 || !sides_[a_].metrics || !sides_[b_].metrics) return;
  const auto deltas = metric_deltas(*sides_[a_].metrics, *sides_[b_].metrics);
  table_->setRowCount(static_cast<int>(deltas.size()));
  auto value = [](double v, const std::string& unit) {
    if (unit == "s") return QString::fromStdString(format_duration_us(v * 1e6));
    if (unit == "B") return QString::fromStdString(format_bytes(v));
    if (unit.empty() && std::fabs(v) <= 1 && v != std::floor(v)) return QStringLiteral("%1%").arg(v * 100, 0, 'f', 1);
    return QString::fromStdString(format_number(v)) + (unit.empty() ? "" : " " + QString::fromStdString(unit));
  };
  for (size_t i = 0; i < deltas.size(); ++i) {
    const auto& d = deltas[i];
    const int row = static_cast<int>(i);
    table_->setItem(row, 0, new QTableWidgetItem(QString::fromStdString(d.name)));
    table_->setItem(row, 1, new QTableWidgetItem(value(d.a, d.unit)));
    table_->setItem(row, 2, new QTableWidgetItem(value(d.b, d.unit)));
    table_->setItem(row, 3, new QTableWidgetItem(value(d.delta(), d.unit)));
    const double rel = d.relative();
    table_->setItem(
        row, 4,
        new QTableWidgetItem(
            std::isnan(rel) ? "-" : QStringLiteral("%1%2%").arg(rel >= 0 ? "+" : "").arg(rel * 100, 0, 'f', 1)));
  }
}

}  // namespace dtsim::gui
