#include "rules/frozen_choice/varying_value.h"

#include "analyzer/program/program_model.h"

namespace graphsafe {

bool isFrozenHostValue(const Value& value) {
  return value.isHostVarying() && value.origin != ValueOrigin::kTensorExpr &&
         value.origin != ValueOrigin::kCaptureQuery;
}

bool onCapturingObject(const RegionContext& context) {
  if (context.path.empty()) return true;
  if (context.file != context.region_file || context.region->function == kNoFunction) {
    return false;
  }
  const auto home = static_cast<std::size_t>(context.region->function);
  if (home >= context.region_file->functions.size()) return false;
  const FunctionModel& capturing = context.region_file->functions[home];
  return capturing.class_index >= 0 && context.function->class_index == capturing.class_index;
}

bool variesBetweenReplays(const RegionContext& context, const Value& value) {
  if (!isFrozenHostValue(value)) return false;
  // The program model found the write: on whatever object it is.
  if (value.variation != 0) return true;
  return value.origin != ValueOrigin::kAttribute || onCapturingObject(context);
}

std::vector<RelatedLocation> whereItVaries(const RegionContext& context, const Value& value) {
  if (value.variation == 0 || context.program == nullptr) return {};
  Variation variation = context.program->variationAt(value.variation);
  if (!variation.file) return {};
  return {{variation.file, variation.at, variation.note}};
}

std::string whyItVaries(const RegionContext& context, const Value& value) {
  if (value.variation != 0 && context.program != nullptr) {
    std::string reason = context.program->variationAt(value.variation).reason;
    if (!reason.empty()) return reason;
  }
  switch (value.origin) {
    case ValueOrigin::kParameter:
      return "it is a parameter, and a caller on the path passes a value that changes";
    case ValueOrigin::kLoopVariable:
      return "it is the variable of a loop around a capture made once, so later iterations "
             "replay the graph with a different value";
    case ValueOrigin::kAttribute:
      return "it is an attribute that methods other than __init__ assign";
    case ValueOrigin::kGlobal:
      return "it is a module global that is assigned more than once";
    case ValueOrigin::kHostCall:
      return "it comes from a call that returns a new value each time (a clock, a random "
             "generator, a scheduler or optimizer setting)";
    case ValueOrigin::kOptimizerSetting:
      return "it is read from an optimizer's param_groups, which a learning-rate scheduler "
             "(or any code that sets the rate) rewrites between steps";
    case ValueOrigin::kLazyParameter:
      return "it comes from a host parameter of a function that captures the graph on its "
             "first call only and replays it on every later call, whatever that call passes";
    case ValueOrigin::kLazyCaller:
      return "it is a parameter, and a caller captures through this function once (on one "
             "iteration of a loop, `if (exec == nullptr)`, or before it assigns the value again) "
             "and then launches the graph while the value it passed changes";
    case ValueOrigin::kReassigned:
      return "it is assigned again after the capture, while the graph is replayed";
    default:
      break;
  }
  return "it changes between replays";
}

}  // namespace graphsafe
