// The overload-set helper for std::visit over the Plan's op variants.
#pragma once

namespace dtsim {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

}  // namespace dtsim
