// The model file format (docs/models.md): a layer table in YAML, or a transformer's shape, checked line by line so
// that every mistake comes back as one error with file:line:col.
#include "models/zoo/model_file.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include "core/base/available_memory.hpp"
#include "core/base/error.hpp"
#include "core/base/overloaded.hpp"
#include "core/base/suggest.hpp"
#include "models/zoo/transformer_fields.hpp"

namespace dtsim {
namespace {

const std::vector<std::string> kKeys{"name", "source", "counts", "input", "columns", "layers", "transformer"};
const std::vector<std::string> kRequiredKeys{"name", "counts", "columns", "layers"};
// The keys of a layer table that a file giving its `transformer` shape does without: make_transformer writes the
// rows and the input.
const std::vector<std::string> kTableKeys{"counts", "input", "columns", "layers"};
const std::vector<std::string> kColumns{"name",   "class",  "params", "fwd_flops",   "bwd_flops",  "activations",
                                        "gemm_m", "gemm_n", "gemm_k", "fwd_traffic", "bwd_traffic"};
const std::vector<std::string> kRequiredColumns{"name", "params", "fwd_flops"};

// The largest value of each number column, a row's and (params, fwd_flops, bwd_flops) the model's in all: the
// bounds the scenario's keys have (docs/reliability.md), so that no table makes a model the engines cannot time alike
// (a layer of 1e30 parameters ran, and the engines differed 30x).
struct ColumnBound {
  const char* column;
  double most;
  const char* why;
};
constexpr ColumnBound kColumnBounds[] = {
    {"params", 1e15, "model.synthetic.params' bound, 500x the largest published model"},
    {"fwd_flops", 1e18, "1 EFLOP per sample, the bound of a FLOP count"},
    {"bwd_flops", 1e18, "1 EFLOP per sample, the bound of a FLOP count"},
    {"activations", 1e15, "1 PB per sample, the bound of a size"},
    {"gemm_m", 1e15, "1 PB per sample, the bound of a size"},
    {"gemm_n", 1e15, "1 PB per sample, the bound of a size"},
    {"gemm_k", 1e15, "1 PB per sample, the bound of a size"},
    {"fwd_traffic", 1e15, "1 PB per sample, the bound of a size"},
    {"bwd_traffic", 1e15, "1 PB per sample, the bound of a size"},
};

const ColumnBound& column_bound(std::string_view column) {
  for (const ColumnBound& b : kColumnBounds) {
    if (column == b.column) return b;
  }
  throw std::logic_error(fmt::format("model_file: column '{}' has no bound", column));
}

SourceLocation at(const std::string& origin, const YAML::Mark& mark) {
  if (mark.is_null()) return SourceLocation{origin, 0, 0};
  return SourceLocation{origin, mark.line + 1, mark.column + 1};
}

class Parser {
 public:
  explicit Parser(const std::string& origin) : origin_(origin) {}

  ModelDefinition parse(std::string_view text) {
    YAML::Node root;
    try {
      root = YAML::Load(std::string(text));
    } catch (const YAML::Exception& e) {
      throw InputError(at(origin_, e.mark), e.msg);
    }
    if (!root.IsMap()) fail(root, "a model file is a map with the keys " + fmt::format("{}", fmt::join(kKeys, ", ")));
    std::map<std::string, YAML::Node> keys;
    std::map<std::string, YAML::Node> key_nodes;
    for (const auto& entry : root) {
      const std::string key = entry.first.Scalar();
      if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end()) {
        fail(entry.first, fmt::format("unknown key '{}'{}", key, did_you_mean(key, kKeys)));
      }
      if (keys.contains(key)) fail(entry.first, fmt::format("duplicate key '{}'", key));
      keys[key] = entry.second;
      key_nodes[key] = entry.first;
    }
    if (keys.contains("transformer")) return parse_shape(root, keys, key_nodes);
    for (const auto& key : kRequiredKeys) {
      if (!keys.contains(key)) fail(root, fmt::format("missing key '{}'", key));
    }

    Workload w;
    w.name = text_of(keys["name"], "name");
    if (keys.contains("source")) w.source = text_of(keys["source"], "source");
    if (keys.contains("input")) w.input = text_of(keys["input"], "input");
    const std::string counts = text_of(keys["counts"], "counts");
    if (counts != "flops" && counts != "macs") {
      fail(keys["counts"], fmt::format("'counts' is 'flops' or 'macs', not '{}'", counts));
    }
    read_columns(keys["columns"]);
    read_layers(keys["layers"], counts == "macs" ? 2.0 : 1.0, w);
    return ModelDefinition{std::move(w), std::nullopt};
  }

 private:
  // A file with `transformer:`: its shape, and the rows make_transformer generates from it.
  ModelDefinition parse_shape(const YAML::Node& root, std::map<std::string, YAML::Node>& keys,
                              std::map<std::string, YAML::Node>& key_nodes) const {
    for (const auto& key : kTableKeys) {
      if (keys.contains(key)) {
        fail(key_nodes[key], fmt::format("'{}' belongs to a layer table; a model given by its 'transformer' shape has "
                                         "its rows and input generated",
                                         key));
      }
    }
    if (!keys.contains("name")) fail(root, "missing key 'name'");
    const std::string name = text_of(keys["name"], "name");
    const TransformerSpec shape = read_shape(keys["transformer"], key_nodes["transformer"]);
    Workload w = make_transformer(shape, name);
    if (keys.contains("source")) w.source = fmt::format("{}; {}", text_of(keys["source"], "source"), w.source);
    return ModelDefinition{std::move(w), shape};
  }

  // The `transformer:` mapping: TransformerSpec's fields by name, each at least its minimum, then the shape's checks
  // across fields, pointing at the field to change (or at `transformer:` when the file leaves it at its default).
  TransformerSpec read_shape(const YAML::Node& node, const YAML::Node& key_node) const {
    if (!node.IsMap()) {
      fail(node,
           fmt::format("'transformer' must be a map of shape fields ({})", fmt::join(transformer_field_names(), ", ")));
    }
    TransformerSpec spec;
    std::map<std::string, YAML::Node> given;
    for (const auto& entry : node) {
      const std::string name = entry.first.Scalar();
      const TransformerField* field = find_transformer_field(name);
      if (!field) {
        fail(entry.first,
             fmt::format("unknown transformer field '{}'{}", name, did_you_mean(name, transformer_field_names())));
      }
      if (given.contains(name)) fail(entry.first, fmt::format("duplicate transformer field '{}'", name));
      given[name] = entry.second;
      read_field(*field, entry.second, spec);
    }
    if (const auto problem = shape_problem(spec)) {
      const auto it = given.find(std::string(problem->field));
      fail(it != given.end() ? it->second : key_node,
           fmt::format("transformer.{}: {}", problem->field, problem->message));
    }
    return spec;
  }

  void read_field(const TransformerField& field, const YAML::Node& node, TransformerSpec& spec) const {
    const std::string key = fmt::format("transformer.{}", field.name);
    std::visit(Overloaded{[&](int TransformerSpec::*m) { spec.*m = whole_number(node, key, field.min); },
                          [&](bool TransformerSpec::*m) { spec.*m = flag(node, key); },
                          [&](double TransformerSpec::*m) { spec.*m = real_number(node, key, field.min); }},
               field.member);
  }

  int whole_number(const YAML::Node& node, const std::string& key, int min) const {
    const std::string text = node.IsScalar() ? node.Scalar() : std::string();
    long long value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) {
      fail(node, fmt::format("{}: '{}' is not a whole number", key, text));
    }
    if (value < min || value > 1'000'000'000) {
      fail(node, fmt::format("{}: must be between {} and 1000000000 (got {})", key, min, text));
    }
    return static_cast<int>(value);
  }

  bool flag(const YAML::Node& node, const std::string& key) const {
    const std::string text = node.IsScalar() ? node.Scalar() : std::string();
    if (text != "true" && text != "false") fail(node, fmt::format("{}: '{}' is not true or false", key, text));
    return text == "true";
  }

  double real_number(const YAML::Node& node, const std::string& key, int min) const {
    const std::string text = node.IsScalar() ? node.Scalar() : std::string();
    double value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(value)) {
      fail(node, fmt::format("{}: '{}' is not a number", key, text));
    }
    if (value < min) fail(node, fmt::format("{}: must be at least {} (got {})", key, min, text));
    return value;
  }

  [[noreturn]] void fail(const YAML::Node& node, const std::string& message) const {
    throw InputError(at(origin_, node.Mark()), message);
  }

  std::string text_of(const YAML::Node& node, const std::string& key) const {
    if (!node.IsScalar() || node.Scalar().empty()) fail(node, fmt::format("'{}' must be a text", key));
    return node.Scalar();
  }

  void read_columns(const YAML::Node& node) {
    if (!node.IsSequence()) fail(node, fmt::format("'columns' must be a list such as [{}]", fmt::join(kColumns, ", ")));
    for (const auto& c : node) {
      const std::string column = c.IsScalar() ? c.Scalar() : std::string();
      if (std::find(kColumns.begin(), kColumns.end(), column) == kColumns.end()) {
        fail(c, fmt::format("unknown column '{}'{}", column, did_you_mean(column, kColumns)));
      }
      if (std::find(columns_.begin(), columns_.end(), column) != columns_.end()) {
        fail(c, fmt::format("duplicate column '{}'", column));
      }
      columns_.push_back(column);
    }
    for (const auto& required : kRequiredColumns) {
      if (std::find(columns_.begin(), columns_.end(), required) == columns_.end()) {
        fail(node, fmt::format("'columns' lacks '{}'", required));
      }
    }
  }

  void read_layers(const YAML::Node& node, double flops_per_count, Workload& w) const {
    if (!node.IsSequence() || node.size() == 0) fail(node, "'layers' must be a non-empty list of rows");
    const std::string row_shape = fmt::format("[{}]", fmt::join(columns_, ", "));
    std::map<std::string, size_t> seen;
    for (size_t i = 0; i < node.size(); ++i) {
      const YAML::Node row = node[i];
      if (!row.IsSequence()) fail(row, fmt::format("layer {} is not a row like {}", i + 1, row_shape));
      if (row.size() != columns_.size()) {
        fail(row, fmt::format("layer {} has {} values, expected {} {}", i + 1, row.size(), columns_.size(), row_shape));
      }
      Layer layer;
      bool has_bwd = false;
      for (size_t c = 0; c < columns_.size(); ++c) {
        if (columns_[c] == "name") layer.name = row_name(row[c], i);
      }
      for (size_t c = 0; c < columns_.size(); ++c) {
        if (columns_[c] == "class") layer.cls = row_class(row[c], layer.name);
      }
      if (const auto [it, fresh] = seen.emplace(layer.name, i + 1); !fresh) {
        fail(row, fmt::format("layer {} repeats the name '{}' of layer {}", i + 1, layer.name, it->second));
      }
      for (size_t c = 0; c < columns_.size(); ++c) {
        const std::string& column = columns_[c];
        if (column == "name" || column == "class") continue;
        double value = number(row[c], layer.name, column);
        if (column == "fwd_flops" || column == "bwd_flops") value *= flops_per_count;
        if (const ColumnBound& bound = column_bound(column); value > bound.most) {
          fail(row[c], fmt::format("layer '{}': {} {}{} is more than {:.0e} ({})", layer.name, column, row[c].Scalar(),
                                   flops_per_count != 1 && (column == "fwd_flops" || column == "bwd_flops")
                                       ? fmt::format(" MACs ({:.3g} FLOPs)", value)
                                       : "",
                                   bound.most, bound.why));
        }
        if (column == "params") layer.params = value;
        if (column == "fwd_flops") layer.fwd_flops = value;
        if (column == "bwd_flops") {
          layer.bwd_flops = value;
          has_bwd = true;
        }
        if (column == "activations") layer.activations = value;
        if (column == "gemm_m") layer.gemm_m = value;
        if (column == "gemm_n") layer.gemm_n = value;
        if (column == "gemm_k") layer.gemm_k = value;
        if (column == "fwd_traffic") layer.fwd_traffic = value;
        if (column == "bwd_traffic") layer.bwd_traffic = value;
      }
      if (!has_bwd) layer.bwd_flops = 2 * layer.fwd_flops;
      w.layers.push_back(std::move(layer));
    }
    // The model's totals within the bounds a layer has (a table of many large rows adds up past them).
    double params = 0, fwd = 0, bwd = 0;
    for (const Layer& l : w.layers) {
      params += l.params;
      fwd += l.fwd_flops;
      bwd += l.bwd_flops;
    }
    for (const auto& [total, column] :
         {std::pair{params, "params"}, std::pair{fwd, "fwd_flops"}, std::pair{bwd, "bwd_flops"}}) {
      const ColumnBound& bound = column_bound(column);
      if (total > bound.most) {
        fail(node, fmt::format("the layers' {} add up to {:.3g}; a model has at most {:.0e} ({})", column, total,
                               bound.most, bound.why));
      }
    }
  }

  std::string row_name(const YAML::Node& node, size_t index) const {
    if (!node.IsScalar() || node.Scalar().empty()) fail(node, fmt::format("layer {} has no name", index + 1));
    return node.Scalar();
  }

  KernelClass row_class(const YAML::Node& node, const std::string& layer) const {
    const std::string text = node.IsScalar() ? node.Scalar() : std::string();
    if (const auto cls = parse_kernel_class(text)) return *cls;
    std::vector<std::string> names;
    for (const auto name : kernel_class_names()) names.emplace_back(name);
    fail(node, fmt::format("layer '{}': class '{}' is not one of {}{}", layer, text, fmt::join(names, ", "),
                           did_you_mean(text, names)));
  }

  double number(const YAML::Node& node, const std::string& layer, const std::string& column) const {
    const std::string text = node.IsScalar() ? node.Scalar() : std::string();
    double value = 0;
    const char* begin = text.data();
    const char* end = begin + text.size();
    if (begin != end && *begin == '+') ++begin;
    const auto [ptr, ec] = std::from_chars(begin, end, value);
    if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(value)) {
      fail(node, fmt::format("layer '{}': {} '{}' is not a number", layer, column, text));
    }
    if (value < 0) fail(node, fmt::format("layer '{}' has a negative {} count", layer, column));
    return value;
  }

  std::string origin_;
  std::vector<std::string> columns_;
};

}  // namespace

ModelDefinition parse_model_definition(std::string_view text, const std::string& origin) {
  try {
    return Parser(origin).parse(text);
  } catch (const YAML::Exception& e) {  // a shape the parser did not expect: still the file's fault
    throw InputError(at(origin, e.mark), fmt::format("unexpected YAML here: {}", e.msg));
  }
}

ModelDefinition load_model_definition(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("cannot read model file '{}'", path));
  refuse_if_too_big_to_parse(path, "the model file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_model_definition(text.str(), path);
}

Workload parse_model_text(std::string_view text, const std::string& origin) {
  return parse_model_definition(text, origin).workload;
}

Workload load_model_file(const std::string& path) { return load_model_definition(path).workload; }

std::string model_file_text(const std::string& name, const std::string& source, const TransformerSpec& shape) {
  const auto quoted = [](const std::string& text) {
    YAML::Emitter e;
    e << YAML::DoubleQuoted << text;
    return std::string(e.c_str());
  };
  std::string out = fmt::format(
      "# A model given by its shape (docs/models.md): model.file in a scenario.\nname: {}\n"
      "source: {}\ntransformer:\n",
      quoted(name), quoted(source));
  for (const TransformerField& f : transformer_fields()) out += fmt::format("  {}: {}\n", f.name, field_text(f, shape));
  return out;
}

}  // namespace dtsim
