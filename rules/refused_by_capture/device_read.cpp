#include "rules/refused_by_capture/device_read.h"

#include "rules/frozen_choice/run_once_path.h"

namespace graphsafe {

bool readsDeviceValue(const RegionContext& context, const Event& event) {
  if (event.kind != EventKind::kHostSync) return false;
  // A memoized builder or a lazy initialization: the warm-up ran it, the cache answers now.
  if (reachedThroughCache(context) || (event.flags & kFlagRunsOnce) != 0) return false;
  Value subject = context.resolve(event.subject);
  // Implicit syncs (int(t), print(t), f"{t}") wait only on values known to be tensors;
  // tensor-only methods (.item(), .cpu()) only when the receiver is not known to be a host value.
  if ((event.flags & kFlagNeedsTensor) != 0 && !subject.isTensor()) return false;
  if ((event.flags & kFlagNotKnownHost) != 0 && subject.isKnownHost()) return false;
  // A tensor in host memory (an attribute set from a CPU factory, a helper's `.cpu()` result):
  // reading it waits for no device.
  return (event.flags & kFlagNotKnownHost) == 0 ||
         context.tensorMemory(event.operand) == TensorMemory::kUnknown;
}

}  // namespace graphsafe
