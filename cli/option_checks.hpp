// How dtsim's and dtsim-real's command lines check what they are given:
// - a number option refuses NaN and infinities as CLI11 refuses a value out of range, naming the option. CLI11's own
//   Range and PositiveNumber let NaN through (every comparison with NaN is false), and a NaN option then silently
//   stood for its default (dtsim tune --max-memory-fraction nan ran);
// - a usage error is one line, as every bad input is (CLI11 adds a second, "Run with --help ...").
#pragma once

#include <cmath>
#include <cstdlib>
#include <string>

#include <CLI/CLI.hpp>

namespace dtsim::cli {

inline const CLI::Validator& finite_number() {
  static const CLI::Validator finite(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        // Text that is not a number at all is left to the option's conversion, which names it.
        if (end == text.c_str() || *end != '\0' || std::isfinite(value)) return {};
        return "Value " + text + " is not a finite number";
      },
      "FINITE");
  return finite;
}

// Set on the top-level app before its subcommands are made (they copy it).
inline void one_line_usage_errors(CLI::App& app) {
  app.failure_message(
      [](const CLI::App*, const CLI::Error& e) { return std::string(e.what()) + " (--help lists the options)\n"; });
}

}  // namespace dtsim::cli
