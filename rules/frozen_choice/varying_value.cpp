#include "rules/frozen_choice/varying_value.h"

namespace graphsafe {

bool isFrozenHostValue(const Value& value) {
  return value.isHostVarying() && value.origin != ValueOrigin::kTensorExpr &&
         value.origin != ValueOrigin::kCaptureQuery;
}

std::string whyItVaries(const Value& value) {
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
    case ValueOrigin::kReassigned:
      return "it is assigned again after the capture, while the graph is replayed";
    default:
      break;
  }
  return "it changes between replays";
}

}  // namespace graphsafe
