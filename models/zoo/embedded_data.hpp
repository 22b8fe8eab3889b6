// The data files of models/zoo/data/ (model and device zoo), compiled into the binary.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace dtsim::data {

struct EmbeddedFile {
  std::string_view path;  // relative to models/zoo/data/, e.g. "models/resnet50.yaml"
  std::string_view text;
};

std::span<const EmbeddedFile> files();
std::optional<std::string_view> find(std::string_view path);

}  // namespace dtsim::data
