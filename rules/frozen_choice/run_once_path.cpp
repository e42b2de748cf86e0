#include "rules/frozen_choice/run_once_path.h"

namespace graphsafe {

namespace {

bool reachedThrough(const RegionContext& context, bool capture_only_counts) {
  // Each call on the path enters the next step's caller; the last enters the event's function.
  for (std::size_t i = 0; i < context.path.size(); ++i) {
    const std::uint32_t flags = context.path[i].call->flags;
    if ((flags & kFlagRunsOnce) != 0 &&
        (capture_only_counts || (flags & kFlagCaptureDependent) == 0)) {
      return true;
    }
    if (i > 0 && context.path[i].caller->memoized) return true;
  }
  return !context.path.empty() && context.function->memoized;
}

}  // namespace

bool reachedThroughRunOnce(const RegionContext& context) {
  return reachedThrough(context, true);
}

bool reachedThroughCache(const RegionContext& context) {
  return reachedThrough(context, false);
}

}  // namespace graphsafe
