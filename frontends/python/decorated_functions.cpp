// What a function's decorators say about running it:
//   - triton.jit / triton.autotune / triton.heuristics: a Triton kernel, launched as
//     `kernel[grid](x, y, n, BLOCK=128)`; the launch is device work whose host scalars are copied
//     into its arguments, like any kernel's (GS103);
//   - functools.cache / lru_cache: memoized, so its body runs once per arguments whether or not a
//     capture is in progress: what it does only once is by design.
#include <algorithm>

#include "frontends/python/function_lowering.h"

namespace graphsafe::python {

bool FunctionLowering::hasDecorator(FunctionId function,
                                    std::initializer_list<std::string_view> names) const {
  TSNode decorated = file_.index.functions[function].decorated;
  if (isNull(decorated)) return false;
  for (Children it(file_.pool, decorated); it.valid(); it.next()) {
    if (!is(it.node(), g_.decorator)) continue;
    TSNode expression = unparenthesize(file_.pool, firstNamedChild(file_.pool, it.node()));
    if (is(expression, g_.call)) expression = field(expression, g_.f_function);
    std::string name = importedNameOf(expression);
    if (std::find(names.begin(), names.end(), name) != names.end()) return true;
  }
  return false;
}

bool FunctionLowering::isKernelLaunch(TSNode callee) const {
  callee = unparenthesize(file_.pool, callee);
  if (!is(callee, g_.subscript)) return false;
  TSNode kernel = unparenthesize(file_.pool, field(callee, g_.f_value));
  if (!is(kernel, g_.identifier)) return false;
  ExprInfo info;
  if (!lookupName(textOf(kernel), info) || info.function == kNoFunction) return false;
  return hasDecorator(info.function, {"triton.jit", "triton.autotune", "triton.heuristics"});
}

bool FunctionLowering::isMemoized() const {
  return id_ != 0 && hasDecorator(id_, {"functools.cache", "functools.lru_cache"});
}

ExprInfo FunctionLowering::launchKernel(TSNode call, const Arguments& arguments) {
  if (!quiet()) {
    Event& event = emit(EventKind::kTensorOp, call);
    TSNode callee = unparenthesize(file_.pool, field(call, g_.f_function));
    event.api = "triton.launch." + std::string(textOf(field(callee, g_.f_value)));
    event.text = file_.text.brief(call);
    fillArguments(event, arguments);
  }
  return {};
}

}  // namespace graphsafe::python
