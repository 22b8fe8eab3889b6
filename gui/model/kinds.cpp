// The kind classification and palette of the timeline.
#include "gui/model/kinds.hpp"

#include <array>
#include <cmath>
#include <utility>

namespace dtsim::gui {
namespace {

struct Preset {
  std::string_view name, label;
  Rgb colour;
};

// Waiting is the one saturated red: it is what a reader looks for first. A compute lane's gaps are the summary's
// categories in the summary's colours: exposed communication (orange) where the rank's own communication runs, waiting
// (red) the rest.
constexpr std::array kPresets{
    Preset{"forward", "forward", 0x4e79a7},
    Preset{"backward", "backward", 0x59a14f},
    Preset{"recompute", "recompute", 0x9ecae9},  // a light forward blue: the forward run again
    Preset{"optimizer", "optimizer", 0xb07aa1},
    Preset{"update", "update", 0xb07aa1},
    Preset{"aggregate", "aggregate", 0x9c755f},
    Preset{"framework", "framework overhead", 0xbab0ac},  // host work outside the kernels: a neutral grey
    Preset{"allreduce", "allreduce", 0xf28e2b},
    Preset{"reduce_scatter", "reduce-scatter", 0xedc948},
    Preset{"allgather", "allgather", 0xff9da7},
    Preset{"broadcast", "broadcast", 0x76b7b2},
    Preset{"reduce", "reduce", 0xd4a373},
    Preset{"alltoall", "all-to-all", 0x8f8f8f},
    Preset{"send", "send (push)", 0x17becf},
    Preset{"recv", "recv (pull)", 0xa0a60a},
    Preset{"gossip", "gossip (model exchange)", 0x006d77},
    Preset{"gate", "staleness gate", 0x5c5c5c},
    Preset{"quorum", "backup quorum", 0x5c5c5c},
    Preset{"compress", "compress", 0x8c564b},
    Preset{"decompress", "decompress", 0xc49c94},
    Preset{"waiting", "waiting (the summary's: barrier, bubble, staleness, idle)", kWaitColour},
    Preset{"exposed", "exposed communication (not under compute)", kExposedColour},
    Preset{"failure", "failure", 0x111111},
    Preset{"restart", "restart", 0x6a3d9a},
    Preset{"checkpoint", "checkpoint", 0x393b79},
    Preset{"compute", "compute", 0x4e79a7},
};

Rgb hsv_to_rgb(double h, double s, double v) {
  const double c = v * s;
  const double x = c * (1 - std::fabs(std::fmod(h / 60.0, 2) - 1));
  const double m = v - c;
  double r = 0, g = 0, b = 0;
  if (h < 60)
    r = c, g = x;
  else if (h < 120)
    r = x, g = c;
  else if (h < 180)
    g = c, b = x;
  else if (h < 240)
    g = x, b = c;
  else if (h < 300)
    r = x, b = c;
  else
    r = c, b = x;
  auto byte = [&](double f) { return static_cast<Rgb>(std::lround((f + m) * 255)); };
  return byte(r) << 16 | byte(g) << 8 | byte(b);
}

}  // namespace

std::string classify_kind(std::string_view name, std::string_view cat, std::string_view kind) {
  if (cat == "wait" || kind == "wait" || name == "waiting") return "waiting";
  if (cat == "exposed" && kind == "exposed") return "exposed";  // a compute lane's gap under its own communication
  if (kind == "compute" || kind.empty()) {
    if (cat == "forward" || cat == "backward" || cat == "recompute" || cat == "optimizer" || cat == "aggregate" ||
        cat == "framework")
      return std::string(cat);
    if (!kind.empty()) return std::string(kind);
    return cat.empty() ? std::string(name) : std::string(cat);
  }
  if (kind == "push") return "send";
  if (kind == "pull") return "recv";
  return std::string(kind);
}

Rgb known_kind_colour(std::string_view kind, bool& known) {
  for (const auto& p : kPresets) {
    if (p.name == kind) {
      known = true;
      return p.colour;
    }
  }
  known = false;
  return 0;
}

Rgb hashed_colour(std::string_view kind) {
  uint32_t h = 2166136261u;  // FNV-1a
  for (char c : kind) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
  const double hue = (h % 360);
  const double sat = 0.45 + ((h >> 9) % 30) / 100.0;
  const double val = 0.65 + ((h >> 17) % 25) / 100.0;
  return hsv_to_rgb(hue, sat, val);
}

uint16_t KindTable::intern(std::string_view kind) {
  if (auto it = ids_.find(std::string(kind)); it != ids_.end()) return it->second;
  KindInfo info;
  info.name = std::string(kind);
  info.label = info.name;
  bool known = false;
  info.colour = known_kind_colour(kind, known);
  if (known) {
    for (const auto& p : kPresets) {
      if (p.name == kind) info.label = std::string(p.label);
    }
  } else {
    info.colour = hashed_colour(kind);
  }
  const auto id = static_cast<uint16_t>(kinds_.size());
  kinds_.push_back(std::move(info));
  ids_.emplace(std::string(kind), id);
  return id;
}

int KindTable::find(std::string_view kind) const {
  const auto it = ids_.find(std::string(kind));
  return it == ids_.end() ? -1 : it->second;
}

}  // namespace dtsim::gui
