// dtsim profiles as SimGrid's (ProfileFeeds, platform_parts.hpp).
//
// SimGrid 3.32 keeps a profile as a list of (gap since the previous point, value) pairs that grows on demand: it calls
// the profile's callback once when the profile is made, and again whenever a resource following it has used every
// pair in the list; each resource keeps its own place in the shared list. The callback here appends the next
// kChunk points of the dtsim profile (after the last one, the first point of the next period when periodic, its gap
// `period - last time`), so the list holds the points that simulated time has reached, once, whatever the number of
// hosts and links that follow it.
#include <fmt/format.h>
#include <simgrid/kernel/ProfileBuilder.hpp>

#include <algorithm>
#include <memory>

#include "sim/simgrid/platform_parts.hpp"

namespace dtsim::sg::detail {

namespace {

using simgrid::kernel::profile::DatedValue;

// Points appended a call: a few pages, so a run reaching few points of a long profile holds few.
constexpr size_t kChunk = 4096;

struct Feed {
  std::shared_ptr<const Profile> profile;  // the platform's copy: the scenario's may not outlive the build
  double scale = 1;

  void operator()(std::vector<DatedValue>& list) const {
    const Profile& p = *profile;
    const size_t n = p.times.size();
    const size_t made = list.size();
    if (n == 0 || (p.period <= 0 && made >= n)) return;
    const size_t from = made % n;
    const size_t to = std::min(n, from + kChunk);
    for (size_t i = from; i < to; ++i) {
      const double gap = i > 0 ? p.times[i] - p.times[i - 1] : made == 0 ? p.times[0] : p.period - p.times[n - 1];
      list.emplace_back(gap, p.factors[i] * scale);
    }
  }
};

}  // namespace

simgrid::kernel::profile::Profile* ProfileFeeds::get(const Profile& p, double scale) {
  auto [at, fresh] = made_.try_emplace({&p, scale}, nullptr);
  if (fresh) {
    at->second = simgrid::kernel::profile::ProfileBuilder::from_callback(
        fmt::format("dtsim.profile{}", made_.size()), Feed{std::make_shared<const Profile>(p), scale},
        p.period > 0 ? p.period : -1.0);
  }
  return at->second;
}

}  // namespace dtsim::sg::detail
