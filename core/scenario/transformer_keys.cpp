// The `model.transformer.*` job keys, one per field of TransformerSpec, and the shape of a job's model: that of
// model.name: transformer, or of a shape-defined zoo model or model file with the keys the scenario sets over it.
#include "core/scenario/transformer_keys.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/base/overloaded.hpp"
#include "core/scenario/validate.hpp"
#include "models/zoo/transformer_fields.hpp"

namespace dtsim {
namespace {

std::string key_of(const TransformerField& f) { return fmt::format("model.transformer.{}", f.name); }

// A share above its minimum (window_layers) says so: "must be more than 0 and at most 1".
double number_of(const TransformerField& f, const ScalarValue& v) {
  if (!f.above_min) return v.between(f.min, f.max);
  const double x = v.quantity(Quantity::Number);
  if (!(x > f.min && x <= f.max))
    v.fail(fmt::format("must be more than {} and at most {} (got {})", f.min, f.max, v.text()));
  return x;
}

void set_field(const TransformerField& f, const ScalarValue& v, TransformerSpec& spec) {
  std::visit(Overloaded{[&](int TransformerSpec::*m) { spec.*m = v.count(f.min, f.max); },
                        [&](bool TransformerSpec::*m) { spec.*m = v.boolean(); },
                        [&](double TransformerSpec::*m) { spec.*m = number_of(f, v); }},
             f.member);
}

}  // namespace

void add_transformer_keys(KeyTable& keys) {
  for (const TransformerField& f : transformer_fields()) {
    const bool bounded = !std::holds_alternative<bool TransformerSpec::*>(f.member);
    keys.job(key_of(f), std::string(field_type(f)), field_text(f, TransformerSpec{}),
             bounded && !f.above_min ? fmt::format("{} At most {}.", f.doc, f.max) : std::string(f.doc),
             [&f](JobSpec& j, const ScalarValue& v) { set_field(f, v, j.model.transformer); });
  }
}

void finish_transformer(const Scenario& s, size_t index, JobSpec& job, const std::optional<TransformerSpec>& shape,
                        const std::string& model_key) {
  // The keys of this job the scenario sets (not their defaults), as the user wrote them.
  std::vector<const TransformerField*> set;
  std::vector<std::string> set_keys;
  for (const TransformerField& f : transformer_fields()) {
    const std::string key = s.job_key(index, key_of(f));
    if (s.where.contains(key)) {
      set.push_back(&f);
      set_keys.push_back(key);
    }
  }
  if (!shape) {
    if (set.empty()) return;
    throw InputError(s.location_of(set_keys.front()),
                     fmt::format("{}: model '{}' has no transformer shape to change (model.transformer.* apply to "
                                 "model.name: transformer, to the zoo's shape-defined models such as llama3_8b and to "
                                 "model files with a `transformer:` shape)",
                                 set_keys.front(), job.workload.name));
  }
  TransformerSpec spec = *shape;
  for (const TransformerField* f : set) copy_field(*f, job.model.transformer, spec);
  if (const auto problem = shape_problem(spec)) {
    const std::string key = s.job_key(index, fmt::format("model.transformer.{}", problem->field));
    throw InputError(s.location_of(s.where.contains(key) ? key : model_key),
                     fmt::format("{}: {}", key, problem->message));
  }
  job.model.transformer = spec;
  if (!job.workload.layers.empty() && set.empty()) return;  // the model's own table, from its own shape
  const std::string name = job.workload.name;
  Workload made = make_transformer(spec, name);
  if (!job.workload.layers.empty()) {
    made.source = fmt::format("{}'s shape with the scenario's {}; {}", name, fmt::join(set_keys, ", "), made.source);
  }
  job.workload = std::move(made);
}

}  // namespace dtsim
