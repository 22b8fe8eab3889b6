// Lookup of embedded data files by path.
#include "models/zoo/embedded_data.hpp"

namespace dtsim::data {

std::optional<std::string_view> find(std::string_view path) {
  for (const auto& f : files()) {
    if (f.path == path) return f.text;
  }
  return std::nullopt;
}

}  // namespace dtsim::data
