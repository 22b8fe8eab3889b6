// Time-varying factors of a resource: a device's speed (stragglers.speed_profile) or a NIC's
// bandwidth (cluster.nic_profile), piecewise constant in simulated time and optionally periodic.
// SimGrid applies them as its own host speed and link bandwidth profiles; the analytical engine
// integrates the same pieces (finish()), so both engines agree exactly on an op alone on its resource.
//
// File format (one point a line; blank lines and `#` comments skipped):
//     # time   factor
//     0        1
//     10s      0.5      from 10 s on, half speed
//     30       1        (seconds when no unit is given)
//     period 60s        optional: the pattern repeats every 60 s (must exceed the last time)
// The factor is 1 before the first time. Inline form (for a flapping link or a periodic slowdown):
//     period=2s,duty=0.5,factor=0.25[,offset=0s]
// full speed for duty * period, then `factor` for the rest of each period, starting at `offset`.
#pragma once

#include <string>
#include <vector>

namespace dtsim {

// The shortest period a profile may repeat at: a device or link whose speed changes faster than a
// kilohertz is its mean speed to any op of training's size, and every change is an event the engines
// simulate (a 26 ns period made 4e10 pieces of a 1,000 s run: found by fuzz/fuzz_speed_profile).
inline constexpr double kMinProfilePeriod = 1e-3;

struct Profile {
  bool operator==(const Profile&) const = default;
  std::string source;           // the file or the inline text, for messages
  std::vector<double> times;    // starts of the pieces, increasing, times[0] == 0
  std::vector<double> factors;  // > 0, one per piece
  double period = 0;            // > 0: the pieces repeat every `period` seconds

  double factor_at(double t) const;
  // The first time after t at which the factor may change (infinity if never).
  double next_change(double t) const;
  // When `work` seconds of full-speed work started at `start` are done: the t with
  // integral_start^t factor = work. Exact for piecewise-constant factors.
  double finish(double start, double work) const;
  // Full-speed seconds of work done between t0 and t1 (the integral of the factor).
  double work_between(double t0, double t1) const;
};

// finish() under the pointwise minimum of several profiles (a transfer limited by the slowest of
// the NICs it crosses). An empty list means factor 1.
double finish_under_minimum(const std::vector<const Profile*>& profiles, double start, double work);

// A profile from a file or an inline `period=..,duty=..,factor=..` spec. `max_factor` bounds the
// factors (1 for bandwidth, which cannot exceed the link's rate). Relative paths are resolved by the
// caller. Throws InputError: `file:line:col: ...` for a bad line of a file, a plain message for a bad
// inline spec (the caller adds the key's location).
Profile load_profile(const std::string& path, double max_factor);
Profile parse_inline_profile(const std::string& text, double max_factor);
bool is_inline_profile(const std::string& text);  // contains '='

}  // namespace dtsim
