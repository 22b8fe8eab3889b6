// Parsing `--param` values: lists and integer ranges.
#include "sim/sweep/sweep_param.hpp"

#include <charconv>

#include <fmt/format.h>

#include "core/base/error.hpp"

namespace dtsim::sweep {
namespace {

constexpr long kMaxValues = 100000;

long parse_long(const std::string& text, const SourceLocation& where, const char* what) {
  long v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) {
    throw InputError(where,
                     fmt::format("'{}' is not an integer {} (ranges look like 1..1024:x2 or 1..16:+4)", text, what));
  }
  return v;
}

std::vector<std::string> parse_range(const std::string& text, const SourceLocation& where) {
  const size_t dots = text.find("..");
  const size_t colon = text.find(':', dots);
  const long lo = parse_long(text.substr(0, dots), where, "start");
  const long hi = parse_long(text.substr(dots + 2, colon == std::string::npos ? std::string::npos : colon - dots - 2),
                             where, "end");
  std::string step = colon == std::string::npos ? "+1" : text.substr(colon + 1);
  if (step.size() < 2 || (step[0] != 'x' && step[0] != '+')) {
    throw InputError(where, fmt::format("'{}' is not a step (use :x2 for doubling or :+4 for adding 4)", step));
  }
  const long by = parse_long(step.substr(1), where, "step");
  if (hi < lo) throw InputError(where, fmt::format("the range ends ({}) before it starts ({})", hi, lo));
  if ((step[0] == 'x' && (by < 2 || lo < 1)) || (step[0] == '+' && by < 1)) {
    throw InputError(where, "the step must grow the value (x2 and more from a start of 1 or more, +1 and more)");
  }
  std::vector<std::string> values;
  for (long v = lo; v <= hi; v = step[0] == 'x' ? v * by : v + by) {
    if (static_cast<long>(values.size()) >= kMaxValues) {
      throw InputError(where, fmt::format("the range has more than {} values", kMaxValues));
    }
    values.push_back(std::to_string(v));
  }
  return values;
}

}  // namespace

SweepParam parse_sweep_param(const std::string& text) {
  const SourceLocation where{"--param " + text, 0, 0};
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    throw InputError(where, "expected key.path=v1,v2,... or key.path=1..64:x2");
  }
  SweepParam p;
  p.key = text.substr(0, eq);
  const std::string rhs = text.substr(eq + 1);
  if (rhs.find("..") != std::string::npos) {
    p.values = parse_range(rhs, where);
    return p;
  }
  size_t start = 0;
  while (true) {
    const size_t comma = rhs.find(',', start);
    std::string v = rhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (v.empty()) throw InputError(where, "an empty value in the list");
    p.values.push_back(std::move(v));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return p;
}

std::vector<std::vector<std::string>> expand_grid(const std::vector<SweepParam>& params) {
  std::vector<std::vector<std::string>> grid{{}};
  for (const auto& p : params) {
    std::vector<std::vector<std::string>> next;
    next.reserve(grid.size() * p.values.size());
    for (const auto& partial : grid) {
      for (const auto& v : p.values) {
        auto point = partial;
        point.push_back(p.key + "=" + v);
        next.push_back(std::move(point));
      }
    }
    grid.swap(next);
  }
  return grid;
}

}  // namespace dtsim::sweep
