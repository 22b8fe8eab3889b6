// The background scenario runner.
#include "gui/widgets/scenario_runner.hpp"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace dtsim::gui {

ScenarioRunner::ScenarioRunner(QObject* parent) : QObject(parent) {
  tick_.setInterval(200);
  connect(&tick_, &QTimer::timeout, this, [this] { emit progress(elapsed_s()); });
  connect(&process_, &QProcess::finished, this, &ScenarioRunner::done);
  connect(&process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
    if (e == QProcess::FailedToStart) {
      tick_.stop();
      error_ = tr("could not start %1").arg(dtsim_binary());
      emit finished(false, out_dir_, error_);
    }
  });
}

QString ScenarioRunner::dtsim_binary() {
  const QString beside = QDir(QCoreApplication::applicationDirPath()).filePath("dtsim");
  if (QFileInfo(beside).isExecutable()) return beside;
  const QString on_path = QStandardPaths::findExecutable("dtsim");
  return on_path.isEmpty() ? beside : on_path;
}

QString ScenarioRunner::output_folder_for(const QString& scenario) {
  const QString name =
      QFileInfo(scenario).completeBaseName() + "-" + QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss-zzz");
  return QDir(QDir::tempPath()).filePath("dtsim-gui-runs/" + name);
}

void ScenarioRunner::start(const QString& scenario, const QString& out_dir) {
  out_dir_ = out_dir;
  error_.clear();
  cancelled_ = false;
  QDir().mkpath(out_dir);
  clock_.start();
  tick_.start();
  process_.start(dtsim_binary(), {"run", scenario, "--out", out_dir});
}

void ScenarioRunner::cancel() {
  if (!running()) return;
  cancelled_ = true;
  process_.kill();
}

bool ScenarioRunner::wait(int timeout_ms) {
  if (!process_.waitForFinished(timeout_ms)) return false;
  return error_.isEmpty() && !cancelled_;
}

void ScenarioRunner::done(int code, QProcess::ExitStatus status) {
  tick_.stop();
  if (cancelled_) {
    error_ = tr("cancelled");
  } else if (status != QProcess::NormalExit || code != 0) {
    error_ = QString::fromLocal8Bit(process_.readAllStandardError()).trimmed();
    if (error_.isEmpty()) error_ = tr("dtsim exited with code %1").arg(code);
  }
  emit finished(error_.isEmpty(), out_dir_, error_);
}

}  // namespace dtsim::gui
