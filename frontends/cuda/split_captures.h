#pragma once

#include <vector>

#include "analyzer/model/capture_model.h"

namespace graphsafe::cuda {

// How a function takes part in a capture split across functions (a runner's
// `beginCapture()` / `endCapture()` methods, a helper that ends the capture its caller began).
struct CaptureSplit {
  bool opens = false;   // begins a capture it does not end
  bool closes = false;  // ends a capture it did not begin
};

// A call of a function that leaves a capture open begins a capture in the caller, up to the next
// call of a function that ends one, or to the end of the caller: the caller's code in between runs
// under capture, and is given a stream-capture region of its own whose site is the opening call.
// Calls within the translation unit; `splits` is indexed like `model.functions`.
void joinCapturesSplitAcrossCalls(FileModel& model, const std::vector<CaptureSplit>& splits);

}  // namespace graphsafe::cuda
