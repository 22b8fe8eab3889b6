// nlohmann::json to Python objects, recursively (to_python.hpp).
#include "python/to_python.hpp"

namespace dtsim::py {

pybind11::object to_python(const nlohmann::json& j) {
  namespace pb = pybind11;
  switch (j.type()) {
    case nlohmann::json::value_t::object: {
      pb::dict d;
      for (const auto& [k, v] : j.items()) d[pb::str(k)] = to_python(v);
      return d;
    }
    case nlohmann::json::value_t::array: {
      pb::list l(j.size());
      for (size_t i = 0; i < j.size(); ++i) l[i] = to_python(j[i]);
      return l;
    }
    case nlohmann::json::value_t::string: return pb::str(j.get_ref<const std::string&>());
    case nlohmann::json::value_t::boolean: return pb::bool_(j.get<bool>());
    case nlohmann::json::value_t::number_integer: return pb::int_(j.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned: return pb::int_(j.get<std::uint64_t>());
    case nlohmann::json::value_t::number_float: return pb::float_(j.get<double>());
    default: return pb::none();
  }
}

}  // namespace dtsim::py
