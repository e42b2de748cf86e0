#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <unordered_set>
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

  // Which bounds a walk ran into. A region is checked in part when a function its calls reach
  // was never walked (in any context: a call cut short to a function walked elsewhere in the
  // region leaves no code unchecked); the engine says so in a notice naming the region.
  struct Cut {
    // A call not followed because it was kMaxCallDepth calls deep. It is resolved only once
    // every check is done (functionsCutDeep()): the program model's answers depend on the order
    // of its questions, and a new question here would change what the next region finds.
    struct DeepCall {
      std::uint32_t frame = 0;
      const FileModel* file = nullptr;
      const Event* call = nullptr;
    };
    std::size_t visit_budget = 0;  // functions reached only once the visits were spent
    std::vector<DeepCall> too_deep;
    std::unordered_set<const FunctionModel*> walked;  // kept while too_deep is not empty
    bool any() const { return visit_budget > 0 || !too_deep.empty(); }
  };

  // The functions the deep calls of `cut` reach that the walk never walked.
  std::size_t functionsCutDeep(const Cut& cut) const;

  explicit RegionWalker(const ProgramModel& program) : program_(program) {}

  Cut walk(const FileModel& file, std::size_t region_index, const Visitor& visit) const;

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
