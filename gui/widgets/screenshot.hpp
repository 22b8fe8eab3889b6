// Headless screenshots: `dtsim-gui --screenshot out.png FILE... [--view ...] [--size WxH]`
// opens the files in a main window that is never shown on a screen and saves one view.
#pragma once

#include <optional>

#include <QImage>
#include <QSize>
#include <QString>
#include <QStringList>

#include "gui/widgets/main_window.hpp"

namespace dtsim::gui {

std::optional<ViewKind> parse_view_kind(const QString& name);

struct ScreenshotRequest {
  QString out;
  QStringList files;  // the first is opened, the others are added to the comparison
  std::optional<ViewKind> view;
  QSize size{1600, 1000};
};

// Renders the view to an image; an empty image and `error` on failure. `problems` receives what was
// malformed in the files opened (Document::problems): the image is drawn without it.
QImage render_screenshot(const ScreenshotRequest& request, QString* error, QStringList* problems = nullptr);

}  // namespace dtsim::gui
