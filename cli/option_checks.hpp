// How dtsim's and dtsim-real's command lines check what they are given:
// - a number option refuses NaN and infinities as CLI11 refuses a value out of range, naming the option. CLI11's own
//   Range and PositiveNumber let NaN through (every comparison with NaN is false), and a NaN option then silently
//   stood for its default (dtsim tune --max-memory-fraction nan ran);
// - a usage error is one line, as every bad input is (CLI11 adds a second, "Run with --help ...");
// - an engine or a backend is one of the names of their tables (core/base/executors.hpp), never a list written here.
#pragma once

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/base/executors.hpp"

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

// --backend into a Backend, one of the backends' names (CLI::IsMember refuses any other, naming the valid ones).
inline CLI::Option* add_backend_option(CLI::App* app, Backend& backend, const std::string& help) {
  std::vector<std::string> names;
  for (const BackendTraits& t : backends()) names.emplace_back(t.name);
  return app
      ->add_option_function<std::string>(
          "--backend", [&backend](const std::string& name) { backend = backend_named(name).value_or(backend); },
          help + " (one of: " + backend_names() + ")")
      ->check(CLI::IsMember(names))
      ->default_str(std::string(backend_name(backend)));
}

// The engines' names, for an --engine option that must hold one (CLI::IsMember).
inline std::vector<std::string> engine_name_list() {
  std::vector<std::string> names;
  for (const EngineTraits& t : engines()) names.emplace_back(t.name);
  return names;
}

}  // namespace dtsim::cli
