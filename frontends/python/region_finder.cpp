#include "frontends/python/region_finder.h"

namespace graphsafe::python {

namespace {

std::string textOf(const SourceText& text, TSNode node) {
  return isNull(node) ? std::string{} : text.brief(node);
}

bool isNoneLiteral(TSNode node) {
  return is(node, Grammar::get().none);
}

}  // namespace

void describeGraphContext(const SourceText& text, const CallArguments& arguments,
                          CaptureRegion& region) {
  region.graph = textOf(text, arguments.find("cuda_graph", 0));
  TSNode pool = arguments.find("pool", 1);
  if (!isNoneLiteral(pool)) region.pool = textOf(text, pool);
  TSNode stream = arguments.find("stream", 2);
  if (!isNoneLiteral(stream)) region.stream = textOf(text, stream);
}

void describeCaptureBegin(const SourceText& text, const CallArguments& arguments,
                          CaptureRegion& region) {
  TSNode pool = arguments.find("pool", 0);
  if (!isNoneLiteral(pool)) region.pool = textOf(text, pool);
}

bool compileUsesCudaGraphs(CursorPool& pool, const SourceText& text,
                           const CallArguments& arguments) {
  const Grammar& g = Grammar::get();
  std::string_view value;
  TSNode mode = arguments.find("mode");
  if (!isNull(mode) && plainStringValue(pool, text, unparenthesize(pool, mode), value) &&
      (value == "reduce-overhead" || value == "max-autotune")) {
    return true;
  }
  TSNode backend = arguments.find("backend");
  if (!isNull(backend) && plainStringValue(pool, text, unparenthesize(pool, backend), value) &&
      value == "cudagraphs") {
    return true;
  }
  TSNode options = unparenthesize(pool, arguments.find("options"));
  if (is(options, g.dictionary)) {
    for (Children it(pool, options); it.valid(); it.next()) {
      if (!is(it.node(), g.pair)) continue;
      TSNode key = field(it.node(), g.f_key);
      TSNode flag = unparenthesize(pool, field(it.node(), g.f_value));
      if (plainStringValue(pool, text, key, value) && value == "triton.cudagraphs" &&
          is(flag, g.true_literal)) {
        return true;
      }
    }
  }
  return false;
}

bool compileIsFullGraph(CursorPool& pool, const CallArguments& arguments) {
  TSNode flag = unparenthesize(pool, arguments.find("fullgraph"));
  return is(flag, Grammar::get().true_literal);
}

void graphedCallableNodes(CursorPool& pool, const CallArguments& arguments,
                          std::vector<TSNode>& out) {
  const Grammar& g = Grammar::get();
  TSNode callables = unparenthesize(pool, arguments.find("callables", 0));
  if (isNull(callables)) return;
  if (is(callables, g.tuple) || is(callables, g.list)) {
    for (Children it(pool, callables); it.valid(); it.next()) {
      out.push_back(unparenthesize(pool, it.node()));
    }
    return;
  }
  out.push_back(callables);
}

}  // namespace graphsafe::python
