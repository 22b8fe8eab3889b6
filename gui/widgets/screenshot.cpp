// Rendering a view without a display.
#include "gui/widgets/screenshot.hpp"

#include <QApplication>

#include "gui/model/file_kind.hpp"

namespace dtsim::gui {

std::optional<ViewKind> parse_view_kind(const QString& name) {
  if (name == "timeline") return ViewKind::Timeline;
  if (name == "summary") return ViewKind::Summary;
  if (name == "scaling") return ViewKind::Scaling;
  if (name == "compare") return ViewKind::Compare;
  if (name == "tune") return ViewKind::Tune;
  return std::nullopt;
}

QImage render_screenshot(const ScreenshotRequest& request, QString* error, QStringList* problems) {
  MainWindow window;
  window.setAttribute(Qt::WA_DontShowOnScreen);
  window.resize(request.size);
  window.show();
  for (int i = 0; i < request.files.size(); ++i) {
    const QString& file = request.files[i];
    const bool scenario = detect_file_kind(file.toStdString()) == FileKind::Scenario;
    const bool ok =
        scenario && i == 0 ? window.run_scenario_blocking(file, error) : window.open_path(file, error, i > 0);
    if (!ok) return {};
  }
  if (problems) {
    for (const Document& d : window.documents()) {
      for (const std::string& p : d.problems()) problems->push_back(QString::fromStdString(d.path + ": " + p));
    }
  }
  window.show_view(request.view.value_or(window.preferred_view()));
  QWidget* view = window.view_widget(request.view.value_or(window.preferred_view()));
  QApplication::processEvents();
  return view->grab().toImage();
}

}  // namespace dtsim::gui
