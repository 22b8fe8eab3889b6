// The main window of dtsim-gui: a tab per view (timeline, summary, scaling, compare, tune) of the
// opened documents; File menu with open, run scenario, recent files and export; drag and drop;
// the background run of a scenario in the status bar (elapsed time and cancel).
#pragma once

#include <vector>

#include <QMainWindow>
#include <QStringList>

#include "gui/model/document.hpp"

class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QTabWidget;

namespace dtsim::gui {

class CompareView;
class ScalingView;
class ScenarioRunner;
class SummaryView;
class TimelineView;
class TuneView;

enum class ViewKind { Timeline, Summary, Scaling, Compare, Tune };

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);

  // Opens any supported path; scenarios start a background run. False (with a message in
  // `error`) when it cannot be loaded.
  bool open_path(const QString& path, QString* error = nullptr, bool add = false);
  // Runs a scenario and waits for it (headless use).
  bool run_scenario_blocking(const QString& path, QString* error);
  void show_view(ViewKind view);
  QWidget* view_widget(ViewKind view) const;
  // The view that suits the current document best.
  ViewKind preferred_view() const;
  TimelineView* timeline_view() const { return timeline_; }
  CompareView* compare_view() const { return compare_; }
  ScalingView* scaling_view() const { return scaling_; }
  SummaryView* summary_view() const { return summary_; }
  TuneView* tune_view() const { return tune_; }
  const std::vector<Document>& documents() const { return docs_; }

  static QStringList recent_files();
  static void remember(const QString& path);

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void build_menus();
  void rebuild_recent_menu();
  void show_document(const Document& doc, bool add);
  void start_scenario(const QString& path);
  void export_chart();

  std::vector<Document> docs_;
  QTabWidget* tabs_;
  TimelineView* timeline_;
  SummaryView* summary_;
  ScalingView* scaling_;
  CompareView* compare_;
  TuneView* tune_;
  QMenu* recent_menu_ = nullptr;
  ScenarioRunner* runner_;
  QProgressBar* progress_;
  QLabel* elapsed_;
  QPushButton* cancel_;
};

}  // namespace dtsim::gui
