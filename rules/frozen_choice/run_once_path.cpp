#include "rules/frozen_choice/run_once_path.h"

namespace graphsafe {

bool reachedThroughRunOnce(const RegionContext& context) {
  // Each call on the path enters the next step's caller; the last enters the event's function.
  for (std::size_t i = 0; i < context.path.size(); ++i) {
    if ((context.path[i].call->flags & kFlagRunsOnce) != 0) return true;
    if (i > 0 && context.path[i].caller->memoized) return true;
  }
  return !context.path.empty() && context.function->memoized;
}

}  // namespace graphsafe
