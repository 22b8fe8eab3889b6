// Dependency order of a trace's nodes: the file's order when it already respects every dependency
// (the common case, O(n)); else Kahn's algorithm taking the earliest ready node first.
#include "core/plan/chakra/graph.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>
#include <unordered_map>

#include <fmt/format.h>

namespace dtsim {
namespace {

// A cycle among the nodes Kahn's algorithm left: from one of them, follow unfinished deps until a
// node repeats. Returns the ids in dependency order from the cycle's first node in the file, e.g. "3 -> 5 -> 4 -> 3".
std::string describe_cycle(const std::vector<EtNode>& nodes, const ChakraGraph& g, const std::vector<int>& left) {
  int v = static_cast<int>(std::find_if(left.begin(), left.end(), [](int n) { return n > 0; }) - left.begin());
  std::vector<int> seen(nodes.size(), -1);
  std::vector<int> path;
  while (seen[static_cast<size_t>(v)] < 0) {
    seen[static_cast<size_t>(v)] = static_cast<int>(path.size());
    path.push_back(v);
    for (const int* d = g.deps_begin(v); d != g.deps_end(v); ++d) {
      if (left[static_cast<size_t>(*d)] > 0) {
        v = *d;
        break;
      }
    }
  }
  std::vector<int> cycle(path.begin() + seen[static_cast<size_t>(v)], path.end());
  std::reverse(cycle.begin(), cycle.end());  // dependency order: each node waits for the one before
  std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());  // from the first in the file
  std::string text;
  const size_t shown = std::min<size_t>(cycle.size(), 8);
  for (size_t i = 0; i < shown; ++i) text += fmt::format("{} -> ", nodes[static_cast<size_t>(cycle[i])].id);
  if (shown < cycle.size()) text += fmt::format("({} more) -> ", cycle.size() - shown);
  return text + std::to_string(nodes[static_cast<size_t>(cycle.front())].id);
}

}  // namespace

ChakraGraph order_nodes(const std::vector<EtNode>& nodes, const std::function<void(const std::string&)>& fail) {
  const size_t n = nodes.size();
  std::unordered_map<std::uint64_t, int> position;
  position.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (!position.emplace(nodes[i].id, static_cast<int>(i)).second) {
      fail(fmt::format("node id {} appears twice", nodes[i].id));
    }
  }
  ChakraGraph g;
  g.offset.assign(n + 1, 0);
  bool in_file_order = true;
  for (size_t i = 0; i < n; ++i) {
    const size_t first = g.dep.size();
    for (const auto* list : {&nodes[i].data_deps, &nodes[i].ctrl_deps}) {
      for (const std::uint64_t id : *list) {
        const auto it = position.find(id);
        if (it == position.end()) {
          fail(fmt::format("node {} depends on node {}, which this trace does not hold", nodes[i].id, id));
        }
        g.dep.push_back(it->second);
        in_file_order = in_file_order && it->second < static_cast<int>(i);
      }
    }
    std::sort(g.dep.begin() + static_cast<std::ptrdiff_t>(first), g.dep.end());
    g.dep.erase(std::unique(g.dep.begin() + static_cast<std::ptrdiff_t>(first), g.dep.end()), g.dep.end());
    g.offset[i + 1] = static_cast<int>(g.dep.size());
  }
  g.order.resize(n);
  std::iota(g.order.begin(), g.order.end(), 0);
  if (in_file_order) return g;
  std::vector<int> left(n);
  std::vector<std::vector<int>> dependents(n);
  for (size_t i = 0; i < n; ++i) {
    const int v = static_cast<int>(i);
    left[i] = static_cast<int>(g.deps_end(v) - g.deps_begin(v));
    for (const int* d = g.deps_begin(v); d != g.deps_end(v); ++d) dependents[static_cast<size_t>(*d)].push_back(v);
  }
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (size_t i = 0; i < n; ++i) {
    if (left[i] == 0) ready.push(static_cast<int>(i));
  }
  g.order.clear();
  while (!ready.empty()) {
    const int v = ready.top();
    ready.pop();
    g.order.push_back(v);
    for (const int w : dependents[static_cast<size_t>(v)]) {
      if (--left[static_cast<size_t>(w)] == 0) ready.push(w);
    }
  }
  if (g.order.size() < n) fail("a dependency cycle: " + describe_cycle(nodes, g, left));
  return g;
}

}  // namespace dtsim
