// Parsing of one scenario value, with errors that name the file, line, key and what is valid.
#include <optional>

#include <fmt/format.h>

#include "core/base/suggest.hpp"
#include "core/scenario/scalar_value.hpp"

namespace dtsim {

void ScalarValue::fail(const std::string& message) const {
  throw InputError(where_, fmt::format("{}: {}", key_, message));
}

void ScalarValue::fail_choice(const std::vector<std::string>& names) const {
  fail(fmt::format("'{}' is not valid (valid: {}){}", text_, fmt::join(names, ", "), did_you_mean(text_, names)));
}

namespace {

// What a value of each quantity can physically be, for every key of that quantity.
struct Meaningful {
  double lo, hi;
  const char* text;
  double min_nonzero = 0;  // a rate below it would turn a transfer or an op into centuries
};
std::optional<Meaningful> meaningful(Quantity q) {
  switch (q) {
    case Quantity::Time: return Meaningful{0, 1e9, "from 0 to 1e9 s (31 years)"};
    case Quantity::Bytes: return Meaningful{0, 1e15, "from 0 to 1 PB"};
    case Quantity::Rate: return Meaningful{0, 1e14, "0, or from 1 B/s to 100 TB/s", 1};
    case Quantity::Flops: return Meaningful{0, 1e18, "from 0 to 1 EFLOP"};
    case Quantity::FlopRate: return Meaningful{0, 1e18, "0, or from 1 FLOP/s to 1 EFLOP/s", 1};
    case Quantity::Number:
    case Quantity::Count: return std::nullopt;
  }
  return std::nullopt;
}

// The largest count a list element may hold: an int holds it, and no cluster or model comes near.
constexpr double kMaxListCount = 1e9;

// One whole number of a list (dimensions, indices, node counts); throws InputError past kMaxListCount.
int list_count(const std::string& part) {
  const double v = parse_quantity(part, Quantity::Count);
  if (v > kMaxListCount) throw InputError(fmt::format("{} is above {:.0f}", part, kMaxListCount));
  return static_cast<int>(v);
}

}  // namespace

double ScalarValue::quantity(Quantity q) const {
  double v = 0;
  try {
    v = parse_quantity(text_, q);
  } catch (const InputError& e) {
    fail(e.message());
  }
  if (const auto m = meaningful(q); m && (!(v >= m->lo && v <= m->hi) || (v > 0 && v < m->min_nonzero))) {
    fail(fmt::format("'{}' is outside what is physically meaningful: {}", text_, m->text));
  }
  return v;
}

double ScalarValue::positive(Quantity q) const {
  const double v = quantity(q);
  if (v <= 0) fail(fmt::format("must be greater than zero (got '{}')", text_));
  return v;
}

int ScalarValue::count(int min_value) const {
  const double v = quantity(Quantity::Count);
  if (v < min_value) fail(fmt::format("must be at least {} (got {})", min_value, text_));
  if (v > 1e9) fail(fmt::format("'{}' is too large (at most 1000000000)", text_));
  return static_cast<int>(v);
}

int ScalarValue::count(int min_value, int max_value) const {
  const int v = count(min_value);
  if (v > max_value) fail(fmt::format("must be from {} to {} (got {})", min_value, max_value, text_));
  return v;
}

bool ScalarValue::boolean() const {
  if (text_ == "true" || text_ == "yes" || text_ == "on") return true;
  if (text_ == "false" || text_ == "no" || text_ == "off") return false;
  fail(fmt::format("'{}' is not a boolean (use true or false)", text_));
}

std::vector<int> ScalarValue::dims() const {
  std::vector<int> out;
  size_t start = 0;
  while (start <= text_.size()) {
    const size_t x = text_.find('x', start);
    const std::string part = text_.substr(start, x == std::string::npos ? std::string::npos : x - start);
    int v = 0;
    try {
      v = list_count(part);
    } catch (const InputError&) {
      fail(fmt::format("'{}' is not a list of dimensions (use whole numbers up to {:.0f}, e.g. 4x4x2)", text_,
                       kMaxListCount));
    }
    if (v < 1) fail(fmt::format("'{}' has a dimension below 1 (use e.g. 4x4x2)", text_));
    out.push_back(v);
    if (x == std::string::npos) break;
    start = x + 1;
  }
  return out;
}

std::vector<int> ScalarValue::indices() const {
  std::vector<int> out;
  size_t start = 0;
  while (start < text_.size()) {
    const size_t comma = text_.find(',', start);
    const std::string part = text_.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    try {
      out.push_back(list_count(part));
    } catch (const InputError&) {
      fail(fmt::format("'{}' is not a list of indices (use whole numbers up to {:.0f}, e.g. 0,5,7)", text_,
                       kMaxListCount));
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

double ScalarValue::at_least(double min_value) const {
  const double v = quantity(Quantity::Number);
  if (v < min_value) fail(fmt::format("must be at least {} (got {})", min_value, text_));
  return v;
}

double ScalarValue::between(double lo, double hi) const {
  const double v = quantity(Quantity::Number);
  if (!(v >= lo && v <= hi)) fail(fmt::format("must be from {:g} to {:g} (got {})", lo, hi, text_));
  return v;
}

std::vector<std::pair<std::string, int>> ScalarValue::device_counts() const {
  std::vector<std::pair<std::string, int>> out;
  size_t start = 0;
  while (start <= text_.size()) {
    const size_t comma = text_.find(',', start);
    const std::string part = text_.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const size_t colon = part.find(':');
    int count = 0;
    try {
      if (colon == std::string::npos) throw InputError("no count");
      count = list_count(part.substr(colon + 1));
    } catch (const InputError&) {
      fail(fmt::format("'{}' is not a device mix (use device:nodes pairs, e.g. a100_40gb:2,v100_16gb:2)", text_));
    }
    if (count < 1) fail(fmt::format("'{}': each device needs at least one node", text_));
    out.emplace_back(part.substr(0, colon), count);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::vector<std::pair<double, double>> ScalarValue::size_rates() const {
  std::vector<std::pair<double, double>> out;
  size_t start = 0;
  while (start <= text_.size()) {
    const size_t comma = text_.find(',', start);
    const std::string part = text_.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const size_t colon = part.find(':');
    double size = 0, rate = 0;
    try {
      if (colon == std::string::npos) throw InputError("no rate");
      size = parse_quantity(part.substr(0, colon), Quantity::Bytes);
      rate = parse_quantity(part.substr(colon + 1), Quantity::Rate);
    } catch (const InputError&) {
      fail(fmt::format("'{}' is not a list of size:rate points (e.g. 16MB:109GB/s,64MB:167GB/s)", part));
    }
    if (size <= 0 || rate <= 0) fail(fmt::format("'{}': sizes and rates must be positive", part));
    if (!out.empty() && size <= out.back().first) fail(fmt::format("'{}': sizes must ascend", part));
    out.emplace_back(size, rate);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

DeviceSpec ScalarValue::device() const {
  try {
    return load_device(text_);
  } catch (const InputError& e) {
    fail(e.message());
  }
}

}  // namespace dtsim
