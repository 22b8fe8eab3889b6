// Parsing and formatting of the units that scenario files use.
#include "core/base/units.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "core/base/error.hpp"

namespace dtsim {
namespace {

struct Unit {
  std::string_view suffix;
  double factor;  // multiply the number by this to get SI base units
};

constexpr std::array kByteUnits{
    Unit{"B", 1.0},         Unit{"KB", 1e3},           Unit{"MB", 1e6},
    Unit{"GB", 1e9},        Unit{"TB", 1e12},          Unit{"KiB", 1024.0},
    Unit{"MiB", 1048576.0}, Unit{"GiB", 1073741824.0}, Unit{"TiB", 1099511627776.0},
};
constexpr std::array kRateUnits{
    Unit{"bps", 1.0 / 8},        Unit{"Kbps", 1e3 / 8}, Unit{"Mbps", 1e6 / 8}, Unit{"Gbps", 1e9 / 8},
    Unit{"Tbps", 1e12 / 8},      Unit{"B/s", 1.0},      Unit{"KB/s", 1e3},     Unit{"MB/s", 1e6},
    Unit{"GB/s", 1e9},           Unit{"TB/s", 1e12},    Unit{"KiB/s", 1024.0}, Unit{"MiB/s", 1048576.0},
    Unit{"GiB/s", 1073741824.0},
};
constexpr std::array kTimeUnits{
    Unit{"ns", 1e-9}, Unit{"us", 1e-6}, Unit{"ms", 1e-3}, Unit{"s", 1.0}, Unit{"min", 60.0}, Unit{"h", 3600.0},
};
constexpr std::array kFlopUnits{
    Unit{"FLOP", 1.0},   Unit{"KFLOP", 1e3},  Unit{"MFLOP", 1e6},  Unit{"GFLOP", 1e9},
    Unit{"TFLOP", 1e12}, Unit{"PFLOP", 1e15}, Unit{"EFLOP", 1e18},
};
constexpr std::array kFlopRateUnits{
    Unit{"FLOPS", 1.0},   Unit{"KFLOPS", 1e3}, Unit{"MFLOPS", 1e6},  Unit{"GFLOPS", 1e9},   Unit{"TFLOPS", 1e12},
    Unit{"PFLOPS", 1e15}, Unit{"FLOP/s", 1.0}, Unit{"GFLOP/s", 1e9}, Unit{"TFLOP/s", 1e12}, Unit{"PFLOP/s", 1e15},
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Splits "12.5 GB/s" into the number and the unit; false if there is no leading number.
bool split_number(std::string_view text, double& value, std::string_view& unit) {
  text = trim(text);
  if (text.empty()) return false;
  const char* begin = text.data();
  const char* end = begin + text.size();
  if (*begin == '+') ++begin;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || !std::isfinite(value)) return false;
  unit = trim(std::string_view(ptr, static_cast<size_t>(end - ptr)));
  return true;
}

template <size_t N>
bool lookup(const std::array<Unit, N>& units, std::string_view suffix, double& factor) {
  for (const auto& u : units) {
    if (u.suffix == suffix) {
      factor = u.factor;
      return true;
    }
  }
  return false;
}

[[noreturn]] void invalid(std::string_view text, Quantity q) {
  throw InputError(fmt::format("'{}' is not {} ({})", text, quantity_name(q), quantity_hint(q)));
}

}  // namespace

std::string_view quantity_name(Quantity q) {
  switch (q) {
    case Quantity::Number: return "a number";
    case Quantity::Count: return "a count";
    case Quantity::Bytes: return "a size in bytes";
    case Quantity::Rate: return "a rate";
    case Quantity::Time: return "a time";
    case Quantity::Flops: return "a FLOP count";
    case Quantity::FlopRate: return "a FLOP rate";
  }
  return "a value";
}

std::string_view quantity_hint(Quantity q) {
  switch (q) {
    case Quantity::Number: return "use e.g. 0.5 or 1e-3";
    case Quantity::Count: return "use a whole number such as 8";
    case Quantity::Bytes: return "use e.g. 25MB or 64MiB; units B, KB, MB, GB, TB, KiB, MiB, GiB, TiB";
    case Quantity::Rate:
      return "use e.g. 100Gbps or 12.5GB/s; units bps, Kbps, Mbps, Gbps, Tbps, B/s, KB/s, MB/s, GB/s, "
             "TB/s, KiB/s, MiB/s, GiB/s";
    case Quantity::Time: return "use e.g. 5us or 1.5ms; units ns, us, ms, s, min, h";
    case Quantity::Flops: return "use e.g. 4.1GFLOP or 8e9; units FLOP, KFLOP, MFLOP, GFLOP, TFLOP, PFLOP, EFLOP";
    case Quantity::FlopRate: return "use e.g. 312TFLOPS or 19.5 TFLOP/s; units FLOPS, GFLOPS, TFLOPS, PFLOPS";
  }
  return "";
}

double parse_quantity(std::string_view text, Quantity q) {
  double value = 0;
  std::string_view unit;
  if (!split_number(text, value, unit)) invalid(text, q);
  double factor = 1.0;
  bool ok = false;
  switch (q) {
    case Quantity::Number: ok = unit.empty(); break;
    case Quantity::Count: ok = unit.empty() && value >= 0 && std::floor(value) == value; break;
    case Quantity::Bytes: ok = lookup(kByteUnits, unit, factor); break;
    case Quantity::Rate: ok = lookup(kRateUnits, unit, factor); break;
    case Quantity::Time: ok = lookup(kTimeUnits, unit, factor); break;
    case Quantity::Flops: ok = unit.empty() || lookup(kFlopUnits, unit, factor); break;
    case Quantity::FlopRate: ok = lookup(kFlopRateUnits, unit, factor); break;
  }
  if (!ok) invalid(text, q);
  return value * factor;
}

namespace {
std::string scaled(double v, const char* const* suffixes, int n, double step) {
  int i = 0;
  double a = std::fabs(v);
  while (i + 1 < n && a >= step) {
    a /= step;
    v /= step;
    ++i;
  }
  return fmt::format("{:.3g} {}", v, suffixes[i]);
}
}  // namespace

std::string format_bytes(double bytes) {
  static const char* const s[] = {"B", "KB", "MB", "GB", "TB", "PB"};
  return scaled(bytes, s, 6, 1000.0);
}

std::string format_rate(double bytes_per_s) {
  static const char* const s[] = {"B/s", "KB/s", "MB/s", "GB/s", "TB/s"};
  return scaled(bytes_per_s, s, 5, 1000.0);
}

std::string format_flop_rate(double flops_per_s) {
  static const char* const s[] = {"FLOPS", "KFLOPS", "MFLOPS", "GFLOPS", "TFLOPS", "PFLOPS", "EFLOPS"};
  return scaled(flops_per_s, s, 7, 1000.0);
}

std::string format_time(double seconds) {
  const double a = std::fabs(seconds);
  if (a == 0) return "0 s";
  if (a < 1e-6) return fmt::format("{:.3g} ns", seconds * 1e9);
  if (a < 1e-3) return fmt::format("{:.3g} us", seconds * 1e6);
  if (a < 1.0) return fmt::format("{:.3g} ms", seconds * 1e3);
  if (a < 120.0) return fmt::format("{:.3g} s", seconds);
  if (a < 7200.0) return fmt::format("{:.3g} min", seconds / 60);
  return fmt::format("{:.3g} h", seconds / 3600);
}

}  // namespace dtsim
