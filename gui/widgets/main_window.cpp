// The main window: opening documents and dispatching them to the views.
#include "gui/widgets/main_window.hpp"

#include <QApplication>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>

#include "gui/model/json_scanner.hpp"
#include "gui/widgets/compare_view.hpp"
#include "gui/widgets/scaling_view.hpp"
#include "gui/widgets/scenario_runner.hpp"
#include "gui/widgets/summary_view.hpp"
#include "gui/widgets/timeline_view.hpp"
#include "gui/widgets/tune_view.hpp"

namespace dtsim::gui {
namespace {
constexpr int kMaxRecent = 10;
}

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle("dtsim-gui");
  setAcceptDrops(true);
  tabs_ = new QTabWidget(this);
  timeline_ = new TimelineView(this);
  summary_ = new SummaryView(this);
  scaling_ = new ScalingView(this);
  compare_ = new CompareView(this);
  tune_ = new TuneView(this);
  tabs_->addTab(timeline_, tr("Timeline"));
  tabs_->addTab(summary_, tr("Summary"));
  tabs_->addTab(scaling_, tr("Scaling"));
  tabs_->addTab(compare_, tr("Compare"));
  tabs_->addTab(tune_, tr("Tune"));
  setCentralWidget(tabs_);

  runner_ = new ScenarioRunner(this);
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 0);  // indeterminate: dtsim does not report a fraction done
  progress_->setMaximumWidth(160);
  elapsed_ = new QLabel(this);
  cancel_ = new QPushButton(tr("Cancel"), this);
  for (QWidget* w : std::initializer_list<QWidget*>{progress_, elapsed_, cancel_}) {
    statusBar()->addPermanentWidget(w);
    w->hide();
  }
  connect(cancel_, &QPushButton::clicked, runner_, &ScenarioRunner::cancel);
  connect(runner_, &ScenarioRunner::progress, this,
          [this](double s) { elapsed_->setText(tr("running dtsim: %1 s").arg(s, 0, 'f', 1)); });
  connect(runner_, &ScenarioRunner::finished, this, [this](bool ok, const QString& out, const QString& message) {
    for (QWidget* w : std::initializer_list<QWidget*>{progress_, elapsed_, cancel_}) w->hide();
    if (!ok) {
      statusBar()->showMessage(tr("scenario run failed: %1").arg(message), 10000);
      if (message != tr("cancelled")) QMessageBox::warning(this, tr("dtsim run failed"), message);
      return;
    }
    QString error;
    if (!open_path(out, &error)) QMessageBox::warning(this, tr("Cannot open"), error);
  });
  build_menus();
  resize(1400, 900);
}

void MainWindow::build_menus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  auto report = [this](const QString& path, bool add) {
    QString error;
    if (!path.isEmpty() && !open_path(path, &error, add)) QMessageBox::warning(this, tr("Cannot open"), error);
  };
  file->addAction(tr("&Open file..."), QKeySequence::Open, this, [this, report] {
    report(QFileDialog::getOpenFileName(this, tr("Open a trace, metrics, scaling file, tune.json or scenario"),
                                        QString(), tr("dtsim files (*.json *.yaml *.yml);;All files (*)")),
           false);
  });
  file->addAction(tr("Open &folder..."), QKeySequence(tr("Ctrl+Shift+O")), this, [this, report] {
    report(QFileDialog::getExistingDirectory(this, tr("Open a run folder, a sweep folder or a tune folder")), false);
  });
  file->addAction(tr("&Add run to compare..."), this, [this, report] {
    report(QFileDialog::getOpenFileName(this, tr("Add a run to compare"), QString(),
                                        tr("dtsim files (*.json *.yaml *.yml);;All files (*)")),
           true);
  });
  recent_menu_ = file->addMenu(tr("&Recent"));
  rebuild_recent_menu();
  file->addSeparator();
  file->addAction(tr("&Export scaling chart (PNG or SVG)..."), this, &MainWindow::export_chart);
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::quit);
  QMenu* view = menuBar()->addMenu(tr("&View"));
  const char* names[] = {"&Timeline", "&Summary", "S&caling", "C&ompare", "T&une"};
  for (int i = 0; i < 5; ++i)
    view->addAction(tr(names[i]), QKeySequence(Qt::CTRL | static_cast<Qt::Key>(Qt::Key_1 + i)), this,
                    [this, i] { tabs_->setCurrentIndex(i); });
}

QStringList MainWindow::recent_files() { return QSettings("dtsim", "dtsim-gui").value("recent").toStringList(); }

void MainWindow::remember(const QString& path) {
  QSettings settings("dtsim", "dtsim-gui");
  QStringList list = settings.value("recent").toStringList();
  const QString abs = QFileInfo(path).absoluteFilePath();
  list.removeAll(abs);
  list.prepend(abs);
  while (list.size() > kMaxRecent) list.removeLast();
  settings.setValue("recent", list);
}

void MainWindow::rebuild_recent_menu() {
  if (!recent_menu_) return;
  recent_menu_->clear();
  for (const QString& path : recent_files()) {
    recent_menu_->addAction(path, this, [this, path] {
      QString error;
      if (!open_path(path, &error)) QMessageBox::warning(this, tr("Cannot open"), error);
    });
  }
  recent_menu_->setEnabled(!recent_menu_->isEmpty());
}

bool MainWindow::open_path(const QString& path, QString* error, bool add) {
  const std::string p = path.toStdString();
  if (detect_file_kind(p) == FileKind::Scenario) {
    remember(path);
    rebuild_recent_menu();
    start_scenario(path);
    return true;
  }
  try {
    Document doc = load_document(p);
    remember(path);
    rebuild_recent_menu();
    show_document(doc, add);
    return true;
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
}

void MainWindow::show_document(const Document& doc, bool add) {
  if (!add) docs_.clear();
  docs_.push_back(doc);
  setWindowTitle(QStringLiteral("dtsim-gui - %1").arg(QString::fromStdString(doc.path)));
  if (doc.run) {
    if (!add) {
      timeline_->set_run(*doc.run);
      summary_->set_metrics(doc.run->metrics ? &*doc.run->metrics : nullptr);
    }
    std::vector<CompareSide> sides;
    for (const auto& d : docs_) {
      if (!d.run) continue;
      auto more = compare_sides(*d.run, QString::fromStdString(d.title));
      sides.insert(sides.end(), more.begin(), more.end());
    }
    // With two runs, compare them; with one run of several jobs, its first two jobs.
    const int b = static_cast<int>(sides.size()) - (add ? 1 : 0);
    compare_->set_candidates(std::move(sides), 0, add ? b : 1);
  }
  if (doc.sweep && !add) scaling_->set_data(&*doc.sweep);
  if (doc.tune && !add) tune_->set_data(&*doc.tune);
  show_view(add ? ViewKind::Compare : preferred_view());
  const std::vector<std::string> problems = doc.problems();
  if (!problems.empty()) {
    // Malformed fields stay on screen until the next message: what is drawn lacks them.
    QStringList lines;
    for (const std::string& p : problems) lines << QString::fromStdString(p);
    statusBar()->showMessage(tr("%1: %2").arg(QString::fromStdString(doc.path), lines.join("; ")));
    return;
  }
  statusBar()->showMessage(
      tr("opened %1 (%2)")
          .arg(QString::fromStdString(doc.path), QString::fromStdString(std::string(file_kind_name(doc.kind)))),
      5000);
}

ViewKind MainWindow::preferred_view() const {
  if (docs_.empty()) return ViewKind::Timeline;
  const Document& d = docs_.back();
  if (d.sweep) return ViewKind::Scaling;
  if (d.tune) return ViewKind::Tune;
  if (d.run && !d.run->trace) return ViewKind::Summary;
  return ViewKind::Timeline;
}

void MainWindow::show_view(ViewKind view) { tabs_->setCurrentIndex(static_cast<int>(view)); }

QWidget* MainWindow::view_widget(ViewKind view) const { return tabs_->widget(static_cast<int>(view)); }

void MainWindow::start_scenario(const QString& path) {
  if (runner_->running()) {
    statusBar()->showMessage(tr("a scenario is already running"), 5000);
    return;
  }
  for (QWidget* w : std::initializer_list<QWidget*>{progress_, elapsed_, cancel_}) w->show();
  elapsed_->setText(tr("running dtsim: 0.0 s"));
  runner_->start(path, ScenarioRunner::output_folder_for(path));
}

bool MainWindow::run_scenario_blocking(const QString& path, QString* error) {
  ScenarioRunner runner;
  runner.start(path, ScenarioRunner::output_folder_for(path));
  if (!runner.wait()) {
    if (error) *error = runner.error_text();
    return false;
  }
  return open_path(runner.out_dir(), error);
}

void MainWindow::export_chart() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Export the scaling charts"), "scaling.png",
                                                    tr("PNG image (*.png);;SVG drawing (*.svg)"));
  if (!path.isEmpty() && !scaling_->export_to(path)) QMessageBox::warning(this, tr("Export failed"), path);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  bool first = true;
  for (const QUrl& url : event->mimeData()->urls()) {
    QString error;
    if (url.isLocalFile() && !open_path(url.toLocalFile(), &error, !first))
      QMessageBox::warning(this, tr("Cannot open"), error);
    first = false;
  }
}

}  // namespace dtsim::gui
