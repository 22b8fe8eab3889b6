// What every fuzz target shares: the invariant (a loader of outside input either returns or throws
// the error type that becomes one located line and exit code 2; anything else, a crash, a hang or a
// leak is a bug that libFuzzer reports) and a temporary file for loaders that read a path.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "core/base/error.hpp"

namespace dtsim::fuzz {

inline std::string_view text_of(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// The input as a file this process owns (rewritten for each input).
inline std::string as_file(std::string_view content, const char* suffix) {
  const std::string path = "/tmp/dtsim-fuzz-" + std::to_string(::getpid()) + suffix;
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(content.data(), static_cast<std::streamsize>(content.size()));
  return path;
}

// The input as the file NAME in a folder this process owns (rewritten for each input), for loaders that read a
// folder or a set of files named by a prefix; returns the folder.
inline std::string as_file_in(std::string_view content, const char* folder, const char* name) {
  const std::string dir = "/tmp/dtsim-fuzz-" + std::string(folder) + "-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/" + name, std::ios::binary | std::ios::trunc)
      .write(content.data(), static_cast<std::streamsize>(content.size()));
  return dir;
}

// Runs `load`; a refusal (InputError) is the expected answer to bad input.
template <typename F>
void refuses_or_loads(F&& load) {
  try {
    load();
  } catch (const InputError&) {
  }
}

}  // namespace dtsim::fuzz
