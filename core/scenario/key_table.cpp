// KeyTable's three kinds of key: run keys, required run keys and job keys.
#include "core/scenario/key_table.hpp"

#include <utility>

namespace dtsim {

void KeyTable::run(std::string path, std::string type, std::string def, std::string doc, RunSetter set) {
  keys_.push_back(ScenarioKey{std::move(path), std::move(type), std::move(def), false, std::move(doc), KeyScope::Run,
                              std::move(set), nullptr});
}

void KeyTable::required(std::string path, std::string type, std::string doc, RunSetter set) {
  keys_.push_back(
      ScenarioKey{std::move(path), std::move(type), "", true, std::move(doc), KeyScope::Run, std::move(set), nullptr});
}

void KeyTable::job(std::string path, std::string type, std::string def, std::string doc, JobSetter set) {
  keys_.push_back(ScenarioKey{std::move(path), std::move(type), std::move(def), false, std::move(doc), KeyScope::Job,
                              nullptr, std::move(set)});
}

}  // namespace dtsim
