#pragma once

#include "analyzer/engine/analysis_settings.h"
#include "analyzer/model/capture_model.h"
#include "frontends/cuda/raw_model.h"

namespace graphsafe::cuda {

// Turns what the visitor collected into the capture model:
// - stream-capture regions: a begin call (cudaStreamBeginCapture[ToGraph], cuStreamBeginCapture,
//   CUDAGraph::capture_begin) up to the end call on the same stream (or graph object). The end
//   that closes the region is the first one after the begin whose block encloses the begin; an
//   end nested in a deeper block (an error branch that ends the capture and returns) closes only
//   the rest of its own block. Without any end, the region runs to the end of the function;
//   early returns do not shorten it (what follows them in source order is still captured on the
//   paths that do not return).
// - forks and joins inside a region: cudaEventRecord on the capture stream (or a forked one)
//   then cudaStreamWaitEvent(side, ev) forks `side`; the capture stream waiting on an event
//   recorded on a forked stream joins it;
// - which work goes to a stream outside the capture (kStreamUse), which host values change after
//   the capture while the graph is still launched, pinned host buffers the CPU writes, library
//   handles never given a stream;
// - capture entry points from the configuration, as whole-function regions.
FileModel buildFileModel(RawTranslationUnit unit, const SourceFilePtr& source,
                         const AnalysisSettings& settings);

}  // namespace graphsafe::cuda
