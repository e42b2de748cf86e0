#pragma once

#include <functional>

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
  const ProgramModel& program_;
};

}  // namespace graphsafe
