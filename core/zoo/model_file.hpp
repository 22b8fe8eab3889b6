// Layer tables in the zoo's file format: a user's model file (model.file) or the zoo's own entries.
#pragma once

#include <string>
#include <string_view>

#include "core/zoo/workload.hpp"

namespace dtsim {

// Loads a user's layer table in the zoo's file format; throws InputError with file:line:col.
Workload load_model_file(const std::string& path);
// Parses a layer table from text (the zoo format); `origin` names it in errors.
Workload parse_model_text(std::string_view text, const std::string& origin);

}  // namespace dtsim
