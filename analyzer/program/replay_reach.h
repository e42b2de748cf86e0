#pragma once

// Which capture regions a call of a function replays: directly (its body replays a graph a
// capture made earlier: a replaying method, a lazily capturing function after its first call),
// or through the functions it calls, a few calls deep. The replay cycle (replay_cycle.h) is
// built from the loops whose bodies replay a region.

#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analyzer/model/capture_model.h"

namespace graphsafe {
class ProgramModel;
}

namespace graphsafe::program {

// A region, program-wide: the file's index in the program, then the region's index in it.
using RegionKey = std::uint64_t;
inline RegionKey regionKey(std::uint32_t file, std::size_t region) {
  return (std::uint64_t{file} << 32) | static_cast<std::uint32_t>(region);
}

// A loop of the program whose body replays a region: the function, the loop, and the replay or
// call in it that does.
struct ReplayingLoop {
  std::uint32_t function = 0;
  SourceRange loop;
  const Event* via = nullptr;
};

class ReplayReach {
 public:
  // Calls deep that a replay is looked for under a call.
  static constexpr int kMaxDepth = 4;

  explicit ReplayReach(const ProgramModel& program);

  // The regions a call of `function` may replay (sorted).
  const std::vector<RegionKey>& replayedBy(std::uint32_t function);
  // The regions `function` replays in its own body, not through calls.
  const std::vector<RegionKey>& direct(std::uint32_t function) const;
  // Every loop of the program whose body replays `region`.
  const std::vector<ReplayingLoop>& loopsReplaying(RegionKey region);

 private:
  std::vector<RegionKey> compute(std::uint32_t function, int depth);
  void collectLoops();

  const ProgramModel& program_;
  std::unordered_map<std::uint32_t, std::vector<RegionKey>> direct_;
  std::unordered_map<std::uint32_t, std::vector<RegionKey>> memo_;
  std::unordered_set<std::uint32_t> active_;
  bool any_regions_ = false;
  bool loops_collected_ = false;
  std::unordered_map<RegionKey, std::vector<ReplayingLoop>> loops_;
  std::vector<RegionKey> none_;
  std::vector<ReplayingLoop> no_loops_;
};

}  // namespace graphsafe::program
