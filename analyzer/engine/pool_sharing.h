#pragma once

// Capture regions of one file that record into one memory pool, for GS205 and GS502. A pool is
// shared by `pool=g1.pool()` (with the region whose graph is g1) and by one pool expression
// passed to several captures (a `torch.cuda.graph_pool_handle()` bound to a name, `self.pool`).
// Only captures made in one function, outside loops, count: their capture order is the order of
// the source. A pool expression that is itself a call (`pool=torch.cuda.graph_pool_handle()`)
// makes a new pool every time and shares nothing.

#include <cstddef>
#include <string>
#include <vector>

#include "analyzer/program/capture_flow.h"

namespace graphsafe {

struct PoolGroup {
  std::string pool;                  // the pool as the source spells it ("g1.pool()", "mempool")
  std::vector<std::size_t> regions;  // in capture order
};

std::vector<PoolGroup> sharedPools(const CaptureFlow& flow);

// The region whose outputs a path reads: the first name of `text` ("y2" in "y2.item()",
// "y2[0]"), compared with the names the region binds and the program reads after it.
bool readsOutput(const CaptureRegion& region, std::string_view text);

}  // namespace graphsafe
