// Results are written whole or not at all: to a temporary name, then renamed into place.
#pragma once

#include <string>
#include <string_view>

namespace dtsim {

// Throws RuntimeError naming the path if it cannot be written. Temporaries of the same path left by
// processes that no longer exist (a writer killed mid-write, kill -9) are removed first.
void write_file_atomic(const std::string& path, std::string_view content);

// Removes `path.tmp.<pid>` files whose process is gone; returns how many.
int remove_stale_temporaries(const std::string& path);

}  // namespace dtsim
