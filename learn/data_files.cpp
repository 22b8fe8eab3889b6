// Loaders of a user's data: CSV (label, features...) and MNIST IDX files. Every mistake is one
// InputError line that names the file (and line and column for CSV) and says what is valid.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/base/available_memory.hpp"
#include "core/base/error.hpp"
#include "learn/dataset.hpp"

namespace dtsim::learn {
namespace {

// Labels of a CSV go from 0 to kMaxClasses - 1: ImageNet-21k has 21,841 classes, and the proxy keeps
// a weight row per class (100,000 classes of 784 features are 627 MB of doubles per copy).
constexpr double kMaxClasses = 100000;

// Bytes a run holds per byte of a data file, read and split into training and held-out samples (docs/PERFORMANCE.md):
// a CSV's rows as they are read, then its matrix of doubles twice, measured 10.8 on 5e6 lines of 4 B (a label and one
// feature; 7.4 on 200 lines of 50,000 features); an IDX file's bytes twice, then its pixels as doubles twice, measured
// 14.4 on 50,000 MNIST-sized images.
constexpr double kBytesPerCsvByte = 10.8;
constexpr double kBytesPerIdxByte = 14.5;

bool parse_number(const std::string& text, double& value) {
  const char* begin = text.c_str();
  while (*begin == ' ' || *begin == '\t') ++begin;
  char* end = nullptr;
  value = std::strtod(begin, &end);
  if (end == begin) return false;
  while (*end == ' ' || *end == '\t' || *end == '\r') ++end;
  return *end == '\0' && std::isfinite(value);
}

// Zero mean and unit variance per feature (constant features become 0).
void standardise(Eigen::MatrixXd& x) {
  for (Eigen::Index f = 0; f < x.rows(); ++f) {
    const double mean = x.row(f).mean();
    x.row(f).array() -= mean;
    const double sd = std::sqrt(x.row(f).squaredNorm() / static_cast<double>(x.cols()));
    if (sd > 0) x.row(f) /= sd;
  }
}

}  // namespace

Dataset load_csv(const std::string& path) {
  refuse_if_too_big_to_read(path, "the convergence CSV", kBytesPerCsvByte, "CSV");
  std::ifstream in(path);
  if (!in) throw InputError(SourceLocation{path}, "cannot read the CSV file");
  std::vector<std::vector<double>> rows;
  std::string line;
  size_t width = 0;
  int line_no = 0, first_line = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    std::vector<double> row;
    std::vector<std::pair<std::string, int>> fields;  // text and 1-based column
    size_t start = 0;
    while (true) {
      const size_t comma = line.find(',', start);
      fields.emplace_back(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start),
                          static_cast<int>(start) + 1);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    bool any_number = false;
    for (const auto& [text, col] : fields) {
      double v = 0;
      any_number = any_number || parse_number(text, v);
    }
    if (rows.empty() && first_line == 0 && !any_number) {
      first_line = line_no;  // a header
      continue;
    }
    for (const auto& [text, col] : fields) {
      double v = 0;
      if (!parse_number(text, v)) {
        throw InputError(
            SourceLocation{path, line_no, col},
            fmt::format("'{}' is not a number (each line: an integer label, then numeric features)", text));
      }
      row.push_back(v);
    }
    if (row.size() < 2) {
      throw InputError(SourceLocation{path, line_no, 1}, "a line needs a label and at least one feature");
    }
    if (row[0] < 0 || row[0] != std::floor(row[0])) {
      throw InputError(SourceLocation{path, line_no, 1},
                       fmt::format("label '{}' is not a whole number >= 0", fields[0].first));
    }
    // The proxy model keeps a weight row and an output per class: labels size it.
    if (row[0] >= kMaxClasses) {
      throw InputError(SourceLocation{path, line_no, 1},
                       fmt::format("label '{}' is too large: labels go from 0 to {} (the proxy model has one output "
                                   "per class)",
                                   fields[0].first, kMaxClasses - 1));
    }
    if (width == 0) width = row.size();
    if (row.size() != width) {
      throw InputError(SourceLocation{path, line_no, 1},
                       fmt::format("{} fields, but the first data line has {} (label, then {} features)", row.size(),
                                   width, width - 1));
    }
    rows.push_back(std::move(row));
  }
  if (rows.size() < 2) throw InputError(SourceLocation{path}, "needs at least two samples (lines: label, features...)");
  Dataset d;
  d.x.resize(static_cast<Eigen::Index>(width - 1), static_cast<Eigen::Index>(rows.size()));
  for (size_t s = 0; s < rows.size(); ++s) {
    d.y.push_back(static_cast<int>(rows[s][0]));
    d.classes = std::max(d.classes, d.y.back() + 1);
    for (size_t f = 1; f < width; ++f) d.x(static_cast<Eigen::Index>(f - 1), static_cast<Eigen::Index>(s)) = rows[s][f];
  }
  if (d.classes < 2) throw InputError(SourceLocation{path}, "needs at least two classes (labels 0 and 1 at least)");
  standardise(d.x);
  return d;
}

namespace {

struct IdxFile {
  std::vector<uint32_t> dims;
  std::string data;
};

IdxFile read_idx(const std::string& path, uint32_t magic, const char* what) {
  refuse_if_too_big_to_read(path, fmt::format("the IDX {} file", what), kBytesPerIdxByte, "IDX");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(SourceLocation{path}, fmt::format("cannot read the IDX {} file", what));
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto be32 = [&bytes](size_t at) {
    uint32_t v = 0;
    for (size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
    return v;
  };
  if (bytes.size() < 4 || be32(0) != magic) {
    throw InputError(SourceLocation{path},
                     fmt::format("not an IDX {} file (its first 4 bytes must be 0x{:08x}: unsigned bytes, {} "
                                 "dimension{})",
                                 what, magic, magic & 0xff, (magic & 0xff) > 1 ? "s" : ""));
  }
  IdxFile f;
  const size_t rank = magic & 0xff;
  if (bytes.size() < 4 + 4 * rank) throw InputError(SourceLocation{path}, "truncated IDX header");
  size_t expected = 1;
  for (size_t i = 0; i < rank; ++i) {
    f.dims.push_back(be32(4 + 4 * i));
    expected *= f.dims.back();
  }
  f.data = bytes.substr(4 + 4 * rank);
  if (f.data.size() != expected) {
    throw InputError(SourceLocation{path},
                     fmt::format("IDX {} file holds {} data bytes, its header says {}", what, f.data.size(), expected));
  }
  return f;
}

}  // namespace

Dataset load_idx(const std::string& images, const std::string& labels) {
  const IdxFile im = read_idx(images, 0x00000803, "images");
  const IdxFile lb = read_idx(labels, 0x00000801, "labels");
  if (im.dims[0] != lb.dims[0]) {
    throw InputError(SourceLocation{labels},
                     fmt::format("{} labels for {} images in {}", lb.dims[0], im.dims[0], images));
  }
  if (im.dims[0] < 2) throw InputError(SourceLocation{images}, "needs at least two images");
  const Eigen::Index pixels = static_cast<Eigen::Index>(im.dims[1]) * im.dims[2];
  Dataset d;
  d.x.resize(pixels, im.dims[0]);
  for (Eigen::Index s = 0; s < d.x.cols(); ++s) {
    for (Eigen::Index p = 0; p < pixels; ++p) {
      d.x(p, s) = static_cast<unsigned char>(im.data[static_cast<size_t>(s * pixels + p)]) / 255.0;
    }
    d.y.push_back(static_cast<unsigned char>(lb.data[static_cast<size_t>(s)]));
    d.classes = std::max(d.classes, d.y.back() + 1);
  }
  if (d.classes < 2) throw InputError(SourceLocation{labels}, "needs at least two classes");
  return d;
}

}  // namespace dtsim::learn
