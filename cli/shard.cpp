// --shard i/n (shard.hpp).
#include "cli/shard.hpp"

#include <stdexcept>

#include "core/base/error.hpp"

namespace dtsim::cli {

std::pair<size_t, size_t> parse_shard(const std::string& text) {
  if (text.empty()) return {0, 1};
  const SourceLocation where{"--shard " + text, 0, 0};
  const size_t slash = text.find('/');
  try {
    if (slash == std::string::npos) throw std::invalid_argument("no slash");
    size_t used = 0;
    const unsigned long i = std::stoul(text.substr(0, slash), &used);
    if (used != slash) throw std::invalid_argument("index");
    const std::string n_text = text.substr(slash + 1);
    const unsigned long n = std::stoul(n_text, &used);
    if (used != n_text.size() || n == 0 || i >= n) throw std::invalid_argument("range");
    return {i, n};
  } catch (const std::logic_error&) {
    throw InputError(where, "expected i/n with 0 <= i < n, e.g. --shard 0/4");
  }
}

}  // namespace dtsim::cli
