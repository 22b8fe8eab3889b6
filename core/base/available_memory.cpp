// What the machine has available (available_memory.hpp).
#include "core/base/available_memory.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <fmt/format.h>

#include "core/base/error.hpp"
#include "core/base/units.hpp"

namespace dtsim {
namespace {

// Bytes held per byte of YAML parsed (available_memory.hpp).
constexpr double kBytesPerYamlByte = 73;

// Address space against resident memory, measured (available_memory.hpp): at most 1 GB plus twice the data.
constexpr double kAddressBase = 1e9;
constexpr double kAddressPerByte = 2;

}  // namespace

Available available_memory() {
  Available a{std::numeric_limits<double>::infinity(), "this machine has available"};
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream in(line);
    std::string key;
    double kb = 0;
    if (in >> key >> kb && key == "MemAvailable:") a.bytes = kb * 1024;
  }
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    const double usable = std::max(0.0, (static_cast<double>(limit.rlim_cur) - kAddressBase) / kAddressPerByte);
    if (usable < a.bytes)
      a = {usable, fmt::format("the {} address space of `ulimit -v` leaves for data",
                               format_bytes(static_cast<double>(limit.rlim_cur)))};
  }
  return a;
}

void refuse_if_too_big_to_read(const std::string& path, const std::string& what, double bytes_per_byte,
                               const std::string& of) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return;
  const double need = bytes_per_byte * static_cast<double>(size);
  const Available available = available_memory();
  if (need <= available.bytes) return;
  throw InputError(SourceLocation{path},
                   fmt::format("{} is {}: read, it would hold about {} ({:.3g} B a byte of {}), more than the {} {}",
                               what, format_bytes(static_cast<double>(size)), format_bytes(need), bytes_per_byte, of,
                               format_bytes(available.bytes), available.what));
}

void refuse_if_too_big_to_parse(const std::string& path, const std::string& what) {
  refuse_if_too_big_to_read(path, what, kBytesPerYamlByte, "YAML");
}

}  // namespace dtsim
