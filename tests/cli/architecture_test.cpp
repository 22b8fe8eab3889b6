// docs/architecture.md against the tree: every folder its map names exists, every folder of the
// tree is named (data folders belong to the folder above them), and the subfolders of core/ and models/
// include only those before them in the layer order it states, and each library's files open only the
// namespace its Layers table gives it.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

const fs::path kRoot = DTSIM_SOURCE_DIR;

// The folders of the table under "## The folder map": rows of the form "| `core/base/` | ... |".
std::set<std::string> mapped_folders() {
  std::ifstream in(kRoot / "docs/architecture.md");
  std::set<std::string> out;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0) inside = line == "## The folder map";
    if (!inside || line.rfind("| `", 0) != 0) continue;
    const auto end = line.find("/` |");
    if (end != std::string::npos) out.insert(line.substr(3, end - 3));
  }
  return out;
}

// The subfolders of core/ and models/ ("core/base", ...) in the order of the paragraph "Inside `core/` and
// `models/`, each subfolder includes ...".
std::vector<std::string> layers() {
  std::ifstream in(kRoot / "docs/architecture.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const auto start = doc.find("Inside `core/` and `models/`, each subfolder includes");
  if (start == std::string::npos) return {};
  const std::string paragraph = doc.substr(start, doc.find("\n\n", start) - start);
  std::vector<std::string> out;
  const std::regex name("`((core|models)/[a-z_]+)/`");
  for (auto it = std::sregex_iterator(paragraph.begin(), paragraph.end(), name); it != std::sregex_iterator(); ++it) {
    out.push_back((*it)[1]);
  }
  return out;
}

// The Layers table's folder and namespace columns: each folder (longest prefix wins) and the
// namespace its files use (its sub-namespaces too). A row naming several folders and as many
// namespaces pairs them in order; "`dtsim::real` (`::cuda`)" names one namespace.
std::map<std::string, std::string> folder_namespaces() {
  std::ifstream in(kRoot / "docs/architecture.md");
  std::map<std::string, std::string> out;
  bool inside = false;
  const std::regex folder("`([a-z_/]+/)`"), space("`(dtsim(::[a-z_]+)*)`");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0) inside = line == "## Layers";
    if (!inside || line.rfind("| `", 0) != 0) continue;
    std::vector<std::string> cells;
    std::stringstream row(line.substr(1));
    for (std::string cell; std::getline(row, cell, '|');) cells.push_back(cell);
    if (cells.size() < 4) continue;
    std::vector<std::string> folders, spaces;
    for (auto it = std::sregex_iterator(cells[1].begin(), cells[1].end(), folder); it != std::sregex_iterator(); ++it)
      folders.push_back((*it)[1]);
    for (auto it = std::sregex_iterator(cells[2].begin(), cells[2].end(), space); it != std::sregex_iterator(); ++it)
      spaces.push_back((*it)[1]);
    for (size_t i = 0; i < folders.size() && !spaces.empty(); ++i)
      out[folders[i]] = spaces.size() == folders.size() ? spaces[i] : spaces.front();
  }
  return out;
}

// Build and run folders of a working copy are not part of the tree.
bool outside_tree(const std::string& top) {
  return top == ".git" || top.rfind("build", 0) == 0 || top == "runs" || top == ".cache";
}

}  // namespace

TEST_CASE("docs/architecture.md's folder map matches the tree") {
  const std::set<std::string> mapped = mapped_folders();
  REQUIRE(mapped.size() > 40);
  for (const std::string& f : mapped) {
    INFO(f);
    CHECK(fs::is_directory(kRoot / f));
  }
  int walked = 0;
  for (const auto& top : fs::directory_iterator(kRoot)) {
    if (!top.is_directory()) continue;
    const std::string name = top.path().filename().string();
    if (outside_tree(name) || (name[0] == '.' && mapped.count(name) == 0)) continue;
    INFO(name);
    CHECK(mapped.count(name) == 1);
    for (auto it = fs::recursive_directory_iterator(top.path()); it != fs::recursive_directory_iterator(); ++it) {
      if (!it->is_directory()) continue;
      if (it->path().filename() == "data") {
        it.disable_recursion_pending();
        continue;
      }
      const std::string rel = fs::relative(it->path(), kRoot).generic_string();
      INFO(rel);
      CHECK(mapped.count(rel) == 1);
      ++walked;
    }
  }
  CHECK(walked > 30);
}

TEST_CASE("every header of core/ and models/ has a source of its own name or none") {
  // Strategies (collective algorithms, compressors, pipeline schedules) implement their folder's interface one per
  // file.
  for (const char* top : {"core", "models"}) {
    for (const auto& e : fs::recursive_directory_iterator(kRoot / top)) {
      const fs::path p = e.path();
      if (p.extension() != ".cpp") continue;
      const std::string folder = p.parent_path().filename().string();
      if (folder == "collectives" || folder == "compression" || folder == "schedules") continue;
      INFO(p.string());
      fs::path header = p;
      CHECK(fs::exists(header.replace_extension(".hpp")));
    }
  }
}

TEST_CASE("the subfolders of core/ and models/ include only those before them in the documented layer order") {
  const std::vector<std::string> order = layers();
  REQUIRE(order.size() >= 13);
  std::map<std::string, size_t> rank;
  for (size_t i = 0; i < order.size(); ++i) rank[order[i]] = i;
  const std::regex include("#include \"((core|models)/[a-z_]+)/");
  int files = 0;
  for (const char* top : {"core", "models"}) {
    for (const auto& e : fs::recursive_directory_iterator(kRoot / top)) {
      if (!e.is_regular_file() || (e.path().extension() != ".cpp" && e.path().extension() != ".hpp")) continue;
      const std::string folder = top + ("/" + fs::relative(e.path(), kRoot / top).begin()->string());
      INFO(e.path().string());
      REQUIRE(rank.count(folder) == 1);
      ++files;
      std::ifstream in(e.path());
      for (std::string line; std::getline(in, line);) {
        std::smatch m;
        if (!std::regex_search(line, m, include)) continue;
        INFO(line);
        REQUIRE(rank.count(m[1]) == 1);
        CHECK(rank[m[1]] <= rank[folder]);
      }
    }
  }
  CHECK(files > 150);
}

TEST_CASE("each library's files open only the namespace docs/architecture.md's Layers table gives it") {
  std::map<std::string, std::string> spaces = folder_namespaces();
  REQUIRE(spaces.size() >= 13);
  spaces["tests/"] = "dtsim::test";
  const std::regex opens("^namespace ([a-z_:]+) \\{");
  int checked = 0;
  for (const auto& [top, expected] : spaces) {
    for (const auto& e : fs::recursive_directory_iterator(kRoot / top)) {
      const std::string ext = e.path().extension().string();
      if (!e.is_regular_file() || (ext != ".cpp" && ext != ".hpp" && ext != ".cu" && ext != ".cuh")) continue;
      // The folder of the table that holds this file most closely (sim/ holds make_executor only).
      const std::string rel = fs::relative(e.path(), kRoot).generic_string();
      std::string owner;
      for (const auto& [f, ns] : spaces) {
        if (rel.rfind(f, 0) == 0 && f.size() > owner.size()) owner = f;
      }
      if (owner != top) continue;
      std::ifstream in(e.path());
      std::string outer;  // the namespace last opened at the top level, for "namespace x {" inside it
      for (std::string line; std::getline(in, line);) {
        std::smatch m;
        if (!std::regex_search(line, m, opens) || m[1] == "std") continue;
        const std::string name = m[1].str().rfind("dtsim", 0) == 0 ? m[1].str() : outer + "::" + m[1].str();
        if (m[1].str().rfind("dtsim", 0) == 0) outer = name;
        INFO(rel << ": " << line);
        CHECK((name == expected || name.rfind(expected + "::", 0) == 0));
        ++checked;
      }
    }
  }
  CHECK(checked > 300);
}

TEST_CASE("no test's name holds a semicolon, which would split its ctest entry into ones that run nothing") {
  // catch_discover_tests writes each name into a CMake list: a ';' cut "a; b" into entries "a" and " b" that matched no
  // test case, and 26 test cases ran in no ctest run until this was found (tests/CMakeLists.txt now adds
  // --warn NoTests, so such an entry fails). Names are written TEST_CASE("...") on its line or the next.
  const std::regex name(R"rx(TEST_CASE\(\s*"((?:[^"\\]|\\.)*)")rx");
  std::vector<std::string> bad;
  for (const auto& entry : fs::recursive_directory_iterator(kRoot / "tests")) {
    if (entry.path().extension() != ".cpp") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string s = text.str();
    for (auto it = std::sregex_iterator(s.begin(), s.end(), name); it != std::sregex_iterator(); ++it) {
      if ((*it)[1].str().find(';') != std::string::npos) bad.push_back(entry.path().string() + ": " + (*it)[1].str());
    }
  }
  for (const std::string& b : bad) INFO(b);
  CHECK(bad.empty());
}
