// Chakra trace files through Debian's protobuf (et_def.proto, compiled at build time) and zlib.
// Built without them, every entry point refuses with one line instead.
#include "core/chakra/et_file.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "core/base/atomic_file.hpp"
#include "core/base/available_memory.hpp"
#include "core/base/error.hpp"
#include "core/base/units.hpp"

#if DTSIM_WITH_CHAKRA
#include <zlib.h>

#include "et_def.pb.h"
#endif

namespace fs = std::filesystem;

namespace dtsim {

std::string et_path(const std::string& prefix, int rank) {
  const std::string plain = fmt::format("{}.{}.et", prefix, rank);
  if (!fs::exists(plain) && fs::exists(plain + ".gz")) return plain + ".gz";
  return plain;
}

std::vector<std::string> et_files(const std::string& where) {
  std::string prefix = where;
  if (fs::is_directory(where)) {
    // The one set in the folder: files named <name>.<rank>.et or <name>.<rank>.et.gz.
    const std::regex name(R"((.+)\.([0-9]+)\.et(\.gz)?)");
    std::map<std::string, int> sets;
    for (const auto& e : fs::directory_iterator(where)) {
      std::smatch m;
      const std::string file = e.path().filename().string();
      if (e.is_regular_file() && std::regex_match(file, m, name)) ++sets[m[1]];
    }
    if (sets.empty())
      throw InputError(SourceLocation{where}, "no Chakra trace files (<name>.<rank>.et) in this folder");
    if (sets.size() > 1) {
      throw InputError(SourceLocation{where}, fmt::format("several sets of Chakra traces ({}, {}, ...): name one by "
                                                          "its prefix",
                                                          sets.begin()->first, std::next(sets.begin())->first));
    }
    prefix = (fs::path(where) / sets.begin()->first).string();
  }
  std::vector<std::string> files;
  for (int rank = 0;; ++rank) {
    const std::string path = et_path(prefix, rank);
    if (!fs::exists(path)) break;
    files.push_back(path);
  }
  if (files.empty()) throw InputError(SourceLocation{where}, fmt::format("no Chakra trace {}.0.et", prefix));
  // A gap: a later rank's file exists while an earlier one does not.
  const fs::path folder = fs::path(prefix).parent_path().empty() ? fs::path(".") : fs::path(prefix).parent_path();
  const std::string stem = fs::path(prefix).filename().string();
  const std::regex rank_file(std::regex_replace(stem, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
                             R"(\.([0-9]+)\.et(\.gz)?)");
  for (const auto& e : fs::directory_iterator(folder)) {
    std::smatch m;
    const std::string file = e.path().filename().string();
    if (std::regex_match(file, m, rank_file) && std::stoll(m[1]) >= static_cast<long long>(files.size())) {
      throw InputError(SourceLocation{e.path().string()},
                       fmt::format("rank {}'s trace {} is missing", files.size(), et_path(prefix, files.size())));
    }
  }
  return files;
}

#if DTSIM_WITH_CHAKRA

namespace {

namespace pb = ChakraProtoMsg;

template <class List>
std::vector<std::int64_t> ints(const List& l) {
  return {l.values().begin(), l.values().end()};
}

EtValue value_of(const pb::AttributeProto& a) {
  using A = pb::AttributeProto;
  switch (a.value_case()) {
    case A::kDoubleVal: return a.double_val();
    case A::kFloatVal: return static_cast<double>(a.float_val());
    case A::kInt32Val: return std::int64_t{a.int32_val()};
    case A::kInt64Val: return std::int64_t{a.int64_val()};
    case A::kUint32Val: return std::int64_t{a.uint32_val()};
    case A::kUint64Val: return static_cast<std::int64_t>(a.uint64_val());
    case A::kSint32Val: return std::int64_t{a.sint32_val()};
    case A::kSint64Val: return std::int64_t{a.sint64_val()};
    case A::kFixed32Val: return std::int64_t{a.fixed32_val()};
    case A::kFixed64Val: return static_cast<std::int64_t>(a.fixed64_val());
    case A::kSfixed32Val: return std::int64_t{a.sfixed32_val()};
    case A::kSfixed64Val: return std::int64_t{a.sfixed64_val()};
    case A::kBoolVal: return a.bool_val();
    case A::kStringVal: return a.string_val();
    case A::kBytesVal: return a.bytes_val();
    case A::kDoubleList: return std::vector<double>(a.double_list().values().begin(), a.double_list().values().end());
    case A::kFloatList: return std::vector<double>(a.float_list().values().begin(), a.float_list().values().end());
    case A::kInt32List: return ints(a.int32_list());
    case A::kInt64List: return ints(a.int64_list());
    case A::kUint32List: return ints(a.uint32_list());
    case A::kUint64List: return ints(a.uint64_list());
    case A::kSint32List: return ints(a.sint32_list());
    case A::kSint64List: return ints(a.sint64_list());
    case A::kFixed32List: return ints(a.fixed32_list());
    case A::kFixed64List: return ints(a.fixed64_list());
    case A::kSfixed32List: return ints(a.sfixed32_list());
    case A::kSfixed64List: return ints(a.sfixed64_list());
    case A::kBoolList: return ints(a.bool_list());
    case A::kStringList:
      return std::vector<std::string>(a.string_list().values().begin(), a.string_list().values().end());
    case A::kBytesList: return std::vector<std::string>(a.bytes_list().values().begin(), a.bytes_list().values().end());
    case A::VALUE_NOT_SET: break;
  }
  return std::int64_t{0};
}

void read_attrs(const google::protobuf::RepeatedPtrField<pb::AttributeProto>& in, std::vector<EtAttr>& out) {
  out.reserve(static_cast<size_t>(in.size()));
  for (const pb::AttributeProto& a : in) out.push_back(EtAttr{a.name(), value_of(a)});
}

void write_attr(const EtAttr& a, pb::AttributeProto& out) {
  out.set_name(a.name);
  std::visit(
      [&out](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::int64_t>) {
          out.set_int64_val(v);
        } else if constexpr (std::is_same_v<T, double>) {
          out.set_double_val(v);
        } else if constexpr (std::is_same_v<T, std::string>) {
          out.set_string_val(v);
        } else if constexpr (std::is_same_v<T, bool>) {
          out.set_bool_val(v);
        } else if constexpr (std::is_same_v<T, std::vector<std::int64_t>>) {
          for (std::int64_t x : v) out.mutable_int64_list()->add_values(x);
        } else if constexpr (std::is_same_v<T, std::vector<double>>) {
          for (double x : v) out.mutable_double_list()->add_values(x);
        } else {
          for (const std::string& x : v) out.mutable_string_list()->add_values(x);
        }
      },
      a.value);
}

// What reading a trace file holds, measured (docs/PERFORMANCE.md, "Memory of a Chakra trace"): the file's bytes,
// 233 B a node (the node and its vector's growth: a file of 10 million empty nodes), 2.9 B a byte of the nodes'
// messages decoded (names, dependencies, attributes), and 261 B a node once it is an op of the plan (the figure of
// sim/footprint.hpp). Fitted on exported traces of 150,274 and 601,090 nodes (210 B a node); a 64-rank export
// (2.1 million nodes, 434 MB) needs 14 % less than it says.
constexpr double kBytesPerNode = 233 + 261;
constexpr double kBytesPerMessageByte = 2.9;

// The file's bytes; refused when the file alone is more than the machine has available.
std::string slurp(const std::string& path, int rank) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw InputError(SourceLocation{path}, "cannot read this Chakra trace");
  const auto size = static_cast<double>(in.tellg());
  if (const Available available = available_memory(); size > available.bytes) {
    throw InputError(SourceLocation{path},
                     fmt::format("rank {}: the trace is {}, more than the {} {}", rank, format_bytes(size),
                                 format_bytes(available.bytes), available.what));
  }
  in.seekg(0);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The messages of a trace's bytes, counted from their length prefixes alone as the bytes go by (whole or in pieces,
// as they come out of gzip): the GlobalMetadata and the nodes. A cut or bad prefix ends the count (the read that
// follows reports it where it is).
class MessageCount {
 public:
  void feed(const char* data, size_t n) {
    bytes_ += static_cast<double>(n);
    for (size_t i = 0; i < n && !bad_;) {
      if (skip_ > 0) {
        const size_t take = static_cast<size_t>(std::min<std::uint64_t>(skip_, n - i));
        skip_ -= take;
        i += take;
        continue;
      }
      const auto b = static_cast<unsigned char>(data[i++]);
      length_ |= static_cast<std::uint64_t>(b & 0x7f) << shift_;
      shift_ += 7;
      if ((b & 0x80) == 0) {
        ++messages_;
        skip_ = length_;
        length_ = 0;
        shift_ = 0;
      } else if (shift_ >= 35) {
        bad_ = true;
      }
    }
  }
  double bytes() const { return bytes_; }
  double messages() const { return messages_; }  // whose length prefix has been read
  double nodes() const { return std::max(0.0, messages_ - 1); }

 private:
  double bytes_ = 0;
  double messages_ = 0;
  std::uint64_t skip_ = 0;
  std::uint64_t length_ = 0;
  int shift_ = 0;
  bool bad_ = false;
};

// Refuses a trace whose nodes would not fit in memory once read (kBytesPerNode, kBytesPerMessageByte), from its
// count, before anything is expanded or read.
void refuse_if_too_big(const std::string& path, int rank, const MessageCount& count, double packed) {
  const double need = count.bytes() * (1 + kBytesPerMessageByte) + kBytesPerNode * count.nodes();
  const Available available = available_memory();
  if (need <= available.bytes) return;
  throw InputError(
      SourceLocation{path},
      fmt::format("rank {}: the trace holds {:.0f} nodes in {}{}, about {} in memory once read ({:.0f} B a node and "
                  "{} B a byte of their messages), more than the {} {}",
                  rank, count.nodes(), format_bytes(count.bytes()),
                  packed > 0 ? fmt::format(" ({} compressed)", format_bytes(packed)) : std::string(),
                  format_bytes(need), kBytesPerNode, kBytesPerMessageByte, format_bytes(available.bytes),
                  available.what));
}

// A gzip file's content, handed to `sink` piece by piece until it returns false; a corrupt or cut stream throws at
// the compressed byte it reached.
void inflate_gzip(const std::string& path, int rank, const std::string& packed,
                  const std::function<bool(const char*, size_t)>& sink) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) throw RuntimeError("zlib: inflateInit2 failed");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(packed.data()));
  z.avail_in = static_cast<uInt>(packed.size());
  char buffer[1 << 16];
  int status = Z_OK;
  while (status == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buffer);
    z.avail_out = sizeof buffer;
    status = inflate(&z, Z_NO_FLUSH);
    if (!sink(buffer, sizeof buffer - z.avail_out)) {
      inflateEnd(&z);
      return;
    }
    if (status == Z_BUF_ERROR && z.avail_in == 0) break;
  }
  const auto offset = z.total_in;
  inflateEnd(&z);
  if (status != Z_STREAM_END) {
    throw InputError(SourceLocation{path},
                     fmt::format("rank {}: truncated or corrupt gzip stream at compressed byte {}", rank, offset));
  }
}

// A gzip file's content, expanded twice: once to count its nodes (nothing kept: a gzip bomb, 200 MB of zeros in
// 200 KB, is refused before it takes memory), then to keep it. For its metadata alone, only as far as the first
// message ends.
std::string gunzip(const std::string& path, int rank, const std::string& packed, bool metadata_only) {
  MessageCount count;
  std::string out;
  if (metadata_only) {
    inflate_gzip(path, rank, packed, [&](const char* data, size_t n) {
      out.append(data, n);
      count.feed(data, n);
      return count.messages() < 2;
    });
    return out;
  }
  inflate_gzip(path, rank, packed, [&](const char* data, size_t n) {
    count.feed(data, n);
    return true;
  });
  refuse_if_too_big(path, rank, count, static_cast<double>(packed.size()));
  out.reserve(static_cast<size_t>(count.bytes()));
  inflate_gzip(path, rank, packed, [&](const char* data, size_t n) {
    out.append(data, n);
    return true;
  });
  return out;
}

// The length prefix at `at`: a varint32 (at most 5 bytes). Moves `at` past it.
std::uint32_t read_length(const std::string& path, int rank, const std::string& bytes, size_t& at) {
  const size_t start = at;
  std::uint64_t value = 0;
  for (int shift = 0; shift < 35; shift += 7) {
    if (at >= bytes.size()) {
      throw InputError(
          SourceLocation{path},
          fmt::format("rank {}: truncated Chakra trace: a length prefix at byte {} is cut off", rank, start));
    }
    const auto b = static_cast<unsigned char>(bytes[at++]);
    value |= static_cast<std::uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      if (value > 0xffffffffULL) break;
      return static_cast<std::uint32_t>(value);
    }
  }
  throw InputError(SourceLocation{path},
                   fmt::format("rank {}: corrupt Chakra trace: a bad length prefix at byte {}", rank, start));
}

void add_length(std::string& out, size_t n) {
  while (n >= 0x80) {
    out.push_back(static_cast<char>((n & 0x7f) | 0x80));
    n >>= 7;
  }
  out.push_back(static_cast<char>(n));
}

EtTrace read_trace(const std::string& path, int rank, bool metadata_only) {
  std::string bytes = slurp(path, rank);
  if (bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
      static_cast<unsigned char>(bytes[1]) == 0x8b) {
    bytes = gunzip(path, rank, bytes, metadata_only);
  } else if (!metadata_only) {
    MessageCount count;
    count.feed(bytes.data(), bytes.size());
    refuse_if_too_big(path, rank, count, 0);
  }
  EtTrace trace;
  size_t at = 0;
  bool header = true;
  pb::GlobalMetadata meta;
  pb::Node node;
  while (at < bytes.size()) {
    const size_t start = at;
    const std::uint32_t length = read_length(path, rank, bytes, at);
    if (length > bytes.size() - at) {
      throw InputError(SourceLocation{path},
                       fmt::format("rank {}: truncated Chakra trace: the message at byte {} needs {} bytes, {} remain",
                                   rank, start, length, bytes.size() - at));
    }
    const char* data = bytes.data() + at;
    at += length;
    if (header) {
      if (!meta.ParseFromArray(data, static_cast<int>(length))) {
        throw InputError(SourceLocation{path},
                         fmt::format("rank {}: corrupt Chakra trace: no GlobalMetadata at byte {}", rank, start));
      }
      trace.version = meta.version();
      read_attrs(meta.attr(), trace.metadata);
      header = false;
      if (metadata_only) break;
      continue;
    }
    if (!node.ParseFromArray(data, static_cast<int>(length))) {
      throw InputError(SourceLocation{path},
                       fmt::format("rank {}: corrupt Chakra trace: the node at byte {} does not parse", rank, start));
    }
    EtNode& n = trace.nodes.emplace_back();
    n.id = node.id();
    n.name = node.name();
    n.type = node.type();
    n.ctrl_deps.assign(node.ctrl_deps().begin(), node.ctrl_deps().end());
    n.data_deps.assign(node.data_deps().begin(), node.data_deps().end());
    n.start_micros = node.start_time_micros();
    n.duration_micros = node.duration_micros();
    read_attrs(node.attr(), n.attrs);
  }
  if (header)
    throw InputError(SourceLocation{path}, fmt::format("rank {}: empty Chakra trace (no GlobalMetadata)", rank));
  return trace;
}

}  // namespace

bool chakra_supported() { return true; }

EtTrace read_et(const std::string& path, int rank) { return read_trace(path, rank, false); }
EtTrace read_et_metadata(const std::string& path, int rank) { return read_trace(path, rank, true); }

void write_et(const std::string& path, const EtTrace& trace, bool gzip) {
  std::string out;
  std::string message;
  pb::GlobalMetadata meta;
  meta.set_version(trace.version);
  for (const EtAttr& a : trace.metadata) write_attr(a, *meta.add_attr());
  meta.SerializeToString(&message);
  add_length(out, message.size());
  out += message;
  pb::Node node;
  for (const EtNode& n : trace.nodes) {
    node.Clear();
    node.set_id(n.id);
    node.set_name(n.name);
    node.set_type(static_cast<pb::NodeType>(n.type));
    for (std::uint64_t d : n.ctrl_deps) node.add_ctrl_deps(d);
    for (std::uint64_t d : n.data_deps) node.add_data_deps(d);
    node.set_start_time_micros(n.start_micros);
    node.set_duration_micros(n.duration_micros);
    for (const EtAttr& a : n.attrs) write_attr(a, *node.add_attr());
    node.SerializeToString(&message);
    add_length(out, message.size());
    out += message;
  }
  if (gzip) {
    std::string packed(compressBound(static_cast<uLong>(out.size())) + 32, '\0');
    z_stream z{};
    deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    z.next_in = reinterpret_cast<Bytef*>(out.data());
    z.avail_in = static_cast<uInt>(out.size());
    z.next_out = reinterpret_cast<Bytef*>(packed.data());
    z.avail_out = static_cast<uInt>(packed.size());
    const int status = deflate(&z, Z_FINISH);
    packed.resize(z.total_out);
    deflateEnd(&z);
    if (status != Z_STREAM_END) throw RuntimeError(fmt::format("{}: gzip compression failed", path));
    out = std::move(packed);
  }
  write_file_atomic(path, out);
}

#else

namespace {
[[noreturn]] void no_chakra(const std::string& path) {
  throw InputError(SourceLocation{path},
                   "this dtsim was built without Chakra traces (protobuf and zlib not found, or "
                   "DTSIM_WITH_CHAKRA=OFF; scripts/setup installs libprotobuf-dev, protobuf-compiler and zlib1g-dev)");
}
}  // namespace

bool chakra_supported() { return false; }
EtTrace read_et(const std::string& path, int) { no_chakra(path); }
EtTrace read_et_metadata(const std::string& path, int) { no_chakra(path); }
void write_et(const std::string& path, const EtTrace&, bool) { no_chakra(path); }

#endif

}  // namespace dtsim
