#include "analyzer/engine/region_walker.h"

#include <algorithm>
#include <bit>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "analyzer/model/literal_key.h"

namespace graphsafe {

namespace {

// A function is walked once per region for each distinct shape of known parameter kinds (and
// literals of the parameters its tests read): the same function reached again with the same
// shape cannot produce a new finding.
std::string visitKey(const FunctionModel* function, std::uint32_t frame,
                     const std::vector<Value>& params, const std::vector<std::string>& literals) {
  std::string key(reinterpret_cast<const char*>(&function), sizeof(function));
  key.append(reinterpret_cast<const char*>(&frame), sizeof(frame));
  for (const Value& value : params) key.push_back(static_cast<char>(value.kind));
  for (std::size_t i = 0; i < literals.size(); ++i) {
    if ((function->literal_params & paramBit(i)) == 0) continue;
    key += literals[i];
    key.push_back('\0');
  }
  return key;
}

// What a test may know of an argument that is no literal: a tensor, so not None.
constexpr std::string_view kTensorArgument = "<tensor>";

// The literal a call passes for each of the callee's parameters (an omitted one: its default),
// "" where it is not a literal or not known. A caller's own parameter passes on the literal it
// holds in the caller; a tensor argument passes kTensorArgument.
std::vector<std::string> bindLiterals(const RegionContext& caller,
                                      const std::vector<std::string>& caller_literals,
                                      const Event& call, const FunctionModel& callee,
                                      std::size_t offset) {
  // Nothing of the callee reads a literal: no test can need one.
  if (callee.literal_params == 0) return {};
  std::vector<std::string> literals(callee.params.size());
  if (!call.arguments_complete) return literals;
  for (std::size_t i = 0; i < callee.params.size(); ++i) {
    literals[i] = callee.params[i].default_literal;
  }
  auto literalOf = [&](const Value& argument) -> std::string {
    if (std::optional<std::string> key = literalKey(argument.text)) return *key;
    if (argument.isTensor()) return std::string(kTensorArgument);
    const std::uint64_t deps = argument.param_deps;
    if (deps == 0 || (deps & (deps - 1)) != 0) {
      return caller.resolve(argument).isTensor() ? std::string(kTensorArgument) : std::string();
    }
    const auto index = static_cast<std::size_t>(std::countr_zero(deps));
    const FunctionModel& function = *caller.function;
    if (index < caller_literals.size() && index < function.params.size() &&
        argument.text == function.params[index].name && !caller_literals[index].empty()) {
      return caller_literals[index];
    }
    return caller.resolve(argument).isTensor() ? std::string(kTensorArgument) : std::string();
  };
  for (std::size_t i = 0; i < call.args.size(); ++i) {
    const std::size_t index = i + offset;
    // Positional arguments past *args are absorbed by it.
    if (index >= literals.size() || callee.params[index].variadic) break;
    literals[index] = literalOf(call.args[i]);
  }
  for (const KeywordArg& keyword : call.keywords) {
    for (std::size_t i = 0; i < callee.params.size(); ++i) {
      if (callee.params[i].name == keyword.name) literals[i] = literalOf(keyword.value);
    }
  }
  return literals;
}

// Is `literal` one of the NUL-separated `keys`? Undecided (nullopt) when an integer meets a
// boolean.
std::optional<bool> oneOf(const std::string& literal, std::string_view keys) {
  bool found = false;
  while (true) {
    const std::size_t end = keys.find('\0');
    const std::string key(keys.substr(0, end));
    if (!keysComparable(literal, key)) return std::nullopt;
    found = found || key == literal;
    if (end == std::string_view::npos) break;
    keys.remove_prefix(end + 1);
  }
  return found;
}

// Can the event run, given the literals its function's parameters hold? Unknown tests hold; a
// tensor argument decides only the tests against None.
bool mayRun(const FunctionModel& function, const Event& event,
            const std::vector<std::string>& literals, bool traced) {
  for (std::int32_t index = event.test; index >= 0;) {
    if (static_cast<std::size_t>(index) >= function.tests.size()) break;
    const StaticTest& test = function.tests[static_cast<std::size_t>(index)];
    index = test.parent;
    if (test.op == StaticTest::Op::kNever) return false;
    if (test.op == StaticTest::Op::kTracing || test.op == StaticTest::Op::kNotTracing) {
      if ((test.op == StaticTest::Op::kTracing) != traced) return false;
      continue;
    }
    if (test.param >= literals.size()) continue;
    const std::string& literal = literals[test.param];
    if (literal.empty()) continue;
    if (literal == kTensorArgument) {
      if (test.op == StaticTest::Op::kIsNone) return false;
      continue;
    }
    switch (test.op) {
      case StaticTest::Op::kIsNone:
        if (literal != "None") return false;
        break;
      case StaticTest::Op::kIsNotNone:
        if (literal == "None") return false;
        break;
      case StaticTest::Op::kEquals:
        if (literal != test.literal && keysComparable(literal, test.literal)) return false;
        break;
      case StaticTest::Op::kNotEquals:
        if (literal == test.literal) return false;
        break;
      case StaticTest::Op::kTruthy:
        if (!literalTruthy(literal)) return false;
        break;
      case StaticTest::Op::kFalsy:
        if (literalTruthy(literal)) return false;
        break;
      case StaticTest::Op::kIn:
      case StaticTest::Op::kNotIn:
        if (std::optional<bool> found = oneOf(literal, test.literal);
            found && *found != (test.op == StaticTest::Op::kIn)) {
          return false;
        }
        break;
      case StaticTest::Op::kNever:
      case StaticTest::Op::kTracing:
      case StaticTest::Op::kNotTracing:
        return false;
    }
  }
  return true;
}

// Binds a call's arguments (already resolved in the caller's context) to the callee's
// parameters; the first `offset` parameters are the receiver's (or a partial's).
std::vector<Value> bindArguments(const RegionContext& caller, const Event& call,
                                 const FunctionModel& callee, std::size_t offset) {
  std::vector<Value> values(callee.params.size());
  for (std::size_t i = 0; i < callee.params.size(); ++i) values[i] = callee.params[i].declared;
  for (std::size_t i = 0; i < call.args.size() && i + offset < values.size(); ++i) {
    if (callee.params[i + offset].variadic) break;  // absorbed by *args
    Value argument = caller.resolve(call.args[i]);
    if (argument.kind != ValueKind::kUnknown) values[i + offset] = std::move(argument);
  }
  for (const KeywordArg& keyword : call.keywords) {
    for (std::size_t i = 0; i < callee.params.size(); ++i) {
      if (callee.params[i].name != keyword.name) continue;
      Value argument = caller.resolve(keyword.value);
      if (argument.kind != ValueKind::kUnknown) values[i] = std::move(argument);
    }
  }
  return values;
}

class Walk {
 public:
  Walk(const ProgramModel& program, const FileModel& region_file, const CaptureRegion& region,
       std::int32_t region_index, const RegionWalker::Visitor& visit)
      : program_(program),
        region_file_(region_file),
        region_(region),
        region_index_(region_index),
        visit_(visit) {
    // Contexts hold a span over path_: it must never reallocate while a walk is under way.
    path_.reserve(RegionWalker::kMaxCallDepth + 1);
  }

  // `events`: the stretch of the start function's events that holds the region's.
  void run(FunctionRef start, std::vector<Value> params, bool whole_function,
           std::pair<std::size_t, std::size_t> events) {
    // The region's own function is called from code not walked here: no literal is known.
    std::vector<std::string> literals(start.function->params.size());
    if (whole_function) events = {0, start.function->events.size()};
    visitFunction(start, program_.plainFrame(*start.file, *start.function), params, literals,
                  whole_function ? -1 : region_index_, events);
  }

  // The bounds the walk ran into (RegionWalker::Cut).
  RegionWalker::Cut cut() && {
    RegionWalker::Cut cut;
    for (const FunctionModel* function : past_budget_) {
      cut.visit_budget += walked_.count(function) == 0 ? 1 : 0;
    }
    cut.too_deep = std::move(too_deep_);
    if (!cut.too_deep.empty()) {
      cut.walked = std::move(walked_);
      cut.walked.insert(past_budget_.begin(), past_budget_.end());  // counted already
    }
    return cut;
  }

 private:
  void visitFunction(FunctionRef target, std::uint32_t frame, const std::vector<Value>& params,
                     const std::vector<std::string>& literals, std::int32_t only_region,
                     std::pair<std::size_t, std::size_t> events) {
    std::string key = visitKey(target.function, frame, params, literals);
    if (seen_.count(key) != 0) return;
    if (visits_ >= RegionWalker::kMaxFunctionVisits) {
      past_budget_.insert(target.function);
      return;
    }
    seen_.insert(std::move(key));
    walked_.insert(target.function);
    ++visits_;
    on_stack_.emplace_back(target.function, frame);

    RegionContext context;
    context.region_file = &region_file_;
    context.region = &region_;
    context.file = target.file;
    context.function = target.function;
    context.path = path_;
    context.param_values = params;
    context.frame = frame;
    context.program = &program_;

    for (std::size_t e = events.first; e < events.second; ++e) {
      const Event& event = target.function->events[e];
      if (only_region >= 0 && event.region != only_region) continue;
      // Code that runs only when no capture is under way is not captured code.
      if ((event.flags & kFlagEagerOnly) != 0) continue;
      // An op on a receiver only the program model can type is an op only where it does.
      if ((event.flags & kFlagUntypedReceiver) != 0 &&
          context.tensorMemory(event.operand) == TensorMemory::kUnknown) {
        continue;
      }
      // Nor is code behind a test that the arguments on this path decide against.
      if (event.test >= 0 && !mayRun(*target.function, event, literals, region_.dynamo_traced)) {
        continue;
      }
      visit_(context, event);
      if (event.kind == EventKind::kCall) followCall(context, literals, event);
    }
    on_stack_.pop_back();
  }

  void followCall(const RegionContext& caller, const std::vector<std::string>& caller_literals,
                  const Event& call) {
    if (path_.size() >= RegionWalker::kMaxCallDepth) {
      too_deep_.push_back({caller.frame, caller.file, &call});
      return;
    }
    for (const program::CallTarget& target :
         program_.callTargets(caller.frame, *caller.file, call)) {
      FunctionRef callee = program_.function(target.function);
      if (!callee) continue;
      bool recursive = false;
      // The same function in the same frame: recursion, its events are already being seen. A
      // decorator's wrapper reached again for another decorated function is not.
      for (const auto& [active, frame] : on_stack_) {
        recursive = recursive || (active == callee.function && frame == target.frame);
      }
      if (recursive) continue;
      std::vector<Value> params = bindArguments(caller, call, *callee.function, target.offset);
      std::vector<std::string> literals =
          bindLiterals(caller, caller_literals, call, *callee.function, target.offset);
      CallStep step{caller.file, caller.function, &call};
      if (target.supplier.kind != program::Supplier::Kind::kNone) {
        FunctionRef site = program_.function(
            program_.index().functionId(target.supplier.site.file, target.supplier.site.function));
        step.supplier_file = site.file;
        step.supplier = target.supplier.site.event;
        if (target.supplier.write != nullptr) {
          step.write_file = &program_.files()[target.supplier.write_file];
          step.write = target.supplier.write;
        }
      }
      path_.push_back(step);
      visitFunction(callee, target.frame, params, literals, -1,
                    {0, callee.function->events.size()});
      path_.pop_back();
    }
  }

  const ProgramModel& program_;
  const FileModel& region_file_;
  const CaptureRegion& region_;
  std::int32_t region_index_;
  const RegionWalker::Visitor& visit_;
  std::vector<CallStep> path_;
  std::vector<std::pair<const FunctionModel*, std::uint32_t>> on_stack_;
  std::set<std::string> seen_;
  std::size_t visits_ = 0;
  std::unordered_set<const FunctionModel*> walked_;       // in any context
  std::unordered_set<const FunctionModel*> past_budget_;  // reached once the visits were spent
  std::vector<RegionWalker::Cut::DeepCall> too_deep_;     // calls past the depth bound
};

}  // namespace

namespace {

// Is the parameter a host scalar by its annotation (`float`, `int`, `bool`, `str`) or its
// default (a number, a string, a boolean)? A parameter of unknown type is not one.
bool isHostScalarParameter(const FileModel& file, const Parameter& parameter) {
  auto reference = [&](RefId id) -> const Reference* {
    return id < file.references.size() ? &file.references[id] : nullptr;
  };
  if (const Reference* annotation = reference(parameter.annotation)) {
    // `x: float` is an instance of what the name `float` names.
    const Reference* named =
        annotation->kind == Reference::Kind::kInstanceOf && !annotation->operands.empty()
            ? reference(annotation->operands[0])
            : nullptr;
    if (named == nullptr || named->kind != Reference::Kind::kGlobal) return false;
    const std::string& name = named->name;
    return name == "builtins.float" || name == "builtins.int" || name == "builtins.bool" ||
           name == "builtins.str";
  }
  const Reference* default_value = reference(parameter.default_value);
  return default_value != nullptr && default_value->kind == Reference::Kind::kHost;
}

}  // namespace

RegionWalker::Cut RegionWalker::walk(const FileModel& file, std::size_t region_index,
                                     const Visitor& visit) const {
  const CaptureRegion& region = file.regions[region_index];
  FunctionRef start = program_.regionFunction(file, region);
  if (!start) return {};
  std::vector<Value> params(start.function->params.size());
  for (std::size_t i = 0; i < params.size(); ++i) {
    params[i] = i < region.param_values.size() && region.param_values[i].kind != ValueKind::kUnknown
                    ? region.param_values[i]
                    : start.function->params[i].declared;
  }
  if (region.lazy && !region.whole_function && start.file->language == Language::kPython) {
    // Captured on the first call only: every later call replays the graph with the first
    // call's host arguments, unless the graphs are cached by that parameter.
    const FunctionModel& home = *start.function;
    for (std::size_t i = home.has_self ? 1 : 0; i < params.size(); ++i) {
      const Parameter& parameter = home.params[i];
      if (parameter.variadic || params[i].kind != ValueKind::kUnknown) continue;
      if (std::find(region.cache_keys.begin(), region.cache_keys.end(), parameter.name) !=
          region.cache_keys.end()) {
        continue;
      }
      if (!isHostScalarParameter(*start.file, parameter)) continue;
      params[i].kind = ValueKind::kHostVarying;
      params[i].origin = ValueOrigin::kLazyParameter;
      params[i].text = parameter.name;
    }
  }
  Walk walk(program_, file, region, static_cast<std::int32_t>(region_index), visit);
  const auto index = static_cast<std::int32_t>(region_index);
  walk.run(start, std::move(params), region.whole_function,
           region.whole_function ? std::pair<std::size_t, std::size_t>{}
                                 : regionEvents(*start.function, index));
  return std::move(walk).cut();
}

std::size_t RegionWalker::functionsCutDeep(const Cut& cut) const {
  std::unordered_set<const FunctionModel*> missed;
  for (const Cut::DeepCall& deep : cut.too_deep) {
    for (const program::CallTarget& target :
         program_.callTargets(deep.frame, *deep.file, *deep.call)) {
      FunctionRef callee = program_.function(target.function);
      if (callee && cut.walked.count(callee.function) == 0) missed.insert(callee.function);
    }
  }
  return missed.size();
}

std::pair<std::size_t, std::size_t> RegionWalker::regionEvents(const FunctionModel& function,
                                                               std::int32_t region) const {
  auto [it, added] = spans_.try_emplace(&function);
  auto& spans = it->second;
  if (added) {
    for (std::size_t e = 0; e < function.events.size(); ++e) {
      const std::int32_t owner = function.events[e].region;
      if (owner < 0) continue;
      const auto slot = static_cast<std::size_t>(owner);
      if (spans.size() <= slot) spans.resize(slot + 1, {0, 0});
      if (spans[slot].second == 0) spans[slot].first = e;
      spans[slot].second = e + 1;
    }
  }
  const auto slot = static_cast<std::size_t>(region);
  return slot < spans.size() ? spans[slot] : std::pair<std::size_t, std::size_t>{0, 0};
}

}  // namespace graphsafe
