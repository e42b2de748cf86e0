// Narrowing by tests on a name, for the code the test guards:
//   - not a tensor: `isinstance(x, torch.Tensor)` false (the else side, `not isinstance(...)`,
//     the false arm of a ternary, the rest of a block after `if isinstance(...): return`) or
//     `isinstance(x, (int, float))` true. A read of x there keeps nothing of what x held: a
//     tensor argument on some call path does not make `int(x)` a tensor read.
//   - a tensor in host memory: `x.is_cuda` false, `x.is_cpu` true, `x.device.type == "cpu"`
//     true. Its `.item()`, `.tolist()`, `.cpu()` there wait for no device.
// Through a local bound to the test too (`is_tensor = isinstance(x, torch.Tensor)`). A name
// bound again under the test is no longer narrowed. The same scopes carry the static tests on
// parameters and constants (static_conditions.cpp).
#include <algorithm>

#include "frontends/python/function_lowering.h"

namespace graphsafe::python {

namespace {

constexpr int kMaxNarrowingDepth = 8;

bool isHostTypeName(std::string_view name) {
  return name == "int" || name == "float" || name == "bool" || name == "str" || name == "complex" ||
         name == "bytes" || name == "list" || name == "tuple" || name == "dict";
}

}  // namespace

FunctionLowering::TypeTest FunctionLowering::classifyTypeTest(TSNode type) const {
  type = unparenthesize(file_.pool, type);
  if (is(type, g_.tuple)) {
    // (torch.Tensor, np.ndarray): false proves "not a tensor"; (int, float): true does.
    bool all_host = true;
    bool any_tensor = false;
    int count = 0;
    for (Children it(file_.pool, type); it.valid(); it.next(), ++count) {
      TypeTest element = classifyTypeTest(it.node());
      all_host = all_host && element == TypeTest::kHostType;
      any_tensor = any_tensor || element == TypeTest::kTensorType;
    }
    if (any_tensor) return TypeTest::kTensorType;
    return count > 0 && all_host ? TypeTest::kHostType : TypeTest::kOther;
  }
  if (is(type, g_.identifier) && isHostTypeName(textOf(type)) && !isShadowed(textOf(type)) &&
      file_.index.imports.find(textOf(type)) == nullptr) {
    return TypeTest::kHostType;
  }
  if (!is(type, g_.identifier) && !is(type, g_.attribute)) return TypeTest::kOther;
  return canonicalApiName(importedNameOf(type)) == "torch.Tensor" ? TypeTest::kTensorType
                                                                  : TypeTest::kOther;
}

// A leaf test `isinstance(x, T)`: what it proves about x when it is `when_true`.
void FunctionLowering::typeTestFacts(TSNode call, bool when_true,
                                     std::vector<NarrowedName>& out) const {
  if (!isUnshadowedBuiltin(field(call, g_.f_function), "isinstance")) return;
  TSNode operands[2] = {};
  int count = 0;
  for (Children it(file_.pool, field(call, g_.f_arguments)); it.valid(); it.next()) {
    if (count < 2) operands[count] = it.node();
    ++count;
  }
  if (count != 2 || !is(operands[0], g_.identifier)) return;
  TypeTest test = classifyTypeTest(operands[1]);
  if ((test == TypeTest::kTensorType && !when_true) || (test == TypeTest::kHostType && when_true)) {
    out.push_back({textOf(operands[0]), Narrowing::kNotTensor});
  }
}

// A leaf test of where a tensor lives: `x.is_cuda`, `x.is_cpu`, `x.device.type == "cpu"`.
void FunctionLowering::deviceTestFacts(TSNode test, bool when_true,
                                       std::vector<NarrowedName>& out) const {
  bool host_when_true = false;
  TSNode attribute = test;
  if (is(test, g_.comparison_operator)) {
    // x.device.type == "cpu" / != "cpu"
    Comparison comparison;
    std::string_view literal;
    if (!readComparison(file_.pool, file_.text, test, comparison) ||
        (comparison.op != "==" && comparison.op != "!=") ||
        !plainStringValue(file_.pool, file_.text, comparison.operands[1], literal) ||
        literal != "cpu") {
      return;
    }
    TSNode type = unparenthesize(file_.pool, comparison.operands[0]);
    if (!is(type, g_.attribute) || textOf(field(type, g_.f_attribute)) != "type") return;
    TSNode device = unparenthesize(file_.pool, field(type, g_.f_object));
    if (!is(device, g_.attribute) || textOf(field(device, g_.f_attribute)) != "device") return;
    attribute = device;
    host_when_true = comparison.op == "==";
  } else if (is(test, g_.attribute)) {
    std::string_view name = textOf(field(test, g_.f_attribute));
    if (name != "is_cuda" && name != "is_cpu") return;
    host_when_true = name == "is_cpu";
  } else {
    return;
  }
  TSNode subject = unparenthesize(file_.pool, field(attribute, g_.f_object));
  if (is(subject, g_.identifier) && host_when_true == when_true) {
    out.push_back({textOf(subject), Narrowing::kHostTensor});
  }
}

void FunctionLowering::narrowedNames(TSNode condition, bool when_true,
                                     std::vector<NarrowedName>& out, int depth) const {
  condition = unparenthesize(file_.pool, condition);
  if (isNull(condition) || depth > kMaxNarrowingDepth) return;
  if (is(condition, g_.not_operator)) {
    narrowedNames(field(condition, g_.f_argument), !when_true, out, depth + 1);
    return;
  }
  if (is(condition, g_.boolean_operator)) {
    // Both operands hold when `a and b` does; neither does when `a or b` does not.
    const bool is_and = textOf(field(condition, g_.f_operator)) == "and";
    if (is_and != when_true) return;
    narrowedNames(field(condition, g_.f_left), when_true, out, depth + 1);
    narrowedNames(field(condition, g_.f_right), when_true, out, depth + 1);
    return;
  }
  if (is(condition, g_.identifier)) {
    auto alias = type_test_aliases_.find(textOf(condition));
    if (alias != type_test_aliases_.end()) {
      narrowedNames(alias->second, when_true, out, depth + 1);
    }
    return;
  }
  if (is(condition, g_.call)) {
    typeTestFacts(condition, when_true, out);
  } else {
    deviceTestFacts(condition, when_true, out);
  }
}

FunctionLowering::NarrowMark FunctionLowering::narrowBy(TSNode condition, bool when_true) {
  const NarrowMark mark = narrowMark();
  if (!isNull(condition)) {
    narrowedNames(condition, when_true, narrowed_, 0);
    addStaticTests(condition, when_true, 0);
  }
  return mark;
}

void FunctionLowering::endNarrowing(NarrowMark mark) {
  if (mark.names < narrowed_.size()) narrowed_.resize(mark.names);
  current_test_ = mark.test;
}

void FunctionLowering::narrowedRead(std::string_view name, ExprInfo& info) const {
  for (const NarrowedName& narrowed : narrowed_) {
    if (narrowed.name != name) continue;
    if (narrowed.kind == Narrowing::kHostTensor) {
      info.host_memory = true;
      continue;
    }
    const Value& value = info.value;
    const bool may_be_tensor =
        value.isTensor() || (value.kind == ValueKind::kUnknown && value.param_deps != 0);
    if (!may_be_tensor) continue;
    info.value = unknownValue();
    info.ref = file_.refs.narrowed(info.ref);
    info.mask = false;
    info.pageable = false;
    info.pinned = false;
    return;
  }
}

void FunctionLowering::forgetNarrowing(std::string_view name) {
  // Emptied, not erased: the marks taken by narrowBy stay valid.
  for (NarrowedName& narrowed : narrowed_) {
    if (narrowed.name == name) narrowed.name = {};
  }
  type_test_aliases_.erase(name);
}

void FunctionLowering::noteTypeTestAlias(TSNode target, TSNode value) {
  target = unparenthesize(file_.pool, target);
  value = unparenthesize(file_.pool, value);
  if (!is(target, g_.identifier) || isNull(value)) return;
  std::vector<NarrowedName> narrowed;
  narrowedNames(value, true, narrowed, 0);
  narrowedNames(value, false, narrowed, 0);
  if (!narrowed.empty()) type_test_aliases_[textOf(target)] = value;
}

void FunctionLowering::narrowAfter(TSNode statement) {
  // `if isinstance(x, torch.Tensor): return ...`: the rest of the block sees no tensor x.
  if (is(statement, g_.if_statement)) {
    for (Children it(file_.pool, statement); it.valid(); it.next()) {
      if (it.field() == g_.f_alternative) return;
    }
    if (alwaysExits(field(statement, g_.f_consequence), false, 0)) {
      narrowBy(field(statement, g_.f_condition), false);
    }
  } else if (is(statement, g_.assert_statement)) {
    Children it(file_.pool, statement);
    if (it.valid()) narrowBy(it.node(), true);
  }
}

}  // namespace graphsafe::python
