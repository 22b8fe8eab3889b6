// Lines of a scenario's YAML to the dotted keys written on them (jobs list entries as jobs.N.key).
#include "python/error_key.hpp"

#include <map>

#include <yaml-cpp/yaml.h>

namespace dtsim::py {
namespace {

// Every key of `map` and its nested mappings, by the 1-based line of the key and of its value.
void collect(const YAML::Node& node, const std::string& prefix, std::map<int, std::string>& lines) {
  if (node.IsSequence()) {
    for (size_t i = 0; i < node.size(); ++i) collect(node[i], prefix + std::to_string(i) + ".", lines);
    return;
  }
  if (!node.IsMap()) return;
  for (const auto& kv : node) {
    if (!kv.first.IsScalar()) continue;
    const std::string path = prefix + kv.first.as<std::string>();
    lines.emplace(kv.first.Mark().line + 1, path);
    if (kv.second.IsScalar()) lines.emplace(kv.second.Mark().line + 1, path);
    collect(kv.second, path + ".", lines);
  }
}

}  // namespace

std::optional<std::string> error_key(const InputError& e, const std::string& text, const std::string& origin) {
  const std::string& file = e.where().file;
  if (file.rfind("--set ", 0) == 0) return file.substr(6, file.find('=') - 6);
  if (file != origin || e.where().line <= 0) return std::nullopt;
  std::map<int, std::string> lines;
  try {
    collect(YAML::Load(text), "", lines);
  } catch (const YAML::Exception&) {
    return std::nullopt;
  }
  const auto found = lines.find(e.where().line);
  if (found == lines.end()) return std::nullopt;
  return found->second;
}

}  // namespace dtsim::py
