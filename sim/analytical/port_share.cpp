// Max-min fair sharing of the ports that point-to-point transfers cross (port_share.hpp).
#include "sim/analytical/port_share.hpp"

#include <algorithm>
#include <map>
#include <queue>
#include <stdexcept>

namespace dtsim::analytical {

void PortShare::add(double now, const std::vector<PortFlow>& flows) {
  advance(now);
  for (const PortFlow& f : flows) active_.push_back(Active{f, f.bytes});
  allocate();
}

std::vector<int> PortShare::drain(double now) {
  advance(now);
  std::vector<int> drained;
  std::vector<Active> flowing;
  for (auto& a : active_) {
    // A flow drains at its end, or when rounding leaves it a negligible rest.
    if (a.end <= now || a.left <= 1e-12 * a.flow.bytes) {
      drained.push_back(a.flow.id);
    } else {
      flowing.push_back(std::move(a));
    }
  }
  active_ = std::move(flowing);
  allocate();
  return drained;
}

double PortShare::rate(int id) const {
  for (const auto& a : active_) {
    if (a.flow.id == id) return a.rate;
  }
  throw std::out_of_range("PortShare::rate: no such flow");
}

// The bytes each flow carried since the last change of rates.
void PortShare::advance(double now) {
  if (now <= since_) return;
  for (auto& a : active_) a.left = std::max(0.0, a.left - a.rate * (now - since_));
  since_ = now;
}

// Progressive filling: a port's capacity is its profile's factor now (1 without one); the port whose
// unfrozen flows would fill it at the lowest common rate fixes them at that rate; the ports they cross lose that
// capacity; repeat. Ports are taken from a heap keyed by that rate, re-pushed when it changes (stale entries skipped),
// so one allocation costs O((flows + ports) log ports).
void PortShare::allocate() {
  next_ = std::numeric_limits<double>::infinity();
  if (active_.empty()) return;
  struct PortState {
    double capacity = 1;  // fraction of the port's nominal rate left
    double weight = 0;    // port-seconds per byte of its unfrozen flows
    std::vector<int> flows;
    int unfrozen = 0;
    long version = 0;
  };
  std::map<cost::Port, PortState> ports;
  for (size_t i = 0; i < active_.size(); ++i) {
    for (int k = 0; k < 2; ++k) {
      const auto [it, fresh] = ports.try_emplace(active_[i].flow.ports[k]);
      PortState& p = it->second;
      if (const Profile* profile = active_[i].flow.profiles[k]; fresh && profile) {
        p.capacity = profile->factor_at(since_);
        next_ = std::min(next_, profile->next_change(since_));  // the shares change with the factor
      }
      p.flows.push_back(static_cast<int>(i));
      ++p.unfrozen;
    }
  }
  // Each port's flows by id, their weight summed in that order: the same rates whatever order the flows came in.
  for (auto& [port, p] : ports) {
    std::sort(p.flows.begin(), p.flows.end(), [this](int a, int b) { return active_[a].flow.id < active_[b].flow.id; });
    for (size_t j = 0; j < p.flows.size(); ++j) {
      if (j > 0 && p.flows[j] == p.flows[j - 1]) continue;  // a flow whose two ports are this one: listed twice
      const PortFlow& f = active_[p.flows[j]].flow;
      for (int k = 0; k < 2; ++k) {
        if (f.ports[k] == port) p.weight += f.cost[k];
      }
    }
  }
  // (fill rate, version, port): ties go to the lower port, not to where the map's nodes happen to lie in memory (which
  // made the freezing order, and so the rates' last bits, differ from one process to another).
  using Entry = std::tuple<double, long, cost::Port>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
  auto fill_rate = [](const PortState& p) {
    return p.weight > 0 ? std::max(0.0, p.capacity) / p.weight : std::numeric_limits<double>::infinity();
  };
  for (auto& [port, p] : ports) heap.emplace(fill_rate(p), p.version, port);
  std::vector<char> frozen(active_.size(), 0);
  while (!heap.empty()) {
    const auto [r, version, port] = heap.top();
    heap.pop();
    PortState& p = ports[port];
    if (version != p.version || p.unfrozen == 0) continue;
    for (int i : p.flows) {
      if (frozen[i]) continue;
      frozen[i] = 1;
      Active& a = active_[i];
      a.rate = r;
      for (int k = 0; k < 2; ++k) {
        auto it = ports.find(a.flow.ports[k]);
        PortState& q = it->second;
        q.capacity -= a.flow.cost[k] * r;
        q.weight -= a.flow.cost[k];
        if (--q.unfrozen == 0) {
          q.weight = 0;
        } else if (it->first != port) {
          heap.emplace(fill_rate(q), ++q.version, it->first);
        }
      }
    }
  }
  for (auto& a : active_) {
    // A flow that costs no port time drains at once.
    a.end = a.rate == std::numeric_limits<double>::infinity() ? since_ : since_ + a.left / a.rate;
    next_ = std::min(next_, a.end);
  }
}

}  // namespace dtsim::analytical
