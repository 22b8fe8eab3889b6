// Drawing the sweep's progress bar and ETA.
#include "cli/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

namespace dtsim::cli {
namespace {

std::string clock_text(double s) {
  const long t = static_cast<long>(s + 0.5);
  return t >= 3600 ? fmt::format("{}:{:02}:{:02}", t / 3600, t / 60 % 60, t % 60)
                   : fmt::format("{}:{:02}", t / 60, t % 60);
}

}  // namespace

Progress::Progress(size_t total, size_t already_done)
    : total_(total), done_(already_done), started_with_(already_done), tty_(::isatty(STDERR_FILENO) != 0) {
  if (already_done > 0) fmt::print(stderr, "resuming: {} of {} points already done\n", already_done, total);
}

void Progress::point_done(const std::string& what) {
  ++done_;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double per_point = elapsed / static_cast<double>(done_ - started_with_);
  const double eta = per_point * static_cast<double>(total_ - done_);
  if (tty_) {
    if (done_ < total_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
    last_draw_ = now;
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(kWidth * done_ / std::max<size_t>(total_, 1));
    fmt::print(stderr, "\r[{}{}] {}/{} points  {} elapsed  ETA {}  ", std::string(filled, '#'),
               std::string(kWidth - filled, ' '), done_, total_, clock_text(elapsed), clock_text(eta));
    std::fflush(stderr);
    return;
  }
  const size_t step = total_ <= 100 ? 1 : total_ / 20;
  if (done_ < next_line_ && done_ < total_) return;
  next_line_ = done_ + step;
  fmt::print(stderr, "[{}/{}] {} (ETA {})\n", done_, total_, what, clock_text(eta));
}

void Progress::finish() {
  if (tty_ && done_ > started_with_) fmt::print(stderr, "\n");
}

}  // namespace dtsim::cli
