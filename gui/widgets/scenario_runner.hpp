// Runs a scenario in the background with `dtsim run SCENARIO --out DIR` (SimGrid allows one
// simulation per process, so the viewer never simulates in its own process), reporting elapsed
// time, and can be cancelled. On success the output folder is opened as a run.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QProcess>
#include <QString>
#include <QTimer>

namespace dtsim::gui {

class ScenarioRunner : public QObject {
  Q_OBJECT

 public:
  explicit ScenarioRunner(QObject* parent = nullptr);
  // The dtsim binary: beside dtsim-gui, else on PATH.
  static QString dtsim_binary();
  // A fresh output folder for a run of `scenario`.
  static QString output_folder_for(const QString& scenario);

  void start(const QString& scenario, const QString& out_dir);
  void cancel();
  bool running() const { return process_.state() != QProcess::NotRunning; }
  // Blocks until the run ends (headless use); true on success.
  bool wait(int timeout_ms = -1);
  double elapsed_s() const { return clock_.isValid() ? clock_.elapsed() / 1000.0 : 0; }
  const QString& out_dir() const { return out_dir_; }
  const QString& error_text() const { return error_; }

 signals:
  void progress(double elapsed_s);
  void finished(bool ok, const QString& out_dir, const QString& message);

 private:
  void done(int code, QProcess::ExitStatus status);

  QProcess process_;
  QTimer tick_;
  QElapsedTimer clock_;
  QString out_dir_, error_;
  bool cancelled_ = false;
};

}  // namespace dtsim::gui
