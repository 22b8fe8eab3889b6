// Atomic file writes: write path.tmp.<pid>, flush, rename over path; temporaries of dead writers removed.
#include "core/base/atomic_file.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "core/base/error.hpp"

namespace dtsim {

int remove_stale_temporaries(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const std::string prefix = target.filename().string() + ".tmp.";
  std::error_code ec;
  int removed = 0;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string digits = name.substr(prefix.size());
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(digits));
    if (pid == getpid() || ::kill(pid, 0) == 0 || errno != ESRCH) continue;  // alive (or not ours to judge)
    std::error_code rm;
    if (fs::remove(it->path(), rm)) ++removed;
  }
  return removed;
}

void write_file_atomic(const std::string& path, std::string_view content) {
  write_file_atomic(path, [content](const ChunkSink& sink) { sink(content); });
}

void write_file_atomic(const std::string& path, const std::function<void(const ChunkSink&)>& produce) {
  remove_stale_temporaries(path);
  const std::string tmp = fmt::format("{}.tmp.{}", path, getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw RuntimeError(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  bool ok = true;
  try {
    produce([&](std::string_view chunk) {
      if (ok && std::fwrite(chunk.data(), 1, chunk.size(), f) != chunk.size()) ok = false;
    });
  } catch (...) {
    std::fclose(f);
    std::remove(tmp.c_str());
    throw;
  }
  ok = ok && std::fflush(f) == 0;
  const bool closed = std::fclose(f) == 0;
  if (!ok || !closed) {
    std::remove(tmp.c_str());
    throw RuntimeError(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw RuntimeError(fmt::format("cannot write {}: {}", path, ec.message()));
  }
}

}  // namespace dtsim
