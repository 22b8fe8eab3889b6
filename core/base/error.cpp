// Formatting of error locations in the one-line style docs/architecture.md asks for.
#include "core/base/error.hpp"

#include <fmt/format.h>

#include "core/base/text.hpp"

namespace dtsim {

std::string SourceLocation::str() const {
  if (file.empty()) return {};
  if (line <= 0) return file;
  if (col <= 0) return fmt::format("{}:{}", file, line);
  return fmt::format("{}:{}:{}", file, line, col);
}

namespace {
// Outside text in the line (a file's name, a value read from a binary file) is escaped (text.hpp).
std::string format_error(const SourceLocation& where, const std::string& message) {
  const std::string loc = printable(where.str());
  return loc.empty() ? fmt::format("error: {}", printable(message))
                     : fmt::format("{}: error: {}", loc, printable(message));
}
}  // namespace

InputError::InputError(SourceLocation where, const std::string& message)
    : std::runtime_error(format_error(where, message)), where_(std::move(where)), message_(message) {}

InputError::InputError(const std::string& message) : InputError(SourceLocation{}, message) {}

}  // namespace dtsim
