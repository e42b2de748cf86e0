#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analyzer/engine/check.h"
#include "analyzer/program/program_model.h"

namespace graphsafe {

// Visits every event that runs under a capture region: the region's own events, then, through
// calls, the events of every function the region reaches, each with the call path and the values
// its parameters hold on that path. Bounded: call depth, cycles, and a budget of function visits
// per region, so recursive or deeply layered code cannot make the walk explode.
class RegionWalker {
 public:
  using Visitor = std::function<void(const RegionContext&, const Event&)>;

  static constexpr std::size_t kMaxCallDepth = 24;
  static constexpr std::size_t kMaxFunctionVisits = 4096;

  explicit RegionWalker(const ProgramModel& program) : program_(program) {}

  void walk(const FileModel& file, std::size_t region_index, const Visitor& visit) const;

 private:
  // The events of `function` from the first to past the last of region `region`: a region's
  // events lie between those (with a nested region's among them), so each region's walk reads
  // its own stretch instead of the whole function (a module with thousands of regions).
  std::pair<std::size_t, std::size_t> regionEvents(const FunctionModel& function,
                                                   std::int32_t region) const;

  const ProgramModel& program_;
  // Per function, by region index: its stretch of events (computed once per function).
  mutable std::unordered_map<const FunctionModel*, std::vector<std::pair<std::size_t, std::size_t>>>
      spans_;
};

}  // namespace graphsafe
