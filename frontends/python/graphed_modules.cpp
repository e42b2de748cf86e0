// Modules and callables handed to make_graphed_callables, as the flow after the call sees them:
// which position of the graphed tuple a call runs (`graphed[1](x)`) and the backward calls on
// its outputs (`y.backward()`, an event with api "torch.Tensor.backward"), for GS206; hooks
// registered on a module or its submodules, for GS303; `optimizer.step()` on a torch.optim
// optimizer bound in this function, for GS403. A loop over `m.modules()` or
// `m.named_children()` binds submodules of `m`; the hook event says so in its `source`.
#include <algorithm>
#include <charconv>

#include "frontends/python/function_lowering.h"

namespace graphsafe::python {

namespace {

bool isSubmoduleIterator(std::string_view name) {
  return name == "modules" || name == "children" || name == "named_modules" ||
         name == "named_children";
}

bool isModuleHookRegistration(std::string_view name) {
  return name == "register_forward_hook" || name == "register_forward_pre_hook" ||
         name == "register_full_backward_hook" || name == "register_full_backward_pre_hook" ||
         name == "register_backward_hook";
}

}  // namespace

std::int32_t FunctionLowering::literalIndex(TSNode subscript) const {
  subscript = unparenthesize(file_.pool, subscript);
  if (!is(subscript, g_.subscript)) return -1;
  TSNode index = field(subscript, g_.f_subscript);
  if (!is(index, g_.integer)) return -1;
  std::string_view digits = textOf(index);
  std::int32_t value = -1;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc() || end != digits.data() + digits.size()) return -1;
  return value;
}

void FunctionLowering::noteSubmoduleLoop(TSNode target, TSNode iterable) {
  if (quiet()) return;
  target = unparenthesize(file_.pool, target);
  if (is(target, g_.identifier)) submodule_loops_.erase(textOf(target));
  iterable = unparenthesize(file_.pool, iterable);
  if (!is(iterable, g_.call)) return;
  TSNode method = unparenthesize(file_.pool, field(iterable, g_.f_function));
  if (!is(method, g_.attribute)) return;
  std::string_view name = textOf(field(method, g_.f_attribute));
  if (!isSubmoduleIterator(name)) return;
  std::string module = flowPath(field(method, g_.f_object));
  if (module.empty()) return;
  // `for sub in m.modules()`, `for name, sub in m.named_modules()`.
  TSNode variable = target;
  if (name.starts_with("named_")) {
    if (!is(target, g_.pattern_list) && !is(target, g_.tuple_pattern) &&
        !is(target, g_.list_pattern)) {
      return;
    }
    int count = 0;
    for (Children it(file_.pool, target); it.valid(); it.next()) {
      if (++count == 2) variable = unparenthesize(file_.pool, it.node());
    }
    if (count != 2) return;
  }
  if (is(variable, g_.identifier)) submodule_loops_[textOf(variable)] = std::move(module);
}

// Adam, AdamW and the other optimizers with a `capturable` option keep their step count as a
// host number unless built with capturable=True (or fused=True, which keeps it on the device).
bool FunctionLowering::countsStepsOnHost(std::string_view qualified, TSNode call) {
  static constexpr std::string_view kCounting[] = {"Adadelta", "Adam",  "AdamW", "Adamax",
                                                   "ASGD",     "NAdam", "RAdam", "Rprop"};
  std::string_view name = qualified.substr(qualified.rfind('.') + 1);
  if (std::find(std::begin(kCounting), std::end(kCounting), name) == std::end(kCounting)) {
    return false;
  }
  CallArguments arguments;
  readArguments(file_.pool, file_.text, field(call, g_.f_arguments), arguments);
  if (arguments.has_splat) return false;  // **kwargs may set it
  for (const auto& [keyword, node] : arguments.keywords) {
    if (keyword != "capturable" && keyword != "fused") continue;
    // Anything but a literal False may turn it on.
    if (textOf(unparenthesize(file_.pool, node)) != "False") return false;
  }
  return true;
}

void FunctionLowering::noteOptimizerBinding(TSNode target, TSNode value) {
  if (quiet()) return;
  std::string path = flowPath(target);
  if (path.empty()) return;
  std::erase(optimizers_, path);
  std::erase_if(host_step_optimizers_, [&](const auto& entry) { return entry.first == path; });
  value = unparenthesize(file_.pool, value);
  if (!is(value, g_.call)) return;
  std::string qualified = importedNameOf(unparenthesize(file_.pool, field(value, g_.f_function)));
  if (!qualified.starts_with("torch.optim.") || qualified.starts_with("torch.optim.lr_scheduler")) {
    return;
  }
  if (countsStepsOnHost(qualified, value)) host_step_optimizers_.emplace_back(path, qualified);
  optimizers_.push_back(std::move(path));
}

void FunctionLowering::noteGraphedUse(const Callee& callee, TSNode call) {
  if (quiet()) return;
  std::string receiver = flowPath(callee.receiver_node);
  if (callee.name == "backward") {
    // y.backward(), y.sum().backward(): the tensor it starts from ("" when not a path).
    TSNode start = unparenthesize(file_.pool, callee.receiver_node);
    for (int step = 0; step < 8 && is(start, g_.call); ++step) {
      start = unparenthesize(file_.pool, field(start, g_.f_function));
    }
    Event& event = emit(EventKind::kCall, call);
    event.api = "torch.Tensor.backward";
    event.text = file_.text.brief(call);
    event.target = flowPath(start);
    return;
  }
  if (receiver.empty()) return;
  if (callee.name == "step" &&
      std::find(optimizers_.begin(), optimizers_.end(), receiver) != optimizers_.end()) {
    // optimizer.step(): its first run creates the optimizer's state (GS403).
    Event& event = emit(EventKind::kCall, call);
    event.api = "torch.optim.Optimizer.step";
    event.text = file_.text.brief(call);
    event.target = receiver;
    for (const auto& [path, optimizer] : host_step_optimizers_) {
      if (path == receiver) emitStateChange(call, optimizer + ".step", file_.text.brief(call));
    }
    return;
  }
  if (!isModuleHookRegistration(callee.name)) return;
  std::string module = std::move(receiver);
  Event& event = emit(EventKind::kCall, call);
  event.api = "torch.nn.Module." + std::string(callee.name);
  event.text = file_.text.brief(call);
  event.subject = described(callee.receiver.value, callee.receiver_node);
  if (auto loop = submodule_loops_.find(module); loop != submodule_loops_.end()) {
    event.source = loop->second;
  } else if (is(unparenthesize(file_.pool, callee.receiver_node), g_.subscript)) {
    event.source = module;  // m[0]: an element of a Sequential or ModuleList
  }
  event.target = std::move(module);
}

}  // namespace graphsafe::python
