#include "rules/frozen_choice/specialized_argument.h"

#include <algorithm>
#include <string>

#include "analyzer/program/call_sites.h"
#include "analyzer/program/program_model.h"

namespace graphsafe {

namespace {

// The parameter of `function` that the condition `ref` tests directly (`mask is None`, `flag`,
// `not flag`, `mode == "fast"`), or -1: reached through operators and locals only, not through
// an attribute, an element or a call (`x.shape[0] > 4` tests a tensor's shape, not the argument).
std::int32_t testedParameter(const FileModel& file, const FunctionModel& function, RefId ref,
                             int depth) {
  ref = throughLocal(file.references, ref);
  if (ref >= file.references.size() || depth > 8) return -1;
  const Reference& reference = file.references[ref];
  using Kind = Reference::Kind;
  if (reference.kind == Kind::kParameter) {
    const bool own = reference.function < file.functions.size() &&
                     &file.functions[reference.function] == &function;
    return own && reference.index >= 0 ? reference.index : -1;
  }
  if (reference.kind != Kind::kOperation && reference.kind != Kind::kNarrowed) return -1;
  std::int32_t found = -1;
  for (RefId operand : reference.operands) {
    const std::int32_t param = testedParameter(file, function, operand, depth + 1);
    if (param < 0) continue;
    if (found >= 0 && found != param) return -1;  // `a is None and b is None`: two arguments
    found = param;
  }
  return found;
}

// The literal key of a default or an argument ("None", "False", "i:0"), "" when it is none.
std::string literalOf(const FileModel& file, RefId ref) {
  ref = throughLocal(file.references, ref);
  if (ref >= file.references.size()) return {};
  const Reference& reference = file.references[ref];
  if (reference.kind == Reference::Kind::kNone) return "None";
  return reference.kind == Reference::Kind::kHost ? reference.name : std::string();
}

// What the call passes for parameter `param` of the target (bound `offset` parameters before its
// own arguments): the argument's reference, kNoRef when it passes nothing for it.
RefId argumentFor(const FileModel& file, const Event& call, const FunctionModel& callee,
                  std::size_t offset, std::uint32_t param, bool& known) {
  known = false;
  if (call.call >= file.references.size()) return kNoRef;
  const Reference& reference = file.references[call.call];
  if (reference.splat || !call.arguments_complete) return kNoRef;
  known = true;
  const auto positional = static_cast<std::size_t>(std::max(reference.index, 0));
  if (param >= offset && param - offset < positional &&
      param - offset + 1 < reference.operands.size()) {
    return reference.operands[param - offset + 1];
  }
  const std::string& name = callee.params[param].name;
  for (std::size_t k = 0; k < reference.names.size(); ++k) {
    if (reference.names[k] == name && 1 + positional + k < reference.operands.size()) {
      return reference.operands[1 + positional + k];
    }
  }
  return kNoRef;
}

// The parameter of the region's own function that the branch's condition tests, following the
// call path back from the branch's function, or -1.
std::int32_t homeParameter(const RegionContext& context, const Event& branch) {
  std::int32_t param = testedParameter(*context.file, *context.function, branch.subject.ref, 0);
  const FunctionModel* callee = context.function;
  for (std::size_t i = context.path.size(); i-- > 0 && param >= 0;) {
    const CallStep& step = context.path[i];
    const std::uint32_t callee_id = context.program->functionId(
        i + 1 < context.path.size() ? *context.path[i + 1].file : *context.file, *callee);
    std::size_t offset = 0;
    bool found = false;
    for (const program::CallTarget& target : context.program->callTargets(
             context.program->plainFrame(*step.file, *step.caller), *step.file, *step.call)) {
      if (target.function != callee_id) continue;
      offset = target.offset;
      found = true;
      break;
    }
    if (!found) return -1;
    bool known = false;
    const RefId argument = argumentFor(*step.file, *step.call, *callee, offset,
                                       static_cast<std::uint32_t>(param), known);
    if (argument == kNoRef) return -1;
    param = testedParameter(*step.file, *step.caller, argument, 0);
    callee = step.caller;
  }
  return param;
}

// The receiver a method call is made on, as the source spells it (`runner` of
// `runner.forward(x)`), "" for a call with none.
std::string receiverOf(const FileModel& file, const Event& call, std::string_view method) {
  std::string_view all = file.source->text();
  if (call.range.end > all.size() || call.range.begin >= call.range.end) return {};
  std::string_view text = all.substr(call.range.begin, call.range.end - call.range.begin);
  const std::size_t open = text.find('(');
  std::string_view callee = text.substr(0, open);
  const std::string suffix = "." + std::string(method);
  if (!callee.ends_with(suffix)) return {};
  return std::string(callee.substr(0, callee.size() - suffix.size()));
}

}  // namespace

bool sameReceiver(const ArgumentCall& a, const ArgumentCall& b) {
  if (a.receiver != b.receiver) return false;
  if (a.receiver.empty()) return true;
  if (a.receiver == "self" || a.receiver.starts_with("self.")) {
    return a.file == b.file && a.caller->class_index >= 0 &&
           a.caller->class_index == b.caller->class_index;
  }
  return a.file == b.file && a.caller == b.caller;
}

std::optional<SpecializedArgument> specializedArgument(const RegionContext& context,
                                                       const Event& branch) {
  const CaptureRegion& region = *context.region;
  if (context.program == nullptr || !region.lazy || region.whole_function || context.traced() ||
      branch.kind != EventKind::kBranch) {
    return std::nullopt;
  }
  const ProgramModel& program = *context.program;
  const FunctionRef home = program.regionFunction(*context.region_file, region);
  if (!home || home.file->language != Language::kPython) return std::nullopt;
  const std::int32_t tested = homeParameter(context, branch);
  const std::size_t first = home.function->has_self || home.function->is_classmethod ? 1 : 0;
  if (tested < static_cast<std::int32_t>(first)) return std::nullopt;
  const auto param = static_cast<std::uint32_t>(tested);
  const Parameter& parameter = home.function->params[param];
  const std::string fallback = literalOf(*home.file, parameter.default_value);
  if (parameter.variadic || fallback.empty() ||
      std::find(region.cache_keys.begin(), region.cache_keys.end(), parameter.name) !=
          region.cache_keys.end()) {
    return std::nullopt;
  }
  // The capture runs only under a test of the argument (an early return to eager code when it
  // is given, a graph per side of `if mask is None:`): the capture sees one value by design.
  const auto index = static_cast<std::int32_t>(&region - context.region_file->regions.data());
  for (const Event& event : home.function->events) {
    if (event.region != index) continue;
    for (std::int32_t test = event.test;
         test >= 0 && static_cast<std::size_t>(test) < home.function->tests.size();
         test = home.function->tests[static_cast<std::size_t>(test)].parent) {
      const StaticTest& condition = home.function->tests[static_cast<std::size_t>(test)];
      if (condition.op != StaticTest::Op::kNever && condition.op != StaticTest::Op::kTracing &&
          condition.op != StaticTest::Op::kNotTracing && condition.param == param) {
        return std::nullopt;
      }
    }
    break;
  }
  SpecializedArgument found;
  found.file = home.file;
  found.function = home.function;
  found.param = param;
  const std::uint32_t home_id = program.functionId(*home.file, *home.function);
  for (const program::CallSite& site : program.callSitesNamed(home.function->name)) {
    const FileModel& file = program.files()[site.file];
    const FunctionModel& caller = file.functions[site.function];
    if (&caller == home.function) continue;
    const program::FrameId frame = program.plainFrame(file, caller);
    for (const program::CallTarget& target : program.callTargets(frame, file, *site.event)) {
      if (target.function != home_id) continue;
      bool known = false;
      const RefId argument =
          argumentFor(file, *site.event, *home.function, target.offset, param, known);
      if (!known) break;
      const std::string literal = argument == kNoRef ? fallback : literalOf(file, argument);
      ArgumentCall entry{&file, &caller, site.event,
                         receiverOf(file, *site.event, home.function->name)};
      if (literal == fallback) {
        found.defaulted.push_back(std::move(entry));
      } else if (!literal.empty() ||
                 (fallback == "None" && program.valueKind(frame, argument) == ValueKind::kTensor)) {
        found.passing.push_back(std::move(entry));
      }
      break;
    }
  }
  // Only the calls that may reach an object some call also reaches with the default.
  std::erase_if(found.passing, [&](const ArgumentCall& passing) {
    return std::none_of(
        found.defaulted.begin(), found.defaulted.end(),
        [&](const ArgumentCall& defaulted) { return sameReceiver(passing, defaulted); });
  });
  if (found.passing.empty()) return std::nullopt;
  return found;
}

}  // namespace graphsafe
