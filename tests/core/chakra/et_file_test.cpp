// Chakra trace files: what is written reads back (plain and gzip), a cut or corrupt file is refused
// with one line naming the file, the rank and the byte offset, and a folder names its one set.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "core/base/error.hpp"
#include "tests/support/chakra_traces.hpp"

namespace dtsim::test {
namespace {

namespace fs = std::filesystem;

EtTrace sample() {
  return et_trace({et_node(1, EtNodeType::Compute, {}, {et_int("num_ops", 1000), EtAttr{"x", 2.5}}, 7),
                   et_node(2, EtNodeType::Collective, {1},
                           {et_int("comm_type", 0), et_int("comm_size", 1 << 20), et_text("pg_name", "dp"),
                            EtAttr{"ranks", std::vector<std::int64_t>{0, 1}}, EtAttr{"flag", true}})},
                  {et_text("dtsim.role", "worker")});
}

void truncate_to(const std::string& path, std::uintmax_t size) { fs::resize_file(path, size); }

std::string refusal(const std::string& path, int rank) {
  try {
    read_et(path, rank);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a Chakra trace reads back as written, plain and gzip-compressed") {
  if (!chakra_supported()) return;
  const std::string dir = chakra_folder("roundtrip");
  for (const bool gzip : {false, true}) {
    const std::string path = dir + (gzip ? "/a.0.et.gz" : "/a.0.et");
    write_et(path, sample(), gzip);
    const EtTrace t = read_et(path, 0);
    CHECK(t.version == "0.0.4");
    CHECK(attr_text(t.metadata, "dtsim.role") == "worker");
    REQUIRE(t.nodes.size() == 2);
    CHECK(t.nodes[0].id == 1);
    CHECK(t.nodes[0].duration_micros == 7);
    CHECK(attr_number(t.nodes[0].attrs, "num_ops") == 1000);
    CHECK(attr_number(t.nodes[0].attrs, "x") == 2.5);
    CHECK(t.nodes[1].type == static_cast<int>(EtNodeType::Collective));
    CHECK(t.nodes[1].data_deps == std::vector<std::uint64_t>{1});
    CHECK(attr_text(t.nodes[1].attrs, "pg_name") == "dp");
    CHECK(attr_ints(t.nodes[1].attrs, "ranks") == std::vector<std::int64_t>{0, 1});
    CHECK(attr_number(t.nodes[1].attrs, "flag") == 1);
  }
  std::ifstream gz(dir + "/a.0.et.gz", std::ios::binary);
  CHECK(gz.get() == 0x1f);  // gzip's magic bytes
  CHECK(gz.get() == 0x8b);
}

TEST_CASE("a truncated Chakra trace is refused with the file, the rank and the byte offset of the cut message") {
  if (!chakra_supported()) return;
  const std::string dir = chakra_folder("truncated");
  // The last node starts where a trace without it ends.
  EtTrace shorter = sample();
  shorter.nodes.pop_back();
  write_et(dir + "/short.et", shorter);
  const auto last_node_at = fs::file_size(dir + "/short.et");
  const std::string path = dir + "/cut.3.et";
  write_et(path, sample());
  truncate_to(path, fs::file_size(path) - 3);
  const std::string line = refusal(path, 3);
  INFO(line);
  CHECK(line.rfind(path + ": error: rank 3: truncated Chakra trace", 0) == 0);
  CHECK(line.find(fmt::format("at byte {} ", last_node_at)) != std::string::npos);
  CHECK(line.find('\n') == std::string::npos);

  // Cut inside a length prefix: the prefix's own offset.
  truncate_to(path, last_node_at);
  std::ofstream(path, std::ios::binary | std::ios::app).put(static_cast<char>(0x80));
  CHECK(refusal(path, 3).find(fmt::format("a length prefix at byte {} is cut off", last_node_at)) != std::string::npos);
}

TEST_CASE("a corrupt Chakra trace or gzip stream is refused with its offset") {
  if (!chakra_supported()) return;
  const std::string dir = chakra_folder("corrupt");
  const std::string path = dir + "/bad.1.et";
  // A length prefix of 3, then three bytes that are no protobuf message (field 0 is invalid).
  std::ofstream(path, std::ios::binary) << std::string("\x03\x00\x00\x00", 4);
  CHECK(refusal(path, 1) == path + ": error: rank 1: corrupt Chakra trace: no GlobalMetadata at byte 0");
  const std::string gz = dir + "/bad.2.et.gz";
  write_et(gz, sample(), true);
  truncate_to(gz, fs::file_size(gz) / 2);
  CHECK(refusal(gz, 2).rfind(gz + ": error: rank 2: truncated or corrupt gzip stream at compressed byte", 0) == 0);
}

TEST_CASE("a folder of Chakra traces names its one set, and a missing rank is refused") {
  if (!chakra_supported()) return;
  const std::string dir = chakra_folder("set");
  for (int r : {0, 1, 2}) write_et(fmt::format("{}/w.{}.et", dir, r), sample());
  CHECK(et_files(dir) == std::vector<std::string>{dir + "/w.0.et", dir + "/w.1.et", dir + "/w.2.et"});
  CHECK(et_files(dir + "/w").size() == 3);
  fs::remove(dir + "/w.1.et");
  CHECK_THROWS_WITH(et_files(dir), Catch::Contains("rank 1's trace") && Catch::Contains("is missing"));
  write_et(dir + "/w.1.et", sample());
  write_et(dir + "/v.0.et", sample());
  CHECK_THROWS_WITH(et_files(dir), Catch::Contains("several sets of Chakra traces"));
}

}  // namespace dtsim::test

namespace dtsim::test {

TEST_CASE("a build without Chakra traces refuses them with one line saying why") {
  if (chakra_supported()) return;
  CHECK_THROWS_WITH(read_et("x.0.et", 0), Catch::Contains("built without Chakra traces"));
  CHECK_THROWS_WITH(write_et("x.0.et", EtTrace{}), Catch::Contains("built without Chakra traces"));
}

}  // namespace dtsim::test
