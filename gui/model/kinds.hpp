// Kinds of timeline ops and their colours: a fixed palette for the kinds dtsim writes
// (forward, backward, recompute, each collective, push/pull, compression, waiting, failure, restart) and a
// stable hashed colour for any other kind, so the same kind always gets the same colour.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace dtsim::gui {

using Rgb = uint32_t;  // 0xRRGGBB

// The summary's categories of a rank's time (metrics.json: compute + exposed communication + waiting = 1), in the
// colours the summary's bars and the timeline's compute lanes share.
inline constexpr Rgb kComputeColour = 0x4e79a7, kExposedColour = 0xf28e2b, kWaitColour = 0xe31a1c;

struct KindInfo {
  std::string name;   // key: "forward", "allreduce", "send", "waiting", ...
  std::string label;  // for legends: "send (push)"
  Rgb colour = 0;
};

// The kind of an op from its Chrome trace fields: waiting events, compute ops by phase (`cat`),
// everything else by `args.kind`.
std::string classify_kind(std::string_view name, std::string_view cat, std::string_view kind);
Rgb known_kind_colour(std::string_view kind, bool& known);
Rgb hashed_colour(std::string_view kind);

class KindTable {
 public:
  uint16_t intern(std::string_view kind);
  const KindInfo& info(uint16_t id) const { return kinds_[id]; }
  size_t size() const { return kinds_.size(); }
  // The id of a kind if present, else -1.
  int find(std::string_view kind) const;

 private:
  std::vector<KindInfo> kinds_;
  std::unordered_map<std::string, uint16_t> ids_;
};

}  // namespace dtsim::gui
