// An ATen op's recorded arguments and the memory traffic they give (trace_op_args.hpp).
#include "core/calibration/trace_op_args.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <exception>

#include <nlohmann/json.hpp>

#include "core/calibration/trace_classes.hpp"

namespace dtsim {
namespace {

using Json = nlohmann::json;

// An array of arrays of numbers (Input Dims, Input Strides): a scalar or a list of tensors gives [].
std::vector<std::vector<double>> number_lists(const Json& lists) {
  std::vector<std::vector<double>> out;
  for (const Json& in : lists) {
    std::vector<double> numbers;
    if (in.is_array()) {
      for (const Json& s : in) {
        if (s.is_number() && std::isfinite(s.get<double>())) numbers.push_back(s.get<double>());
      }
    }
    out.push_back(std::move(numbers));
  }
  return out;
}

// The elements input i's memory holds: its numel, less the dimensions of stride 0 (an expand()ed view, a
// broadcast index) where its strides are recorded, which read the same element again.
double distinct_elements(const OpArgs& a, size_t i) {
  if (i >= a.dims.size()) return 0;
  const std::vector<double>& d = a.dims[i];
  if (i >= a.strides.size() || a.strides[i].size() != d.size()) return numel(d);
  if (d.empty()) return 0;
  double n = 1;
  for (size_t k = 0; k < d.size(); ++k) n *= a.strides[i][k] == 0 ? 1 : d[k];
  return n;
}

// The arguments of the functional schema (native_functions.yaml) of the memory-bound ops that have an out=
// overload taking one more: the out tensor.
struct OpArity {
  std::string_view op;
  size_t args;
};
constexpr std::array<OpArity, 19> kFunctionalArity{{{"aten::add", 3},
                                                    {"aten::sub", 3},
                                                    {"aten::mul", 2},
                                                    {"aten::div", 2},
                                                    {"aten::addcmul", 4},
                                                    {"aten::sqrt", 1},
                                                    {"aten::pow", 2},
                                                    {"aten::neg", 1},
                                                    {"aten::exp", 1},
                                                    {"aten::sigmoid", 1},
                                                    {"aten::tanh", 1},
                                                    {"aten::gelu", 2},
                                                    {"aten::gelu_backward", 3},
                                                    {"aten::silu", 1},
                                                    {"aten::silu_backward", 2},
                                                    {"aten::threshold_backward", 3},
                                                    {"aten::where", 3},
                                                    {"aten::clamp", 3},
                                                    {"aten::clamp_min", 2}}};

}  // namespace

std::string dtype_of(const std::string& type) {
  if (type == "float") return "fp32";
  if (type == "c10::Half") return "fp16";
  if (type == "c10::BFloat16") return "bf16";
  return "";
}

double element_bytes(const std::string& type) {
  if (type == "double" || type == "long int" || type == "long") return 8;
  if (type == "float" || type == "int") return 4;
  if (type == "c10::Half" || type == "c10::BFloat16" || type == "short int") return 2;
  if (type == "bool" || type == "unsigned char" || type == "signed char") return 1;
  return 0;
}

OpArgs op_args(const Json& e) {
  OpArgs a;
  const auto args = e.find("args");
  if (args == e.end() || !args->is_object()) return a;
  if (const auto d = args->find("Input Dims"); d != args->end() && d->is_array()) a.dims = number_lists(*d);
  if (const auto d = args->find("Input Strides"); d != args->end() && d->is_array()) a.strides = number_lists(*d);
  if (const auto t = args->find("Input type"); t != args->end() && t->is_array()) {
    for (const Json& s : *t) a.types.push_back(s.is_string() ? s.get<std::string>() : "");
  }
  if (const auto c = args->find("Concrete Inputs"); c != args->end() && c->is_array()) {
    for (const Json& s : *c) a.concrete.push_back(s.is_string() ? s.get<std::string>() : "");
  }
  return a;
}

double numel(const std::vector<double>& d) {
  if (d.empty()) return 0;
  double n = 1;
  for (double s : d) n *= s;
  return n;
}

double memory_bytes(std::string_view op, const OpArgs& a) {
  if (classify_op(op) != TraceClass::MemoryBound) return 0;
  std::vector<double> whole, read;  // each input's bytes, and those its memory holds (what reading it moves)
  for (size_t i = 0; i < a.dims.size() && i < a.types.size(); ++i) {
    whole.push_back(numel(a.dims[i]) * element_bytes(a.types[i]));
    read.push_back(distinct_elements(a, i) * element_bytes(a.types[i]));
  }
  if (whole.empty()) return 0;
  const auto elements = [&](size_t i) { return i < a.dims.size() ? numel(a.dims[i]) : 0.0; };
  const auto size_of = [&](size_t i) { return i < a.types.size() ? element_bytes(a.types[i]) : 0.0; };
  const auto read_of = [&](size_t i) { return i < read.size() ? read[i] : 0.0; };
  const auto scalar = [&](size_t i) -> double {
    try {
      return i < a.concrete.size() && !a.concrete[i].empty() ? std::stod(a.concrete[i]) : -1;
    } catch (const std::exception&) {
      return -1;
    }
  };
  if (op == "aten::fill_" || op == "aten::zero_") return whole.front();
  // copy_(self, src): src read, self written over, not read (a cast between dtypes, a layout copy).
  if (op == "aten::copy_") return whole.size() > 1 ? whole[0] + read[1] : 0;
  // Reductions read their input; their output is the reduced one, small beside it.
  if (op == "aten::sum" || op == "aten::mean") return read.front();
  // nll_loss_forward(self, target, ...): the target and one element of self per target read.
  if (op == "aten::nll_loss_forward") return read_of(1) + elements(1) * size_of(0);
  // nll_loss_backward(grad_output, self, target, ...): the target read and one element of grad_input per
  // target written (the gradient's zeroing is an op of its own).
  if (op == "aten::nll_loss_backward") return read_of(2) + elements(2) * size_of(1);
  // gather(self, dim, index): the index read (often a broadcast view), and one of self's elements read and
  // one written per index.
  if (op == "aten::gather") return read_of(2) + elements(2) * 2 * size_of(0);
  // index_select(self, dim, index): the index read, and a slice of self per index read and written.
  if (op == "aten::index_select") {
    const double dim = scalar(1);
    if (dim < 0 || a.dims.empty() || dim >= static_cast<double>(a.dims[0].size())) return 0;
    const double slice = numel(a.dims[0]) / a.dims[0][static_cast<size_t>(dim)];
    return read_of(2) + elements(2) * 2 * slice * size_of(0);
  }
  // embedding_dense_backward(grad_output, indices, num_weights, ...): the gradient and the indices read, the
  // table's gradient (num_weights rows of the gradient's last dimension) written whole.
  if (op == "aten::embedding_dense_backward") {
    const double rows = scalar(2);
    if (rows <= 0 || read.size() < 2 || a.dims[0].empty()) return 0;
    return read[0] + read[1] + rows * a.dims[0].back() * size_of(0);
  }
  // An out= overload (mul.out, add.out, ...): one argument past the functional schema's, a tensor, written and not
  // read (a trace names no overload; the count of its arguments tells them apart).
  const auto functional =
      std::find_if(kFunctionalArity.begin(), kFunctionalArity.end(), [&](const OpArity& f) { return f.op == op; });
  if (functional != kFunctionalArity.end() && whole.size() == functional->args + 1 && whole.back() > 0) {
    double sum = whole.back();
    for (size_t i = 0; i < functional->args; ++i) sum += read[i];
    return sum;
  }
  double sum = 0;
  for (double b : read) sum += b;
  if (op.back() == '_') return sum + whole.front();
  return sum + *std::max_element(whole.begin(), whole.end());
}

}  // namespace dtsim
