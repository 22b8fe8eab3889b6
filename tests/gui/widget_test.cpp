// Tests of the widgets under the offscreen platform: the rendered timeline (not blank, one
// compute lane per rank, in the kinds' colours), mouse zoom, pan and selection through real
// events, the filter, a pipeline's micro-batch numbers, tooltips and one rank per stage (R), the
// summary's memory chart, screenshots of every view, chart export, running a scenario, recent files.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>

#include <QApplication>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QFile>
#include <QHorizontalStackedBarSeries>
#include <QKeyEvent>
#include <QLabel>
#include <QLineSeries>
#include <QMouseEvent>
#include <QTableWidget>
#include <QToolTip>
#include <QWheelEvent>

#include "gui/model/document.hpp"
#include "gui/widgets/compare_view.hpp"
#include "gui/widgets/main_window.hpp"
#include "gui/widgets/scaling_view.hpp"
#include "gui/widgets/screenshot.hpp"
#include "gui/widgets/summary_view.hpp"
#include "gui/widgets/timeline_view.hpp"
#include "gui/widgets/timeline_widget.hpp"
#include "gui_fixtures.hpp"

using namespace dtsim::gui;

namespace {

std::shared_ptr<const Trace> quickstart_trace() {
  static auto t = std::make_shared<const Trace>(load_trace(dtsim::test::quickstart_run() + "/trace.json"));
  return t;
}

void press_key(QWidget& w, Qt::Key key, const QString& text) {
  QKeyEvent press(QEvent::KeyPress, key, Qt::NoModifier, text);
  QApplication::sendEvent(&w, &press);
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
  const QString hybrid = QString::fromStdString(dtsim::test::sample_hybrid());
  for (const auto& [files, view] :
       std::vector<std::pair<QStringList, ViewKind>>{{{run}, ViewKind::Timeline},
                                                     {{run + "/metrics.json"}, ViewKind::Summary},
                                                     {{hybrid}, ViewKind::Timeline},
                                                     {{hybrid}, ViewKind::Summary},
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

TEST_CASE("a screenshot of a malformed trace is drawn without the bad events and says what they were") {
  const std::string path = (std::filesystem::temp_directory_path() / "dtsim_malformed_trace.json").string();
  std::ofstream(path) << R"({"traceEvents":[{"name":"a","ph":"X","ts":0,"dur":10,"pid":0,"tid":0},)"
                      << R"({"name":"b","ph":"X","ts":-1e308,"dur":5,"pid":0,"tid":0}]})";
  ScreenshotRequest r;
  r.files = {QString::fromStdString(path)};
  r.size = QSize(800, 600);
  QString error;
  QStringList problems;
  const QImage image = render_screenshot(r, &error, &problems);
  REQUIRE(!image.isNull());  // dtsim-gui writes it, then exits with 2 for the problems
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].toStdString() == path +
                                         ": left out 1 event whose ts is not within +-1e15 us or whose dur is not "
                                         "from 0 to 1e15 us (first: event 2: ts -1e+308, dur 5)");
}

TEST_CASE("a pipeline timeline: micro-batch numbers in the bars, tooltips with stage and micro-batch, R") {
  const Document d = load_document(dtsim::test::sample_hybrid());
  TimelineWidget w;
  w.resize(1600, 700);
  w.set_trace(d.run->trace);
  const Trace& t = *w.trace();
  CHECK_FALSE(w.stage_representatives());  // 8 ranks: every one shown
  CHECK(w.layout().lane_count() == static_cast<int>(t.lanes.size()));
  const QImage& image = w.render_frame();
  CHECK(w.renderer().labels_drawn() > 20);
  // The compute lanes show recompute in its own colour.
  const QRgb recompute = 0xff000000u | t.kinds.info(t.kinds.find("recompute")).colour;
  int recompute_pixels = 0;
  const LayoutRow* compute_row = nullptr;
  for (const auto& row : w.layout().rows()) {
    if (row.lane < 0 || t.lanes[row.lane].name.find("compute") == std::string::npos) continue;
    if (!compute_row) compute_row = &row;
    const int y = w.geometry().ruler_height + row.y + row.height / 2;
    for (int x = w.geometry().label_width; x < image.width(); ++x) recompute_pixels += image.pixel(x, y) == recompute;
  }
  CHECK(recompute_pixels > 20);
  // Hovering the middle of the first compute lane's widest span names its micro-batch and stage.
  REQUIRE(compute_row);
  const auto& spans = t.lanes[compute_row->lane].micro_batches;
  REQUIRE(!spans.empty());
  const MicroBatchSpan* widest = &spans[0];
  for (const auto& s : spans) widest = s.end - s.start > widest->end - widest->start ? &s : widest;
  // The op under the cursor: at the start of the span's first op of its pass.
  const TraceEvent* op = nullptr;
  for (uint32_t i = widest->first; i < widest->last && !op; ++i)
    if (t.events[i].kind == widest->kind) op = &t.events[i];
  REQUIRE(op);
  w.set_axis(TimeAxis(op->start - 10 * op->dur, op->dur / 40));  // the op 400 pixels wide
  const QPoint at(w.geometry().label_width + static_cast<int>(w.axis().x_of(op->start + op->dur / 2)),
                  w.geometry().ruler_height + compute_row->y + compute_row->height / 2);
  QHelpEvent help(QEvent::ToolTip, at, w.mapToGlobal(at));
  QApplication::sendEvent(&w, &help);
  CHECK(QToolTip::text().contains(QString::fromStdString(t.strings.at(op->name))));
  CHECK(QToolTip::text().contains("<b>micro-batch</b></td><td>" + QString::number(op->micro_batch) + "<"));
  CHECK(QToolTip::text().contains("<b>stage</b></td><td>" + QString::number(op->stage) + "<"));
  QToolTip::hideText();
  // R: one rank per stage (ranks 0 and 4, three lanes each), and back.
  int toggles = 0;
  QObject::connect(&w, &TimelineWidget::stage_representatives_changed, [&](bool) { ++toggles; });
  press_key(w, Qt::Key_R, "r");
  CHECK(w.stage_representatives());
  CHECK(w.layout().lane_count() == 6);
  for (const auto& row : w.layout().rows()) {
    if (row.lane >= 0) CHECK((t.lanes[row.lane].rank == 0 || t.lanes[row.lane].rank == 4));
  }
  press_key(w, Qt::Key_R, "r");
  CHECK_FALSE(w.stage_representatives());
  CHECK(w.layout().lane_count() == static_cast<int>(t.lanes.size()));
  CHECK(toggles == 2);
  // A filter that hides every op hides the numbers too.
  w.fit();
  CHECK(w.set_filter("no such op"));
  w.render_frame();
  CHECK(w.renderer().labels_drawn() == 0);
}

TEST_CASE("a pipeline of many ranks starts with one rank per stage, the checkbox and R agree") {
  TimelineView v;
  v.resize(1400, 800);
  v.set_run(RunData{std::make_shared<const Trace>(parse_trace(dtsim::test::pipeline_trace_text(4, 8, 3))), {}});
  TimelineWidget* w = v.timeline();
  CHECK(w->stage_representatives());
  CHECK(w->layout().lane_count() == 8);  // 4 stages x (compute, comm) of one rank
  CHECK(v.representatives()->isVisibleTo(&v));
  CHECK(v.representatives()->isChecked());
  v.representatives()->setChecked(false);
  CHECK_FALSE(w->stage_representatives());
  CHECK(w->layout().lane_count() == 64);
  press_key(*w, Qt::Key_R, "r");
  CHECK(v.representatives()->isChecked());
  CHECK(w->layout().lane_count() == 8);
  // A data-parallel run has no stages: no checkbox, and R does nothing.
  v.set_run(RunData{quickstart_trace(), {}});
  CHECK_FALSE(v.representatives()->isVisibleTo(&v));
  const int lanes = w->layout().lane_count();
  press_key(*w, Qt::Key_R, "r");
  CHECK_FALSE(w->stage_representatives());
  CHECK(w->layout().lane_count() == lanes);
}

TEST_CASE("the summary of a hybrid run shows the bubble and memory by stage, a data-parallel one neither") {
  SummaryView s;
  s.resize(1200, 800);
  const Document h = load_document(dtsim::test::sample_hybrid());
  s.set_metrics(&*h.run->metrics);
  CHECK(s.headline()->text().contains("pipeline bubble"));
  CHECK(s.headline()->text().contains("memory per rank: peak"));
  CHECK(s.memory_view()->isVisibleTo(&s));
  QChart* c = s.memory_view()->chart();
  REQUIRE(!c->series().empty());
  auto* bars = qobject_cast<QHorizontalStackedBarSeries*>(c->series()[0]);
  REQUIRE(bars);
  REQUIRE(bars->count() == 5);
  QStringList names;
  for (const QBarSet* set : bars->barSets()) names << set->label();
  CHECK(names == QStringList{"parameters", "gradients", "optimizer", "activations", "communication"});
  CHECK(bars->barSets()[0]->count() == 2);  // two stages
  CHECK(c->title().contains("fits"));
  CHECK(c->series().size() == 1);  // 80 GB is far off the scale of a few MB: stated, not drawn
  CHECK(c->title().contains("80 GB"));
  // A device smaller than a stage: the line is drawn and the verdict is plain.
  RunMetrics small = *h.run->metrics;
  small.top.memory->device_bytes = 10e6;
  small.top.memory->fits = false;
  s.set_metrics(&small);
  c = s.memory_view()->chart();
  REQUIRE(c->series().size() == 2);
  CHECK(qobject_cast<QLineSeries*>(c->series()[1]));
  CHECK(c->title().contains("does not fit"));
  CHECK(s.headline()->text().contains("does not fit"));
  // A data-parallel run: no memory chart, no bubble, the summary as it always was.
  const Document dp = load_document(dtsim::test::quickstart_run() + "/metrics.json");
  s.set_metrics(&*dp.run->metrics);
  CHECK_FALSE(s.memory_view()->isVisibleTo(&s));
  CHECK_FALSE(s.headline()->text().contains("bubble"));
  CHECK_FALSE(s.headline()->text().contains("memory"));
  // ResNet-50 has MFU but no tokens (metrics.json's tokens are null, which the reader takes as none).
  CHECK(s.headline()->text().contains("MFU "));
  CHECK_FALSE(s.headline()->text().contains("tokens/s"));
}

TEST_CASE("the summary of a language model's run says its tokens/s per device, MFU and HFU") {
  const std::string d = std::string(DTSIM_BINARY_DIR) + "/test-output/gui-llm-" + std::to_string(getpid());
  const std::string cmd = "cd '" DTSIM_SOURCE_DIR "' && '" DTSIM_BINARY_DIR
                          "/bin/dtsim' run scenarios/llama3_8b_hf_dgx_h100.yaml --no-trace --out '" +
                          d + "' >/dev/null";
  REQUIRE(std::system(cmd.c_str()) == 0);
  const Document doc = load_document(d + "/metrics.json");
  REQUIRE(doc.run);
  const JobMetrics& m = doc.run->metrics->top;
  REQUIRE(m.tokens_per_s_per_device);
  REQUIRE(m.mfu);
  SummaryView s;
  s.set_metrics(&*doc.run->metrics);
  const QString text = s.headline()->text();
  CHECK(text.contains(QStringLiteral("%1 tokens/s per device").arg(*m.tokens_per_s_per_device, 0, 'f', 0)));
  CHECK(text.contains(QStringLiteral("MFU %1%").arg(*m.mfu * 100, 0, 'f', 1)));
  CHECK(text.contains("HFU "));
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
