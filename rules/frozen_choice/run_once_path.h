#pragma once

// Code reached under capture through a call that runs once by design (a memoized function, or a
// call under a lazy-initialization, log-once or capture-only guard: kFlagRunsOnce) does once what
// it would do once anyway: a value it freezes or a side effect it has is not a capture hazard.
// The frozen-choice rules skip it.

#include "analyzer/engine/check.h"

namespace graphsafe {

bool reachedThroughRunOnce(const RegionContext& context);

// Reached through a call whose result is cached after its first run (a memoized function, a
// lazy-initialization guard), not through a capture-only block: the warm-up runs that code, and
// under capture the cache answers. What it would refuse under capture (a sync, a pageable
// copy) does not happen there.
bool reachedThroughCache(const RegionContext& context);

}  // namespace graphsafe
