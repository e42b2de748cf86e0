#include "frontends/python/value_classifier.h"

namespace graphsafe::python {

Value joinValues(const Value& a, const Value& b) {
  if (a.kind == b.kind) {
    Value joined = a;
    if (a.origin != b.origin) joined.origin = ValueOrigin::kNone;
    joined.param_deps = a.param_deps | b.param_deps;
    if (a.kind == ValueKind::kUnknown && joined.param_deps != 0) {
      joined.origin = ValueOrigin::kParameter;
    }
    return joined;
  }
  if (a.isKnownHost() && b.isKnownHost()) {
    // A constant and a varying value: the name varies.
    return a.kind == ValueKind::kHostVarying ? a : b;
  }
  return unknownValue(a.param_deps | b.param_deps);
}

Value combineOperands(const Value& a, const Value& b) {
  if (a.isTensor() || b.isTensor()) return tensorValue();
  if (a.isKnownHost() && b.isKnownHost()) {
    if (a.kind == ValueKind::kHostVarying) return hostVarying(a.origin);
    if (b.kind == ValueKind::kHostVarying) return hostVarying(b.origin);
    return hostConstant(a.origin == b.origin ? a.origin : ValueOrigin::kLiteral);
  }
  return unknownValue(a.param_deps | b.param_deps);
}

Value hostResultOf(const Value& source) {
  switch (source.kind) {
    case ValueKind::kTensor:
      return hostVarying(ValueOrigin::kTensorExpr);
    case ValueKind::kHostVarying:
      return hostVarying(source.origin);
    case ValueKind::kHostConstant:
      return hostConstant(source.origin);
    case ValueKind::kUnknown:
      break;
  }
  return unknownValue();
}

Value tensorResultOf(const Value& source) {
  switch (source.kind) {
    case ValueKind::kTensor:
      return tensorValue();
    case ValueKind::kHostVarying:
    case ValueKind::kHostConstant:
      return hostResultOf(source);
    case ValueKind::kUnknown:
      break;
  }
  return unknownValue(source.param_deps);
}

ExprInfo joinInfos(const ExprInfo& a, const ExprInfo& b) {
  ExprInfo joined;
  joined.value = joinValues(a.value, b.value);
  if (a.object == b.object && a.class_index == b.class_index) {
    joined.object = a.object;
    joined.class_index = a.class_index;
    if (a.imported == b.imported) joined.imported = a.imported;
  }
  if (a.function == b.function) joined.function = a.function;
  joined.mask = a.mask && b.mask;
  // May be a graph output on either side: keeping it may keep the graph's buffer.
  joined.output_of = a.output_of >= 0 ? a.output_of : b.output_of;
  if (a.stream == b.stream) joined.stream = a.stream;
  if (a.device == b.device) joined.device = a.device;
  joined.pageable = a.pageable && b.pageable;
  if (a.ref == b.ref) joined.ref = a.ref;
  return joined;
}

}  // namespace graphsafe::python
