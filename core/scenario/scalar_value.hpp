// One scenario value as written in the file or on the command line, with where it was written,
// and its parsing into quantities, counts, choices and device names with located errors.
#pragma once

#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/base/error.hpp"
#include "core/base/units.hpp"
#include "models/zoo/device.hpp"

namespace dtsim {

// A scalar as written in the file or on the command line, with where it was written.
class ScalarValue {
 public:
  ScalarValue(std::string key, std::string text, SourceLocation where)
      : key_(std::move(key)), text_(std::move(text)), where_(std::move(where)) {}

  const std::string& text() const { return text_; }
  const SourceLocation& where() const { return where_; }

  // Times, sizes, rates and FLOPs are refused outside what is physically meaningful (never negative;
  // at most 1e9 s, 1 PB, 100 TB/s, 1 EFLOP per sample, 1 EFLOP/s; a nonzero rate at least 1 B/s or 1 FLOP/s): the
  // message says the bound.
  double quantity(Quantity q) const;
  double positive(Quantity q) const;                               // > 0
  int count(int min_value) const;                                  // whole number >= min_value
  int count(int min_value, int max_value) const;                   // whole number in [min_value, max_value]
  bool boolean() const;                                            // true/false, yes/no, on/off
  std::vector<int> dims() const;                                   // "4x4x2"
  std::vector<int> indices() const;                                // "0,5,7" (may be empty)
  double at_least(double min_value) const;                         // a number >= min_value
  double between(double lo, double hi) const;                      // a number in [lo, hi]
  DeviceSpec device() const;                                       // a device zoo name
  std::vector<std::pair<std::string, int>> device_counts() const;  // "a100_40gb:2,v100_16gb:2"
  // "16MB:109GB/s,64MB:167GB/s": sizes ascending, rates positive.
  std::vector<std::pair<double, double>> size_rates() const;
  template <typename E>
  E choice(const std::vector<std::pair<std::string, E>>& options) const;

  [[noreturn]] void fail(const std::string& message) const;

 private:
  [[noreturn]] void fail_choice(const std::vector<std::string>& names) const;
  std::string key_;
  std::string text_;
  SourceLocation where_;
};

template <typename E>
E ScalarValue::choice(const std::vector<std::pair<std::string, E>>& options) const {
  std::vector<std::string> names;
  for (const auto& [name, value] : options) {
    if (name == text_) return value;
    names.push_back(name);
  }
  fail_choice(names);
}

// A choice key's names and values from a traits table (each row's `name` and its `value`), for ScalarValue::choice.
template <typename E, typename Row>
std::vector<std::pair<std::string, E>> choices_from(std::span<const Row> rows, E Row::*value) {
  std::vector<std::pair<std::string, E>> choices;
  for (const Row& row : rows) choices.emplace_back(row.name, row.*value);
  return choices;
}

}  // namespace dtsim
