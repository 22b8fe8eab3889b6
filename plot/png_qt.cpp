// The PNG renderer: a Canvas over QPainter on a QImage. Text needs fonts and so a
// QGuiApplication; it is made on the "offscreen" platform, so no display is needed.
#include <QtGui/QFont>
#include <QtGui/QGuiApplication>
#include <QtGui/QImage>
#include <QtGui/QPainter>
#include <QtGui/QPainterPath>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "plot/chart.hpp"

namespace dtsim::plot {
namespace {

class QtCanvas : public Canvas {
 public:
  explicit QtCanvas(QPainter& p) : p_(p) {}

  void line(double x1, double y1, double x2, double y2, const std::string& color, double width, bool dashed) override {
    p_.setPen(pen(color, width, dashed));
    p_.drawLine(QPointF(x1, y1), QPointF(x2, y2));
  }
  void polyline(const std::vector<std::pair<double, double>>& points, const std::string& color, double width,
                bool dashed) override {
    QPainterPath path;
    for (size_t i = 0; i < points.size(); ++i) {
      const QPointF pt(points[i].first, points[i].second);
      if (i == 0)
        path.moveTo(pt);
      else
        path.lineTo(pt);
    }
    p_.setPen(pen(color, width, dashed));
    p_.setBrush(Qt::NoBrush);
    p_.drawPath(path);
  }
  void circle(double x, double y, double r, const std::string& color) override {
    p_.setPen(Qt::NoPen);
    p_.setBrush(QColor(QString::fromStdString(color)));
    p_.drawEllipse(QPointF(x, y), r, r);
  }
  void text(double x, double y, const std::string& s, char anchor, double size, bool rotated) override {
    QFont font("DejaVu Sans");
    font.setPixelSize(static_cast<int>(size));
    p_.setFont(font);
    p_.setPen(Qt::black);
    const QString q = QString::fromStdString(s);
    const double w = p_.fontMetrics().horizontalAdvance(q);
    const double dx = anchor == 'm' ? -w / 2 : anchor == 'e' ? -w : 0;
    p_.save();
    p_.translate(x, y);
    if (rotated) p_.rotate(-90);
    p_.drawText(QPointF(dx, 0), q);
    p_.restore();
  }

 private:
  static QPen pen(const std::string& color, double width, bool dashed) {
    QPen p(QColor(QString::fromStdString(color)));
    p.setWidthF(width);
    if (dashed) p.setStyle(Qt::DashLine);
    return p;
  }
  QPainter& p_;
};

// Fonts need a QGuiApplication; an offscreen one needs no display.
void ensure_app() {
  if (QGuiApplication::instance()) return;
  setenv("QT_QPA_PLATFORM", "offscreen", 0);
  // Qt's own notes (e.g. about XDG_RUNTIME_DIR) are not the user's business here.
  qInstallMessageHandler([](QtMsgType, const QMessageLogContext&, const QString&) {});
  static int argc = 1;
  static char name[] = "dtsim";
  static char* argv[] = {name, nullptr};
  static std::unique_ptr<QGuiApplication> app = std::make_unique<QGuiApplication>(argc, argv);
}

}  // namespace

bool png_supported() { return true; }

void write_png(const Chart& chart, const std::string& path) {
  ensure_app();
  QImage image(chart.width, chart.height, QImage::Format_ARGB32);
  image.fill(Qt::white);
  {
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    QtCanvas canvas(painter);
    draw_chart(chart, canvas);
  }
  const std::string tmp = path + ".tmp.png";
  if (!image.save(QString::fromStdString(tmp), "PNG")) throw std::runtime_error("cannot write " + path);
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw std::runtime_error("cannot write " + path + ": " + ec.message());
}

}  // namespace dtsim::plot
