// The tune tab.
#include "gui/widgets/tune_view.hpp"

#include <cmath>
#include <limits>

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QClipboard>
#include <QCursor>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScatterSeries>
#include <QScrollBar>
#include <QSplitter>
#include <QTableWidget>
#include <QToolTip>
#include <QVBoxLayout>

#include "gui/model/format.hpp"
#include "gui/widgets/summary_view.hpp"

namespace dtsim::gui {
namespace {

constexpr int kIndexRole = Qt::UserRole + 1;  // column 0: the row's ranked index
constexpr int kSortRole = Qt::UserRole;       // every numeric column: the value it sorts by
const QColor kBestColour(0xff, 0xe8, 0xa0);

// A cell that sorts by its number rather than its text; a missing value sorts last.
class NumberItem : public QTableWidgetItem {
 public:
  NumberItem(const QString& text, double value) : QTableWidgetItem(text) {
    setData(kSortRole, value);
    setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  }
  bool operator<(const QTableWidgetItem& other) const override {
    return data(kSortRole).toDouble() < other.data(kSortRole).toDouble();
  }
};

QString q(const std::string& s) { return QString::fromStdString(s); }
QString q(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<int>(s.size())); }

QTableWidgetItem* seconds(std::optional<double> s) {
  if (!s) return new NumberItem(QStringLiteral("-"), std::numeric_limits<double>::infinity());
  return new NumberItem(q(format_duration_us(*s * 1e6)), *s);
}

QTableWidgetItem* percent(double fraction) {
  return new NumberItem(QStringLiteral("%1 %").arg(100 * fraction, 0, 'f', 1), fraction);
}

QString header_text(const TuneData& d) {
  QString devices = QObject::tr("%1 devices").arg(d.devices);
  if (d.device_counts.size() > 1) {
    QStringList counts;
    for (int c : d.device_counts) counts << QString::number(c);
    devices += QObject::tr(" (searched %1)").arg(counts.join(", "));
  }
  const QString batch = d.batch_searched ? QObject::tr("%1 to %2 tokens a step (each layout at its own global batch)")
                                               .arg(d.min_tokens, 0, 'f', 0)
                                               .arg(d.max_tokens, 0, 'f', 0)
                                         : QObject::tr("global batch %1").arg(d.global_batch);
  QString text = QObject::tr("<b>%1</b> &nbsp;·&nbsp; %2 &nbsp;·&nbsp; %3 &nbsp;·&nbsp; objective <b>%4</b>")
                     .arg(q(d.scenario).toHtmlEscaped(), devices, batch, q(d.objective).toHtmlEscaped());
  text += QObject::tr("<br>%1 layouts valid: %2 fit in the memory allowed (%3 = %4 % of %5), %6 over")
              .arg(d.layouts)
              .arg(d.fitting_layouts())
              .arg(q(format_bytes(d.memory_allowed_bytes())))
              .arg(100 * d.max_memory_fraction, 0, 'g', 3)
              .arg(q(format_bytes(d.device_memory_bytes)))
              .arg(d.over_memory);
  if (d.over_memory > 0 && !d.commonest_overflow.empty())
    text += QObject::tr(" (most often by their %1)").arg(q(d.commonest_overflow).toHtmlEscaped());
  int analytical = 0, simgrid = 0;
  for (const TuneRow& r : d.ranked) {
    analytical += r.time_on(TuneEngine::Analytical).has_value();
    simgrid += r.time_on(TuneEngine::SimGrid).has_value();
  }
  text += QObject::tr(" &nbsp;·&nbsp; %1 ranked, %2 on the analytical engine, %3 on SimGrid")
              .arg(d.ranked.size())
              .arg(analytical)
              .arg(simgrid);
  if (d.closed_form_seconds && d.engine_seconds)
    text += QObject::tr(" (search: %1 s closed form, %2 s engines)")
                .arg(*d.closed_form_seconds, 0, 'f', 2)
                .arg(*d.engine_seconds, 0, 'f', 1);
  return text;
}

}  // namespace

TuneView::TuneView(QWidget* parent) : QWidget(parent) {
  header_ = new QLabel(this);
  header_->setTextFormat(Qt::RichText);
  header_->setWordWrap(true);
  header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  command_ = new QLineEdit(this);
  command_->setReadOnly(true);
  command_->setPlaceholderText(tr("the dtsim run command of the selected layout"));
  copy_ = new QPushButton(tr("Copy"), this);
  copy_->setToolTip(tr("Copy the dtsim run command of the selected layout"));
  connect(copy_, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(command_->text()); });
  auto* command_row = new QHBoxLayout;
  command_row->addWidget(new QLabel(tr("Run it:"), this));
  command_row->addWidget(command_, 1);
  command_row->addWidget(copy_);

  table_ = new QTableWidget(this);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->verticalHeader()->hide();
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);  // compact rows
  table_->horizontalHeader()->setStretchLastSection(true);
  connect(table_, &QTableWidget::itemSelectionChanged, this, &TuneView::on_selection);
  chart_view_ = new QChartView(this);
  chart_view_->setRenderHint(QPainter::Antialiasing);

  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(table_);
  split->addWidget(chart_view_);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  split->setSizes({400, 600});  // the chart gets the larger part
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(header_);
  layout->addLayout(command_row);
  layout->addWidget(split, 1);
  set_data(nullptr);
}

void TuneView::set_data(const TuneData* d) {
  data_.reset();
  if (d) data_ = *d;
  chart_ = make_tune_chart(d);
  replace_chart(chart_view_, chart_.chart);
  for (size_t s = 0; s < chart_.layouts.size(); ++s) {
    QScatterSeries* series = chart_.layouts[s];
    const std::vector<int> ranks = chart_.rank_of[s];
    // A click on a point selects its row; hovering names its layout.
    const auto nearest = [series, ranks](const QPointF& p) {
      int best = -1;
      double best_d = std::numeric_limits<double>::infinity();
      const QList<QPointF> pts = series->points();
      for (int i = 0; i < pts.size(); ++i) {
        const double dd = std::hypot(pts[i].x() - p.x(), pts[i].y() - p.y());
        if (dd < best_d) best_d = dd, best = i;
      }
      return best < 0 ? -1 : ranks[static_cast<size_t>(best)];
    };
    connect(series, &QScatterSeries::clicked, this, [this, nearest](const QPointF& p) { select_layout(nearest(p)); });
    connect(series, &QScatterSeries::hovered, this, [this, nearest](const QPointF& p, bool on) {
      const int i = nearest(p);
      if (!on || i < 0 || !data_) return QToolTip::hideText();
      const TuneRow& r = data_->ranked[static_cast<size_t>(i)];
      QToolTip::showText(QCursor::pos(),
                         tr("#%1 %2\n%3 per iteration (%4), %5 per rank")
                             .arg(i + 1)
                             .arg(q(r.layout), q(format_duration_us(r.iteration_time_s * 1e6)),
                                  q(tune_engine_name(r.most_exact_engine())), q(format_bytes(r.peak_memory_bytes))));
    });
  }
  header_->setText(d ? header_text(*d) : QString());
  fill_table();
  // Until a row is selected, the command is the best's.
  command_->setText(d ? q(d->run_command(0)) : QString());
  command_->setCursorPosition(0);
}

void TuneView::fill_table() {
  table_->setSortingEnabled(false);
  table_->clear();
  table_->setRowCount(0);
  table_->setMaximumHeight(QWIDGETSIZE_MAX);
  if (!data_) {
    table_->setColumnCount(0);
    return;
  }
  const TuneData& d = *data_;
  const bool counts = d.objective != "time" || d.device_counts.size() > 1;
  const std::vector<std::string> kinds = d.exposed_kinds();
  QStringList headers{tr("#"), tr("layout"), tr("devices")};
  std::vector<TuneEngine> engines;
  for (TuneEngine e : {TuneEngine::ClosedForm, TuneEngine::Analytical, TuneEngine::SimGrid}) {
    if (!d.engine_ran(e)) continue;
    engines.push_back(e);
    headers << tr("%1 s").arg(q(tune_engine_name(e)));
  }
  headers << tr("samples/s") << tr("MFU") << tr("bubble") << tr("peak memory");
  if (counts) headers << tr("device-s/sample");
  for (const std::string& k : kinds) headers << tr("exposed %1 s").arg(q(k));
  table_->setColumnCount(static_cast<int>(headers.size()));
  table_->setHorizontalHeaderLabels(headers);
  table_->setRowCount(static_cast<int>(d.ranked.size()));
  for (int i = 0; i < static_cast<int>(d.ranked.size()); ++i) {
    const TuneRow& r = d.ranked[static_cast<size_t>(i)];
    std::vector<QTableWidgetItem*> cells;
    auto* rank = new NumberItem(i == 0 ? tr("1 (best)") : QString::number(i + 1), i);
    rank->setData(kIndexRole, i);
    cells.push_back(rank);
    cells.push_back(new QTableWidgetItem(q(r.layout)));
    cells.push_back(new NumberItem(QString::number(r.devices), r.devices));
    for (TuneEngine e : engines) cells.push_back(seconds(r.time_on(e)));
    cells.push_back(new NumberItem(q(format_number(r.throughput_samples_per_s)), r.throughput_samples_per_s));
    cells.push_back(percent(r.mfu));
    cells.push_back(percent(r.bubble_fraction));
    cells.push_back(new NumberItem(q(format_bytes(r.peak_memory_bytes)), r.peak_memory_bytes));
    if (counts)
      cells.push_back(new NumberItem(q(format_number(r.device_seconds_per_sample)), r.device_seconds_per_sample));
    for (const std::string& k : kinds) cells.push_back(seconds(r.exposed(k).value_or(0)));
    const QString tip = tr("%1 on %2 devices; the time ranked by: %3")
                            .arg(q(r.layout))
                            .arg(r.devices)
                            .arg(q(tune_engine_name(r.most_exact_engine())));
    for (size_t c = 0; c < cells.size(); ++c) {
      cells[c]->setToolTip(tip);
      if (i == 0) {  // the best: shaded and bold
        cells[c]->setBackground(kBestColour);
        QFont f = cells[c]->font();
        f.setBold(true);
        cells[c]->setFont(f);
      }
      table_->setItem(i, static_cast<int>(c), cells[c]);
    }
  }
  table_->resizeColumnsToContents();
  // No taller than its rows (and a scroll bar), so a short table leaves the chart the room.
  const int rows_height = table_->horizontalHeader()->sizeHint().height() +
                          table_->rowCount() * table_->verticalHeader()->defaultSectionSize() +
                          table_->horizontalScrollBar()->sizeHint().height() + 2 * table_->frameWidth();
  table_->setMaximumHeight(rows_height);
  table_->setSortingEnabled(true);
  table_->sortByColumn(0, Qt::AscendingOrder);
}

int TuneView::row_of(int index) const {
  for (int row = 0; row < table_->rowCount(); ++row) {
    const QTableWidgetItem* item = table_->item(row, 0);
    if (item && item->data(kIndexRole).toInt() == index) return row;
  }
  return -1;
}

int TuneView::selected_layout() const {
  const QList<QTableWidgetItem*> items = table_->selectedItems();
  if (items.isEmpty()) return -1;
  const QTableWidgetItem* first = table_->item(items.front()->row(), 0);
  return first ? first->data(kIndexRole).toInt() : -1;
}

void TuneView::select_layout(int index) {
  const int row = row_of(index);
  if (row < 0) return;
  table_->selectRow(row);
  table_->scrollToItem(table_->item(row, 0));
}

std::optional<QPointF> TuneView::selected_point() const {
  if (!chart_.selected || chart_.selected->count() == 0) return std::nullopt;
  return chart_.selected->at(0);
}

void TuneView::on_selection() {
  if (!data_ || !chart_.selected) return;
  const int i = selected_layout();
  chart_.selected->clear();
  if (i < 0) {
    command_->setText(q(data_->run_command(0)));
    return;
  }
  const TuneRow& r = data_->ranked[static_cast<size_t>(i)];
  chart_.selected->append(tune_point(*data_, r));
  chart_.selected->setName(tr("selected: #%1 %2").arg(i + 1).arg(q(r.layout)));
  command_->setText(q(data_->run_command(static_cast<size_t>(i))));
  command_->setCursorPosition(0);
}

}  // namespace dtsim::gui
