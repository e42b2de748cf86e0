#pragma once

// Code reached under capture through a call that runs once by design (a memoized function, or a
// call under a lazy-initialization, log-once or capture-only guard: kFlagRunsOnce) does once what
// it would do once anyway: a value it freezes or a side effect it has is not a capture hazard.
// The frozen-choice rules skip it.

#include "analyzer/engine/check.h"

namespace graphsafe {

bool reachedThroughRunOnce(const RegionContext& context);

}  // namespace graphsafe
