// Tests of the widgets under the offscreen platform: the rendered timeline (not blank, one
// compute lane per rank, in the kinds' colours), mouse zoom, pan and selection through real
// events, the filter, screenshots of every view, chart export, running a scenario, recent files.
#include <catch2/catch.hpp>

#include <set>

#include <QApplication>
#include <QFile>
#include <QMouseEvent>
#include <QTableWidget>
#include <QWheelEvent>

#include "gui/model/document.hpp"
#include "gui/widgets/compare_view.hpp"
#include "gui/widgets/main_window.hpp"
#include "gui/widgets/scaling_view.hpp"
#include "gui/widgets/screenshot.hpp"
#include "gui/widgets/timeline_widget.hpp"
#include "gui_fixtures.hpp"

using namespace dtsim::gui;

namespace {

std::shared_ptr<const Trace> quickstart_trace() {
  static auto t = std::make_shared<const Trace>(load_trace(dtsim::test::quickstart_run() + "/trace.json"));
  return t;
}

int distinct_colours(const QImage& image) {
  std::set<QRgb> colours;
  for (int y = 0; y < image.height(); y += 3)
    for (int x = 0; x < image.width(); x += 3) colours.insert(image.pixel(x, y));
  return static_cast<int>(colours.size());
}

}  // namespace

TEST_CASE("the rendered timeline is not blank and has one compute lane per rank in the kinds' colours") {
  TimelineWidget w;
  w.resize(1200, 700);
  w.set_trace(quickstart_trace());
  const QImage& image = w.render_frame();
  CHECK(distinct_colours(image) > 8);
  const Trace& t = *w.trace();
  const QRgb forward = 0xff000000u | t.kinds.info(t.kinds.find("forward")).colour;
  const QRgb backward = 0xff000000u | t.kinds.info(t.kinds.find("backward")).colour;
  std::set<int> ranks_seen;
  int compute_rows = 0;
  for (const auto& row : w.layout().rows()) {
    if (row.lane < 0 || t.lanes[row.lane].name.find("compute") == std::string::npos) continue;
    ++compute_rows;
    const int y = w.geometry().ruler_height + row.y + row.height / 2;
    REQUIRE(y < image.height());
    int coloured = 0;
    for (int x = w.geometry().label_width; x < image.width(); ++x) {
      const QRgb c = image.pixel(x, y);
      coloured += c == forward || c == backward;
    }
    CHECK(coloured > 50);  // forward and backward passes fill much of each compute lane
    ranks_seen.insert(t.lanes[row.lane].rank);
  }
  CHECK(compute_rows == 8);
  CHECK(ranks_seen.size() == 8);
}

TEST_CASE("wheel zooms around the cursor, dragging pans, a click selects an op") {
  TimelineWidget w;
  w.resize(1200, 700);
  w.set_trace(quickstart_trace());
  const QPointF at(w.geometry().label_width + 400.0, 200.0);
  const double before = w.axis().time_at(400);
  const double upp = w.axis().us_per_px();
  QWheelEvent wheel(at, w.mapToGlobal(at), QPoint(), QPoint(0, 240), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase,
                    false);
  QApplication::sendEvent(&w, &wheel);
  CHECK(w.axis().us_per_px() == Approx(upp / 1.5625));
  CHECK(w.axis().time_at(400) == Approx(before));
  const double t = w.axis().time_at(100);
  QMouseEvent press(QEvent::MouseButtonPress, at, w.mapToGlobal(at), Qt::LeftButton, Qt::LeftButton, Qt::NoModifier);
  const QPointF to = at + QPointF(60, 0);
  QMouseEvent move(QEvent::MouseMove, to, w.mapToGlobal(to), Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
  QMouseEvent release(QEvent::MouseButtonRelease, to, w.mapToGlobal(to), Qt::LeftButton, Qt::NoButton, Qt::NoModifier);
  QApplication::sendEvent(&w, &press);
  QApplication::sendEvent(&w, &move);
  QApplication::sendEvent(&w, &release);
  CHECK(w.axis().x_of(t) == Approx(160));
  CHECK(w.selected() == -1);  // a drag is not a click
  // Click in the middle of the first compute lane.
  int lane_y = -1;
  for (const auto& row : w.layout().rows()) {
    if (row.lane >= 0) {
      lane_y = w.geometry().ruler_height + row.y + row.height / 2;
      break;
    }
  }
  w.fit();
  const QPointF click(w.geometry().label_width + 200.0, lane_y);
  QMouseEvent p2(QEvent::MouseButtonPress, click, w.mapToGlobal(click), Qt::LeftButton, Qt::LeftButton, Qt::NoModifier);
  QMouseEvent r2(QEvent::MouseButtonRelease, click, w.mapToGlobal(click), Qt::LeftButton, Qt::NoButton, Qt::NoModifier);
  QApplication::sendEvent(&w, &p2);
  QApplication::sendEvent(&w, &r2);
  REQUIRE(w.selected() >= 0);
  CHECK(w.trace()->events[w.selected()].lane == w.layout().lane_at(lane_y - w.geometry().ruler_height));
}

TEST_CASE("the label filter hides what does not match") {
  TimelineWidget w;
  w.resize(1200, 700);
  w.set_trace(quickstart_trace());
  w.render_frame();
  const size_t all = w.renderer().rects_drawn();
  CHECK(w.set_filter("allreduce"));
  w.render_frame();
  CHECK(w.renderer().rects_drawn() < all);
  CHECK_FALSE(w.set_filter("(unclosed"));
  CHECK(w.set_filter(""));
  w.render_frame();
  CHECK(w.renderer().rects_drawn() == all);
}

TEST_CASE("screenshots of every view are not blank") {
  const QString run = QString::fromStdString(dtsim::test::quickstart_run());
  const QString sweep = QString::fromStdString(dtsim::test::sample_sweep());
  for (const auto& [files, view] :
       std::vector<std::pair<QStringList, ViewKind>>{{{run}, ViewKind::Timeline},
                                                     {{run + "/metrics.json"}, ViewKind::Summary},
                                                     {{sweep}, ViewKind::Scaling},
                                                     {{run, run}, ViewKind::Compare}}) {
    ScreenshotRequest r;
    r.files = files;
    r.view = view;
    r.size = QSize(1000, 700);
    QString error;
    const QImage image = render_screenshot(r, &error);
    INFO(error.toStdString());
    REQUIRE(!image.isNull());
    CHECK(distinct_colours(image) > 6);
  }
}

TEST_CASE("compare puts two runs on one axis with a table of deltas") {
  MainWindow w;
  const QString run = QString::fromStdString(dtsim::test::quickstart_run());
  REQUIRE(w.open_path(run));
  REQUIRE(w.open_path(run, nullptr, true));
  CompareView* c = w.compare_view();
  CHECK(c->table()->rowCount() >= 8);
  CHECK(c->top()->trace());
  CHECK(c->bottom()->trace());
  TimeAxis moved = c->top()->axis();
  moved.zoom_at(100, 3);
  c->top()->set_axis(moved);
  emit c->top()->axis_changed(moved);
  CHECK(c->bottom()->axis().us_per_px() == Approx(moved.us_per_px()));
}

TEST_CASE("the scaling charts export as PNG and SVG") {
  ScalingView v;
  v.resize(1200, 600);
  const Document d = load_document(dtsim::test::sample_sweep());
  v.set_data(&*d.sweep);
  const QString dir = DTSIM_BINARY_DIR "/test-output/";
  QFile::remove(dir + "scaling.png");
  QFile::remove(dir + "scaling.svg");
  REQUIRE(v.export_to(dir + "scaling.png"));
  REQUIRE(v.export_to(dir + "scaling.svg"));
  CHECK(!QImage(dir + "scaling.png").isNull());
  QFile svg(dir + "scaling.svg");
  REQUIRE(svg.open(QIODevice::ReadOnly));
  CHECK(svg.readAll().contains("<svg"));
}

TEST_CASE("a scenario runs in the background and its outputs open, recent files remember it") {
  MainWindow w;
  QString error;
  REQUIRE(w.run_scenario_blocking(DTSIM_SOURCE_DIR "/scenarios/quickstart.yaml", &error));
  REQUIRE(w.documents().size() == 1);
  CHECK(w.documents()[0].kind == FileKind::RunFolder);
  CHECK(w.documents()[0].run->trace->rank_count() == 8);
  w.open_path(QString::fromStdString(dtsim::test::sample_sweep()));
  CHECK(MainWindow::recent_files().value(0) == QString::fromStdString(dtsim::test::sample_sweep()));
  CHECK(!w.open_path(DTSIM_SOURCE_DIR "/README.md", &error));
  CHECK(error.contains("README.md"));
}
