#pragma once

// Whether a host-synchronizing event (kHostSync) really waits for the device on a path: GS401
// refuses it under capture, GS601 counts it as a graph break under torch.compile. A memoized
// builder or a lazy initialization ran at the warm-up; an implicit read (int(t), print(t)) waits
// only on a value known to be a tensor; a tensor method (.item()) only on a receiver not known to
// live in host memory.

#include "analyzer/engine/check.h"

namespace graphsafe {

bool readsDeviceValue(const RegionContext& context, const Event& event);

}  // namespace graphsafe
