// Results are written whole or not at all: to a temporary name, then renamed into place.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace dtsim {

// Throws RuntimeError naming the path if it cannot be written. Temporaries of the same path left by
// processes that no longer exist (a writer killed mid-write, kill -9) are removed first.
void write_file_atomic(const std::string& path, std::string_view content);

// Receives a file's content piece by piece, in order.
using ChunkSink = std::function<void(std::string_view)>;
// The same for content too large to hold at once: `produce` hands it to the sink in pieces, which go
// to the temporary as they come; an exception from `produce` removes the temporary and propagates.
void write_file_atomic(const std::string& path, const std::function<void(const ChunkSink&)>& produce);

// Removes `path.tmp.<pid>` files whose process is gone; returns how many.
int remove_stale_temporaries(const std::string& path);

}  // namespace dtsim
