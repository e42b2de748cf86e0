#include "analyzer/engine/region_walker.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace graphsafe {

namespace {

// A function is walked once per region for each distinct shape of known parameter kinds: the
// same function reached again with the same kinds cannot produce a new finding.
std::string visitKey(const FunctionModel* function, const std::vector<Value>& params) {
  std::string key(reinterpret_cast<const char*>(&function), sizeof(function));
  for (const Value& value : params) key.push_back(static_cast<char>(value.kind));
  return key;
}

// Binds a call's arguments (already resolved in the caller's context) to the callee's
// parameters. A bound method call (`self.step(x)`, `obj.run(x)`) passes one argument fewer
// than the callee declares: the receiver fills the first parameter.
std::vector<Value> bindArguments(const RegionContext& caller, const Event& call,
                                 const FunctionModel& callee) {
  std::vector<Value> values(callee.params.size());
  for (std::size_t i = 0; i < callee.params.size(); ++i) values[i] = callee.params[i].declared;
  std::size_t offset =
      ((call.flags & kFlagBoundMethod) != 0 ||
       (callee.is_method && call.args.size() + 1 == callee.params.size())) &&
              !callee.params.empty()
          ? 1
          : 0;
  for (std::size_t i = 0; i < call.args.size() && i + offset < values.size(); ++i) {
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

  void run(FunctionRef start, std::vector<Value> params, bool whole_function) {
    visitFunction(start, params, whole_function ? -1 : region_index_);
  }

 private:
  void visitFunction(FunctionRef target, const std::vector<Value>& params,
                     std::int32_t only_region) {
    if (visits_ >= RegionWalker::kMaxFunctionVisits) return;
    if (!seen_.insert(visitKey(target.function, params)).second) return;
    ++visits_;
    on_stack_.push_back(target.function);

    RegionContext context;
    context.region_file = &region_file_;
    context.region = &region_;
    context.file = target.file;
    context.function = target.function;
    context.path = path_;
    context.param_values = params;

    for (const Event& event : target.function->events) {
      if (only_region >= 0 && event.region != only_region) continue;
      // Code that runs only when no capture is under way is not captured code.
      if ((event.flags & kFlagEagerOnly) != 0) continue;
      visit_(context, event);
      if (event.kind == EventKind::kCall) followCall(context, event);
    }
    on_stack_.pop_back();
  }

  void followCall(const RegionContext& caller, const Event& call) {
    FunctionRef callee = program_.resolveCall(*caller.file, call);
    if (!callee || path_.size() >= RegionWalker::kMaxCallDepth) return;
    for (const FunctionModel* active : on_stack_) {
      if (active == callee.function) return;  // recursion: its events are already being seen
    }
    std::vector<Value> params = bindArguments(caller, call, *callee.function);
    path_.push_back({caller.file, caller.function, &call});
    visitFunction(callee, params, -1);
    path_.pop_back();
  }

  const ProgramModel& program_;
  const FileModel& region_file_;
  const CaptureRegion& region_;
  std::int32_t region_index_;
  const RegionWalker::Visitor& visit_;
  std::vector<CallStep> path_;
  std::vector<const FunctionModel*> on_stack_;
  std::set<std::string> seen_;
  std::size_t visits_ = 0;
};

}  // namespace

void RegionWalker::walk(const FileModel& file, std::size_t region_index,
                        const Visitor& visit) const {
  const CaptureRegion& region = file.regions[region_index];
  FunctionRef start = program_.regionFunction(file, region);
  if (!start) return;
  std::vector<Value> params(start.function->params.size());
  for (std::size_t i = 0; i < params.size(); ++i) {
    params[i] = i < region.param_values.size() && region.param_values[i].kind != ValueKind::kUnknown
                    ? region.param_values[i]
                    : start.function->params[i].declared;
  }
  Walk walk(program_, file, region, static_cast<std::int32_t>(region_index), visit);
  walk.run(start, std::move(params), region.whole_function);
}

}  // namespace graphsafe
