// Progress of a sweep on stderr: a bar with the ETA when stderr is a terminal, plain lines
// otherwise (every point for small sweeps, about every 5 % for large ones).
#pragma once

#include <chrono>
#include <string>

namespace dtsim::cli {

class Progress {
 public:
  Progress(size_t total, size_t already_done);
  void point_done(const std::string& what);
  void finish();

 private:
  size_t total_, done_, started_with_;
  bool tty_;
  size_t next_line_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace dtsim::cli
