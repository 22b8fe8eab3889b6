// The tune view (gui/widgets/tune_view.hpp) offscreen on the sample tune of GPT-3 175B: a row per
// ranked layout with the best highlighted, sorting, the header, the chart's series, selection by
// row and by point, hover and copy, the main window picking the view, screenshots, and a bad file's error.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QClipboard>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QPushButton>
#include <QScatterSeries>
#include <QTableWidget>
#include <QToolTip>

#include "gui/model/document.hpp"
#include "gui/widgets/main_window.hpp"
#include "gui/widgets/screenshot.hpp"
#include "gui/widgets/tune_view.hpp"
#include "gui_fixtures.hpp"

using namespace dtsim::gui;

namespace {

const TuneData& sample() {
  static const TuneData d = load_tune(dtsim::test::sample_tune());
  return d;
}

int column(const QTableWidget* t, const QString& name) {
  for (int c = 0; c < t->columnCount(); ++c)
    if (t->horizontalHeaderItem(c)->text() == name) return c;
  return -1;
}

template <class Series>
Series* series_named(QChart* chart, const QString& prefix) {
  for (QAbstractSeries* s : chart->series())
    if (s->name().startsWith(prefix)) return dynamic_cast<Series*>(s);
  return nullptr;
}

}  // namespace

TEST_CASE("the tune table has a row per ranked layout, the best highlighted, each engine's time") {
  TuneView v;
  v.resize(1400, 800);
  v.set_data(&sample());
  const TuneData& d = sample();
  QTableWidget* t = v.table();
  REQUIRE(t->rowCount() == static_cast<int>(d.ranked.size()));
  for (const char* name : {"layout", "devices", "closed form s", "analytical s", "SimGrid s", "samples/s", "MFU",
                           "bubble", "peak memory", "exposed tensor s", "exposed pipeline s", "exposed data s"}) {
    INFO(name);
    CHECK(column(t, name) >= 0);
  }
  const int best = v.row_of(0);
  REQUIRE(best >= 0);
  for (int row = 0; row < t->rowCount(); ++row) {
    const bool is_best = row == best;
    CHECK(t->item(row, 1)->font().bold() == is_best);
    CHECK((t->item(row, 1)->background().color() == QColor(0xff, 0xe8, 0xa0)) == is_best);
  }
  CHECK(t->item(best, column(t, "layout"))->text().toStdString() == d.ranked[0].layout);
  // Only the best ran on SimGrid (--top 1): the others show a dash.
  const int simgrid = column(t, "SimGrid s");
  CHECK(t->item(v.row_of(1), simgrid)->text() == "-");
  CHECK(t->item(best, simgrid)->text() != "-");

  // Sorting by peak memory puts the leanest layout first; the best stays highlighted.
  t->sortByColumn(column(t, "peak memory"), Qt::AscendingOrder);
  size_t leanest = 0;
  for (size_t i = 1; i < d.ranked.size(); ++i)
    if (d.ranked[i].peak_memory_bytes < d.ranked[leanest].peak_memory_bytes) leanest = i;
  CHECK(v.row_of(static_cast<int>(leanest)) == 0);
  CHECK(t->item(v.row_of(0), 1)->font().bold());
  // Numbers sort as numbers, not as text ("9" after "10").
  const int samples = column(t, "samples/s");
  t->sortByColumn(samples, Qt::DescendingOrder);
  for (int row = 1; row < t->rowCount(); ++row)
    CHECK(t->item(row - 1, samples)->data(Qt::UserRole).toDouble() >=
          t->item(row, samples)->data(Qt::UserRole).toDouble());
}

TEST_CASE("the tune header and chart: search, front, engines' points, the best and the memory allowed") {
  TuneView v;
  v.resize(1400, 800);
  const TuneData& d = sample();
  v.set_data(&d);
  const QString head = v.header()->text();
  for (const QString& part : {QString::fromStdString(d.scenario), QString("%1 devices").arg(d.devices),
                              QString("global batch %1").arg(d.global_batch), QString("objective <b>time</b>"),
                              QString("%1 layouts valid").arg(d.layouts), QString("%1 over").arg(d.over_memory),
                              QString("most often by their activations")}) {
    INFO(part.toStdString());
    CHECK(head.contains(part));
  }
  CHECK(v.command()->text().toStdString() == d.run_command(0));  // before any selection: the best's

  QChart* chart = v.chart_view()->chart();
  auto* front = series_named<QLineSeries>(chart, "Pareto front");
  REQUIRE(front);
  REQUIRE(front->count() == static_cast<int>(d.pareto.size()));
  CHECK(front->at(0).x() == Approx(d.pareto[0].peak_memory_bytes / 1e9));
  auto* guide = series_named<QLineSeries>(chart, "memory allowed");
  REQUIRE(guide);
  CHECK(guide->at(0).x() == Approx(d.memory_allowed_bytes() / 1e9));
  CHECK(guide->at(1).x() == Approx(d.memory_allowed_bytes() / 1e9));
  auto* analytical = series_named<QScatterSeries>(chart, "ran on analytical");
  auto* simgrid = series_named<QScatterSeries>(chart, "ran on SimGrid");
  REQUIRE(analytical);
  REQUIRE(simgrid);
  CHECK(analytical->count() + simgrid->count() == static_cast<int>(d.ranked.size()));
  auto* best = series_named<QScatterSeries>(chart, "the best");
  REQUIRE(best);
  REQUIRE(best->count() == 1);
  CHECK(best->at(0) == tune_point(d, d.ranked[0]));
  CHECK(!v.selected_point());

  // A memory far beyond every layout's (a CPU's) is stated in the title, not drawn at the far right.
  TuneData roomy = d;
  roomy.device_memory_bytes = 100 * d.ranked[0].peak_memory_bytes;
  v.set_data(&roomy);
  CHECK(!series_named<QLineSeries>(v.chart_view()->chart(), "memory allowed"));
  CHECK(v.chart_view()->chart()->title().contains("memory allowed"));
}

TEST_CASE("selecting a row rings its point and gives its command, clicking a point selects its row") {
  TuneView v;
  v.resize(1400, 800);
  const TuneData& d = sample();
  v.set_data(&d);
  v.select_layout(2);
  CHECK(v.selected_layout() == 2);
  REQUIRE(v.selected_point());
  CHECK(*v.selected_point() == tune_point(d, d.ranked[2]));
  CHECK(v.command()->text().toStdString() == d.run_command(2));
  CHECK(d.ranked[2].layout.rfind("t8 p8", 0) == 0);  // tests/gui/data/tune's third layout
  CHECK(v.command()->text().contains("--set strategy.tensor=8 --set strategy.pipeline.stages=8"));
  // Rows sorted otherwise still select the same layout.
  v.table()->sortByColumn(column(v.table(), "bubble"), Qt::DescendingOrder);
  v.select_layout(5);
  CHECK(*v.selected_point() == tune_point(d, d.ranked[5]));
  auto* analytical = series_named<QScatterSeries>(v.chart_view()->chart(), "ran on analytical");
  REQUIRE(analytical);
  emit analytical->clicked(tune_point(d, d.ranked[4]));
  CHECK(v.selected_layout() == 4);
  CHECK(*v.selected_point() == tune_point(d, d.ranked[4]));
  // Hovering a point names its layout; Copy puts the command on the clipboard.
  emit analytical->hovered(tune_point(d, d.ranked[1]), true);
  CHECK(QToolTip::text().contains(QString::fromStdString(d.ranked[1].layout)));
  v.copy_button()->click();
  CHECK(QApplication::clipboard()->text().toStdString() == d.run_command(4));
}

TEST_CASE("the main window opens a tune folder or tune.json in the tune view, a bad one is one error line") {
  MainWindow w;
  const QString dir = QString::fromStdString(dtsim::test::sample_tune());
  for (const QString& path : {dir, dir + "/tune.json"}) {
    QString error;
    REQUIRE(w.open_path(path, &error));
    CHECK(w.preferred_view() == ViewKind::Tune);
    CHECK(w.view_widget(ViewKind::Tune) == w.tune_view());
    CHECK(w.tune_view()->table()->rowCount() == static_cast<int>(sample().ranked.size()));
  }
  const std::string bad = std::string(DTSIM_BINARY_DIR) + "/test-output/gui-tune-bad-" + std::to_string(getpid());
  std::filesystem::create_directories(bad);
  std::ofstream(bad + "/tune.json") << "{\"scenario\": \"x\", \"objective\": \"time\"";
  QString error;
  CHECK(!w.open_path(QString::fromStdString(bad), &error));
  CHECK(error.startsWith(QString::fromStdString(bad) + ": tune.json: not valid JSON"));
  CHECK(!error.contains('\n'));
  // The tune shown before stays.
  CHECK(w.tune_view()->table()->rowCount() == static_cast<int>(sample().ranked.size()));

  ScreenshotRequest r;
  r.files = {dir};
  r.size = QSize(1200, 700);
  const QImage image = render_screenshot(r, &error);
  REQUIRE(!image.isNull());
  std::set<QRgb> colours;
  for (int y = 0; y < image.height(); y += 3)
    for (int x = 0; x < image.width(); x += 3) colours.insert(image.pixel(x, y));
  CHECK(colours.size() > 6);
  CHECK(parse_view_kind("tune") == ViewKind::Tune);
  r.files = {QString::fromStdString(bad)};
  CHECK(render_screenshot(r, &error).isNull());
  CHECK(error.contains("not valid JSON"));
}
