#pragma once

// Recognizes what starts a capture, from the syntax of a call the lowering already resolved:
// the arguments of torch.cuda.graph, the modes of torch.compile that record CUDA graphs and the
// callables handed to make_graphed_callables.

#include <string_view>
#include <vector>

#include "analyzer/model/capture_model.h"
#include "frontends/python/call_arguments.h"
#include "frontends/python/syntax.h"

namespace graphsafe::python {

// torch.cuda.graph(cuda_graph, pool=None, stream=None, ...): fills graph, pool and stream.
void describeGraphContext(const SourceText& text, const CallArguments& arguments,
                          CaptureRegion& region);

// g.capture_begin(pool=None, ...): fills pool.
void describeCaptureBegin(const SourceText& text, const CallArguments& arguments,
                          CaptureRegion& region);

// torch.compile(..., mode="reduce-overhead" | "max-autotune", backend="cudagraphs",
// options={"triton.cudagraphs": True}): does this configuration record CUDA graphs?
// "default", "max-autotune-no-cudagraphs" and a mode that is not a literal do not count.
bool compileUsesCudaGraphs(CursorPool& pool, const SourceText& text,
                           const CallArguments& arguments);

// torch.compile(..., fullgraph=True): a graph break is an error, not a second graph.
bool compileIsFullGraph(CursorPool& pool, const CallArguments& arguments);

// The callables argument of make_graphed_callables, flattened one tuple/list level deep.
void graphedCallableNodes(CursorPool& pool, const CallArguments& arguments,
                          std::vector<TSNode>& out);

}  // namespace graphsafe::python
