// Piecewise-constant profiles: reading them from files and inline specs, and integrating work over them.
#include "core/base/profile.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include <fmt/format.h>

#include "core/base/available_memory.hpp"
#include "core/base/error.hpp"
#include "core/base/units.hpp"

namespace dtsim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A time: seconds as a bare number, or a quantity with a unit (10s, 2.5min).
double parse_time(const std::string& text) {
  const bool bare = !text.empty() && text.find_first_not_of("0123456789.eE+-") == std::string::npos;
  return bare ? parse_quantity(text, Quantity::Number) : parse_quantity(text, Quantity::Time);
}

std::string factor_range(double max_factor) {
  return std::isinf(max_factor) ? "a number > 0" : fmt::format("a number in (0, {}]", max_factor);
}

std::string period_too_short(double period) {
  return fmt::format("period {} s is shorter than the {} ms a profile may repeat at (valid: 1ms or more)", period,
                     kMinProfilePeriod * 1e3);
}

bool valid_factor(double f, double max_factor) { return f > 0 && f <= max_factor && std::isfinite(f); }

// Makes times[0] == 0 (factor 1 before the first point) and checks the period.
void normalise(Profile& p) {
  if (p.times.empty() || p.times.front() > 0) {
    p.times.insert(p.times.begin(), 0.0);
    p.factors.insert(p.factors.begin(), 1.0);
  }
}

// Where t falls in a periodic profile: the start of its period and the offset into it. Times a
// rounding error short of a period boundary count as on it (0.11 / 0.01 is 10.999...).
std::pair<double, double> locate(double t, double period) {
  t = std::max(t, 0.0);
  double k = std::floor(t / period);
  double local = t - k * period;
  if (local >= period * (1 - 1e-9)) {
    k += 1;
    local = 0;
  }
  return {k * period, std::max(local, 0.0)};
}

}  // namespace

double Profile::factor_at(double t) const {
  if (times.empty()) return 1.0;
  if (period > 0) t = locate(t, period).second;
  const auto it = std::upper_bound(times.begin(), times.end(), t);
  return it == times.begin() ? 1.0 : factors[static_cast<size_t>(it - times.begin()) - 1];
}

double Profile::next_change(double t) const {
  if (times.empty()) return kInf;
  if (period > 0) {
    const auto [base, local] = locate(t, period);
    const auto it = std::upper_bound(times.begin(), times.end(), local);
    const double next = it == times.end() ? period : *it;
    // Where rounding puts t on the boundary itself (base + next == t), the next representable time
    // after it: a step of period x 1e-12 is below the spacing of doubles from about 1e3 s of a 50 ms
    // period on, and the loops over pieces would never end (found by fuzz/fuzz_speed_profile).
    const double change = base + next;
    return change > t ? change : std::nextafter(t, kInf);
  }
  const auto it = std::upper_bound(times.begin(), times.end(), t);
  return it == times.end() ? kInf : *it;
}

double Profile::finish(double start, double work) const {
  if (work <= 0 || times.empty()) return start + std::max(work, 0.0);
  double t = start;
  if (period > 0) {
    // Whole periods at once: align to the next period boundary, then skip the periods the work covers.
    const double boundary = std::ceil(t / period) * period;
    const double head = work_between(t, boundary);
    if (head < work) {
      const double per_period = work_between(0, period);
      const double whole = std::floor((work - head) / per_period);
      work -= head + whole * per_period;
      t = boundary + whole * period;
    }
  }
  return finish_under_minimum({this}, t, work);
}

double Profile::work_between(double t0, double t1) const {
  double done = 0;
  for (double t = t0; t < t1;) {
    const double next = std::min(next_change(t), t1);
    done += (next - t) * factor_at(t);
    t = next;
  }
  return done;
}

double finish_under_minimum(const std::vector<const Profile*>& profiles, double start, double work) {
  double t = start;
  while (work > 0) {
    double f = profiles.empty() ? 1.0 : kInf;
    double next = kInf;
    for (const Profile* p : profiles) {
      f = std::min(f, p->factor_at(t));
      next = std::min(next, p->next_change(t));
    }
    const double can = (next - t) * f;
    if (can >= work) return t + work / f;
    work -= can;
    t = next;
  }
  return t;
}

bool is_inline_profile(const std::string& text) { return text.find('=') != std::string::npos; }

Profile parse_inline_profile(const std::string& text, double max_factor) {
  const std::string valid = fmt::format(
      "'{}' is not a profile (use a file, or e.g. period=2s,duty=0.5,factor=0.25 with factor {} and duty in (0, 1))",
      text, factor_range(max_factor));
  double period = 0, duty = -1, factor = -1, offset = 0;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    const auto eq = part.find('=');
    if (eq == std::string::npos) throw InputError(valid);
    const std::string name = part.substr(0, eq), value = part.substr(eq + 1);
    try {
      if (name == "period") {
        period = parse_time(value);
      } else if (name == "duty") {
        duty = parse_quantity(value, Quantity::Number);
      } else if (name == "factor") {
        factor = parse_quantity(value, Quantity::Number);
      } else if (name == "offset") {
        offset = parse_time(value);
      } else {
        throw InputError(valid);
      }
    } catch (const InputError&) {
      throw InputError(valid);
    }
  }
  if (!(period > 0) || !(duty > 0 && duty < 1) || !valid_factor(factor, max_factor) || offset < 0) {
    throw InputError(valid);
  }
  if (period < kMinProfilePeriod) throw InputError(period_too_short(period));
  // Full for duty * period from `offset`, degraded for the rest of the period.
  const double on = std::fmod(offset, period), off = std::fmod(offset + duty * period, period);
  Profile p;
  p.source = text;
  p.period = period;
  if (on < off) {
    p.times = {0.0, on, off};
    p.factors = {factor, 1.0, factor};
  } else {
    p.times = {0.0, off, on};
    p.factors = {1.0, factor, 1.0};
  }
  // Drop empty pieces (a zero offset gives two points at 0).
  for (size_t i = p.times.size() - 1; i > 0; --i) {
    if (p.times[i] == p.times[i - 1]) {
      p.times.erase(p.times.begin() + static_cast<long>(i) - 1);
      p.factors.erase(p.factors.begin() + static_cast<long>(i) - 1);
    }
  }
  return p;
}

// Bytes a run holds per byte of a profile file (the scenario's points, the plan's copy, the engine's): measured 3.05 on
// the SimGrid engine and 1.74 in `dtsim check`, on 4e6 points of 10.7 B a line (docs/PERFORMANCE.md).
constexpr double kBytesPerProfileByte = 3.1;

Profile load_profile(const std::string& path, double max_factor) {
  refuse_if_too_big_to_read(path, "the profile", kBytesPerProfileByte, "profile text");
  std::ifstream in(path);
  if (!in) throw InputError(SourceLocation{path}, fmt::format("cannot read the profile '{}'", path));
  Profile p;
  p.source = path;
  std::string line;
  int period_line = 0;
  for (int n = 1; std::getline(in, line); ++n) {
    line = line.substr(0, line.find('#'));
    std::replace(line.begin(), line.end(), ',', ' ');
    std::stringstream words(line);
    std::string a, b, extra;
    words >> a >> b >> extra;
    if (a.empty()) continue;
    const int col = static_cast<int>(line.find(a)) + 1;
    const SourceLocation at{path, n, col};
    const std::string valid = fmt::format(
        "'{}' is not a profile point (use `time factor`, e.g. `10s 0.5`, with factor "
        "{} and times increasing, or `period 60s`)",
        line.substr(static_cast<size_t>(col) - 1), factor_range(max_factor));
    if (b.empty() || !extra.empty()) throw InputError(at, valid);
    if (a == "period") {
      try {
        p.period = parse_time(b);
      } catch (const InputError&) {
        throw InputError(at, valid);
      }
      if (!(p.period > 0)) throw InputError(at, valid);
      if (p.period < kMinProfilePeriod) throw InputError(at, period_too_short(p.period));
      period_line = n;
      continue;
    }
    double t = 0, f = 0;
    try {
      t = parse_time(a);
      f = parse_quantity(b, Quantity::Number);
    } catch (const InputError&) {
      throw InputError(at, valid);
    }
    if (t < 0 || !valid_factor(f, max_factor) || (!p.times.empty() && t <= p.times.back())) throw InputError(at, valid);
    p.times.push_back(t);
    p.factors.push_back(f);
  }
  if (p.times.empty()) {
    throw InputError(SourceLocation{path}, "the profile has no points (one `time factor` per line, e.g. `0 0.5`)");
  }
  if (p.period > 0 && p.times.back() >= p.period) {
    throw InputError(
        SourceLocation{path, period_line, 1},
        fmt::format("period {} s must exceed the last time of the profile ({} s)", p.period, p.times.back()));
  }
  normalise(p);
  return p;
}

}  // namespace dtsim
