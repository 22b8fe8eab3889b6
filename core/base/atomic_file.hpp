// Results are written whole or not at all: to a temporary name, then renamed into place.
#pragma once

#include <string>
#include <string_view>

namespace dtsim {

// Throws RuntimeError naming the path if it cannot be written.
void write_file_atomic(const std::string& path, std::string_view content);

}  // namespace dtsim
