#include "models/collectives/nccl/busbw_curve.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/base/error.hpp"

namespace dtsim::nccl {
namespace {

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  if (sep == ' ') {
    std::istringstream in(line);
    for (std::string f; in >> f;) out.push_back(f);
    return out;
  }
  std::string f;
  std::istringstream in(line);
  while (std::getline(in, f, sep)) out.push_back(trim(f));
  return out;
}

// The whole field as a finite number, or nothing.
bool number(const std::string& field, double& value) {
  if (field.empty()) return false;
  char* end = nullptr;
  value = std::strtod(field.c_str(), &end);
  return end == field.c_str() + field.size() && std::isfinite(value);
}

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// Appends the point; a size of 0 bytes (what nccl-tests prints for sizes below one element per rank) is skipped.
void add_point(std::vector<BusbwPoint>& points, const std::string& path, int line, const std::string& size,
               const std::string& busbw, const std::string& busbw_name) {
  BusbwPoint p;
  if (!number(size, p.bytes) || p.bytes < 0) {
    throw InputError({path, line, 0}, fmt::format("'{}' is not a size in bytes (a number of at least 0)", size));
  }
  double gbps = 0;
  if (!number(busbw, gbps) || gbps < 0) {
    throw InputError({path, line, 0}, fmt::format("'{}' is not a bus bandwidth in GB/s ({}: a number of at least 0)",
                                                  busbw, busbw_name));
  }
  p.busbw = gbps * 1e9;
  if (p.bytes > 0) points.push_back(p);
}

}  // namespace

std::vector<BusbwPoint> parse_busbw_curve(const std::string& text, const std::string& path) {
  std::vector<std::string> lines;
  {
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  std::vector<BusbwPoint> points;
  // A CSV: its first line that is neither empty nor a comment names the columns, `bytes` among them.
  size_t first = 0;
  while (first < lines.size() && (trim(lines[first]).empty() || trim(lines[first])[0] == '#')) ++first;
  std::vector<std::string> header;
  if (first < lines.size()) header = split(trim(lines[first]), ',');
  int bytes_col = -1, busbw_col = -1;
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] == "bytes") bytes_col = static_cast<int>(i);
    if (header[i] == "busbw_GBps") busbw_col = static_cast<int>(i);
  }
  if (header.size() > 1 && bytes_col >= 0) {
    if (busbw_col < 0) {
      throw InputError({path, static_cast<int>(first) + 1, 0},
                       "a CSV curve needs the columns bytes and busbw_GBps in its header (or give nccl-tests' own "
                       "output)");
    }
    for (size_t i = first + 1; i < lines.size(); ++i) {
      const std::string l = trim(lines[i]);
      if (l.empty() || l[0] == '#') continue;
      const std::vector<std::string> f = split(l, ',');
      const size_t need = static_cast<size_t>(std::max(bytes_col, busbw_col)) + 1;
      if (f.size() < need) {
        throw InputError({path, static_cast<int>(i) + 1, 0},
                         fmt::format("{} columns where the header has {}", f.size(), header.size()));
      }
      add_point(points, path, static_cast<int>(i) + 1, f[static_cast<size_t>(bytes_col)],
                f[static_cast<size_t>(busbw_col)], "column busbw_GBps");
    }
  } else {
    // nccl-tests: size count type redop [root] time algbw busbw #wrong time algbw busbw #wrong, each line perhaps
    // after the `N:` of the task that printed it (srun -l, mpirun --tag-output's `[1,0]<stdout>:` are not numbers).
    for (size_t i = 0; i < lines.size(); ++i) {
      std::vector<std::string> f = split(lines[i], ' ');
      if (!f.empty() && f[0].size() > 1 && f[0].back() == ':' && all_digits(f[0].substr(0, f[0].size() - 1))) {
        f.erase(f.begin());
      }
      if (f.empty() || !all_digits(f[0])) continue;
      if (f.size() < 8) {
        throw InputError({path, static_cast<int>(i) + 1, 0},
                         fmt::format("a line of nccl-tests output with {} fields: its rows end with time, algbw, busbw "
                                     "and #wrong out of place, then in place (8 at least)",
                                     f.size()));
      }
      add_point(points, path, static_cast<int>(i) + 1, f[0], f[f.size() - 6], "out-of-place busbw");
    }
  }
  if (points.empty()) {
    throw InputError({path, 0, 0},
                     "no measured point: give nccl-tests' output (rows that start with the size in bytes) or a CSV "
                     "with the columns bytes and busbw_GBps");
  }
  return points;
}

std::vector<BusbwPoint> read_busbw_curve(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError({path, 0, 0}, "cannot read the measured curve");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_busbw_curve(text.str(), path);
}

}  // namespace dtsim::nccl
