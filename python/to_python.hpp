// JSON (metrics.json, trace.json) as plain Python objects: dicts, lists, floats, ints, str, bool, None.
#pragma once

#include <pybind11/pybind11.h>
#include <nlohmann/json.hpp>

namespace dtsim::py {

pybind11::object to_python(const nlohmann::json& j);

}  // namespace dtsim::py
