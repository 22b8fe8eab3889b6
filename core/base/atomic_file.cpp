// Atomic file writes: write path.tmp.<pid>, flush, rename over path.
#include "core/base/atomic_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "core/base/error.hpp"

namespace dtsim {

void write_file_atomic(const std::string& path, std::string_view content) {
  const std::string tmp = fmt::format("{}.tmp.{}", path, getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw RuntimeError(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  const bool ok = std::fwrite(content.data(), 1, content.size(), f) == content.size() && std::fflush(f) == 0;
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
