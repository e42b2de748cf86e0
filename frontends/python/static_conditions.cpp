// Tests on parameters, and conditions decided without running the program, for the code they
// guard (StaticTest in the capture model):
//   - a parameter tested against None, a literal, a tuple of literals, or for truth (`if mode is
//     None:`, `if backend == "cuda":`, `if backend in ("cuda", "hip"):`, `if use_cache:`), where
//     the parameter is not bound again before the test (nor in a loop around it). The region walk
//     decides these with the arguments of each call that reaches the function: a literal, an
//     omitted argument's default, a tensor (never None).
//   - a condition that is false as the program starts: an environment variable read with
//     `os.environ.get(name, default)` / `os.getenv` while it is unset (or holds the value the
//     `environment` setting gives it), `name in os.environ`,
//     module constants bound once to such a value, and helpers of this file that take no
//     argument and return one (`def _validate(): return os.environ.get("X", "0") == "1"`). The
//     code under it is a debugging or opt-in path that a default run never takes (kNever).
//   - whether Dynamo is tracing (`torch.compiler.is_compiling()`, `torch._dynamo.is_compiling()`):
//     true exactly while a compiled region is traced, false under an eager capture.
// The tests follow the same scopes as narrowing: the sides of if/elif/else, the right operand of
// and/or, the arms of a ternary, and the rest of a block after `if cond: return` or `assert`.
#include <algorithm>
#include <cctype>
#include <optional>

#include "analyzer/model/literal_key.h"
#include "frontends/python/function_lowering.h"

namespace graphsafe::python {

namespace {

constexpr int kMaxConstantDepth = 6;
constexpr int kMaxTestDepth = 8;

bool isEnvironmentGet(std::string_view canonical) {
  return canonical == "os.environ.get" || canonical == "os.getenv";
}

}  // namespace

bool FunctionLowering::Constant::truthy() const {
  return sequence ? !items.empty() : literalTruthy(key);
}

FunctionLowering::Constant FunctionLowering::boolConstant(bool value) {
  Constant out;
  out.known = true;
  out.key = value ? "True" : "False";
  return out;
}

FunctionLowering::Constant FunctionLowering::constantOf(TSNode node, int depth) const {
  node = unparenthesize(file_.pool, node);
  Constant out;
  if (isNull(node) || depth > kMaxConstantDepth) return out;
  TSSymbol symbol = ts_node_symbol(node);
  if (symbol == g_.true_literal || symbol == g_.false_literal || symbol == g_.none ||
      symbol == g_.integer) {
    std::optional<std::string> key = literalKey(textOf(node));
    if (key) {
      out.known = true;
      out.key = std::move(*key);
    }
    return out;
  }
  if (symbol == g_.string) {
    std::string_view characters;
    if (plainStringValue(file_.pool, file_.text, node, characters) &&
        characters.find('\\') == std::string_view::npos) {
      out.known = true;
      out.key = stringKey(characters);
    }
    return out;
  }
  if (symbol == g_.tuple || symbol == g_.list || symbol == g_.set) {
    for (Children it(file_.pool, node); it.valid(); it.next()) {
      Constant item = constantOf(it.node(), depth + 1);
      if (!item.known || item.sequence) return {};
      out.items.push_back(std::move(item.key));
    }
    out.known = true;
    out.sequence = true;
    return out;
  }
  if (symbol == g_.not_operator) {
    Constant operand = constantOf(field(node, g_.f_argument), depth + 1);
    return operand.known ? boolConstant(!operand.truthy()) : out;
  }
  if (symbol == g_.boolean_operator) {
    const bool is_and = textOf(field(node, g_.f_operator)) == "and";
    Constant left = constantOf(field(node, g_.f_left), depth + 1);
    if (left.known) {
      // `a and b` is a when a is false, else b; `a or b` is a when a is true, else b.
      return left.truthy() != is_and ? left : constantOf(field(node, g_.f_right), depth + 1);
    }
    Constant right = constantOf(field(node, g_.f_right), depth + 1);
    // Whatever a is: `a and <false>` is false, `a or <true>` is true.
    if (right.known && right.truthy() != is_and) return boolConstant(!is_and);
    return out;
  }
  if (symbol == g_.comparison_operator) return comparisonConstant(node, depth);
  if (symbol == g_.identifier) return moduleConstant(textOf(node), depth);
  if (symbol == g_.call) return callConstant(node, depth);
  return out;
}

FunctionLowering::Constant FunctionLowering::comparisonConstant(TSNode node, int depth) const {
  Comparison comparison;
  if (!readComparison(file_.pool, file_.text, node, comparison)) return {};
  const TSNode* operands = comparison.operands;
  const std::string& op = comparison.op;
  Constant right = constantOf(operands[1], depth + 1);
  if (op == "in" || op == "not in") {
    // `"NAME" in os.environ`: whether the configuration sets it.
    TSNode container = unparenthesize(file_.pool, operands[1]);
    if ((is(container, g_.attribute) || is(container, g_.identifier)) &&
        canonicalApiName(importedNameOf(container)) == "os.environ") {
      Constant name = constantOf(operands[0], depth + 1);
      if (!name.known || !name.key.starts_with("s:")) return {};
      const bool set = environmentValue(name.key.substr(2)) != nullptr;
      return boolConstant(set == (op == "in"));
    }
    Constant left = constantOf(operands[0], depth + 1);
    if (!left.known || left.sequence || !right.known || !right.sequence) return {};
    bool found = std::find(right.items.begin(), right.items.end(), left.key) != right.items.end();
    return boolConstant(found == (op == "in"));
  }
  Constant left = constantOf(operands[0], depth + 1);
  if (!left.known || !right.known || left.sequence || right.sequence) return {};
  if (!keysComparable(left.key, right.key)) return {};
  const bool equal = left.key == right.key;
  if (op == "==" || op == "is") return boolConstant(equal);
  if (op == "!=" || op == "is not") return boolConstant(!equal);
  return {};
}

FunctionLowering::Constant FunctionLowering::moduleConstant(std::string_view name,
                                                            int depth) const {
  // A module global bound exactly once, by a top-level assignment, and never written from a
  // function; not shadowed here.
  if (id_ != 0 && isShadowed(name)) return {};
  auto count = file_.index.module_bindings.find(name);
  if (count == file_.index.module_bindings.end() || count->second != 1 ||
      file_.index.globals_written.contains(name)) {
    return {};
  }
  TSNode value = file_.moduleAssignment(name);
  return isNull(value) ? Constant{} : constantOf(value, depth + 1);
}

FunctionLowering::Constant FunctionLowering::callConstant(TSNode call, int depth) const {
  TSNode callee = unparenthesize(file_.pool, field(call, g_.f_function));
  CallArguments arguments;
  readArguments(file_.pool, file_.text, field(call, g_.f_arguments), arguments);
  if (arguments.has_splat) return {};
  const std::string qualified = importedNameOf(callee);  // canonical may point into it
  std::string_view canonical = canonicalApiName(qualified);
  if (isEnvironmentGet(canonical)) {
    // The configuration's value, or, for a variable it does not set, the default or None.
    if (arguments.positional.empty()) return {};
    Constant name = constantOf(arguments.positional.front(), depth + 1);
    if (!name.known || !name.key.starts_with("s:")) return {};
    if (const std::string* value = environmentValue(name.key.substr(2))) {
      Constant out;
      out.known = true;
      out.key = stringKey(*value);
      return out;
    }
    TSNode fallback = arguments.find("default", 1);
    if (isNull(fallback)) return literalNone();
    return constantOf(fallback, depth + 1);
  }
  if (is(callee, g_.attribute)) {
    // "X".lower() and the like, on a constant string.
    std::string_view method = textOf(field(callee, g_.f_attribute));
    if (method != "lower" && method != "upper" && method != "strip" && method != "casefold") {
      return {};
    }
    if (!arguments.positional.empty() || !arguments.keywords.empty()) return {};
    Constant receiver = constantOf(field(callee, g_.f_object), depth + 1);
    if (!receiver.known || receiver.sequence || !receiver.key.starts_with("s:")) return {};
    std::string characters = receiver.key.substr(2);
    if (method == "strip") {
      const auto space = [](unsigned char c) { return std::isspace(c) != 0; };
      while (!characters.empty() && space(characters.back())) characters.pop_back();
      std::size_t first = 0;
      while (first < characters.size() && space(characters[first])) ++first;
      characters.erase(0, first);
    } else {
      for (char& c : characters) {
        c = static_cast<char>(method == "upper" ? std::toupper(static_cast<unsigned char>(c))
                                                : std::tolower(static_cast<unsigned char>(c)));
      }
    }
    receiver.key = stringKey(characters);
    return receiver;
  }
  if (!is(callee, g_.identifier)) return {};
  std::string_view name = textOf(callee);
  if (isUnshadowedBuiltin(callee, "bool") || isUnshadowedBuiltin(callee, "int") ||
      isUnshadowedBuiltin(callee, "str")) {
    if (arguments.positional.size() != 1 || !arguments.keywords.empty()) return {};
    Constant value = constantOf(arguments.positional.front(), depth + 1);
    if (!value.known || value.sequence) return {};
    if (name == "bool") return boolConstant(value.truthy());
    if (name == "str") return value.key.starts_with("s:") ? value : Constant{};
    if (value.key.starts_with("i:")) return value;
    if (!value.key.starts_with("s:")) return {};
    std::optional<std::string> key = literalKey(value.key.substr(2));
    if (!key || !key->starts_with("i:")) return {};
    value.key = std::move(*key);
    return value;
  }
  // A helper of this file that takes no argument and returns one expression.
  if (!arguments.positional.empty() || !arguments.keywords.empty() ||
      file_.index.functions.empty() || (id_ != 0 && isShadowed(name))) {
    return {};
  }
  auto def = file_.index.functions[0].defs.find(name);
  if (def == file_.index.functions[0].defs.end()) return {};
  const FunctionDecl& helper = file_.index.functions[def->second];
  if (helper.is_lambda || isNull(helper.node) || !helper.param_names.empty()) return {};
  TSNode result{};
  for (Children it(file_.pool, field(helper.node, g_.f_body)); it.valid(); it.next()) {
    TSNode statement = it.node();
    if (is(statement, g_.comment)) continue;
    if (is(statement, g_.expression_statement) && isNull(result) &&
        is(firstNamedChild(file_.pool, statement), g_.string)) {
      continue;  // the docstring
    }
    if (!is(statement, g_.return_statement) || !isNull(result)) return {};
    result = firstNamedChild(file_.pool, statement);
    if (isNull(result)) return {};
  }
  return isNull(result) ? Constant{} : constantOf(result, depth + 1);
}

FunctionLowering::Constant FunctionLowering::literalNone() {
  Constant out;
  out.known = true;
  out.key = "None";
  return out;
}

std::optional<std::uint32_t> FunctionLowering::testedParameter(TSNode node) const {
  node = unparenthesize(file_.pool, node);
  if (!is(node, g_.identifier)) return std::nullopt;
  std::string_view name = textOf(node);
  const FunctionDecl& function = decl();
  for (std::size_t i = 0; i < function.param_names.size(); ++i) {
    if (textOf(function.param_names[i]) != name) continue;
    if (function.param_splat[i] || (i == 0 && function.has_self) || i >= 64) return std::nullopt;
    // Bound before the test, or anywhere in a loop around it: the test may be about another
    // value.
    const std::uint32_t at = ts_node_start_byte(node);
    if (const auto* sites = bindingSites().sitesOf(name)) {
      for (const BindingSites::Site& site : *sites) {
        if (site.offset < at) return std::nullopt;
        for (const BindingSites::Loop& loop : bindingSites().loops()) {
          if (loop.begin <= at && at < loop.end && loop.begin <= site.offset &&
              site.offset < loop.end) {
            return std::nullopt;
          }
        }
      }
    }
    return static_cast<std::uint32_t>(i);
  }
  return std::nullopt;
}

void FunctionLowering::pushStaticTest(StaticTest::Op op, std::uint32_t param, std::string literal) {
  if (quiet()) return;
  StaticTest test;
  test.op = op;
  test.param = param;
  test.literal = std::move(literal);
  test.parent = current_test_;
  if (op != StaticTest::Op::kNever && op != StaticTest::Op::kTracing &&
      op != StaticTest::Op::kNotTracing) {
    literal_params_ |= paramBit(param);
  }
  tests_.push_back(std::move(test));
  current_test_ = static_cast<std::int32_t>(tests_.size() - 1);
}

const std::string* FunctionLowering::environmentValue(std::string_view name) const {
  for (const auto& [variable, value] : file_.settings.environment) {
    if (variable == name) return &value;
  }
  return nullptr;
}

bool FunctionLowering::isDynamoTracingQuery(TSNode callee) const {
  const std::string qualified = importedNameOf(unparenthesize(file_.pool, callee));
  std::string_view canonical = canonicalApiName(qualified);
  return canonical == "torch._dynamo.is_compiling" || canonical == "torch.compiler.is_compiling" ||
         canonical == "torch.compiler.is_dynamo_compiling" ||
         canonical == "torch._dynamo.external_utils.is_compiling";
}

void FunctionLowering::notePassedParameter(TSNode argument) {
  if (std::optional<std::uint32_t> param = testedParameter(argument)) {
    literal_params_ |= paramBit(*param);
  }
}

void FunctionLowering::addStaticTests(TSNode condition, bool when_true, int depth) {
  condition = unparenthesize(file_.pool, condition);
  if (isNull(condition) || depth > kMaxTestDepth) return;
  Constant decided = constantOf(condition, 0);
  if (decided.known) {
    if (decided.truthy() != when_true) pushStaticTest(StaticTest::Op::kNever, 0, {});
    return;
  }
  if (is(condition, g_.not_operator)) {
    addStaticTests(field(condition, g_.f_argument), !when_true, depth + 1);
    return;
  }
  if (is(condition, g_.boolean_operator)) {
    // Both operands hold when `a and b` does; neither does when `a or b` does not.
    const bool is_and = textOf(field(condition, g_.f_operator)) == "and";
    if (is_and != when_true) return;
    addStaticTests(field(condition, g_.f_left), when_true, depth + 1);
    addStaticTests(field(condition, g_.f_right), when_true, depth + 1);
    return;
  }
  if (is(condition, g_.call) && isDynamoTracingQuery(field(condition, g_.f_function))) {
    pushStaticTest(when_true ? StaticTest::Op::kTracing : StaticTest::Op::kNotTracing, 0, {});
    return;
  }
  if (std::optional<std::uint32_t> param = testedParameter(condition)) {
    pushStaticTest(when_true ? StaticTest::Op::kTruthy : StaticTest::Op::kFalsy, *param, {});
    return;
  }
  Comparison comparison;
  if (!readComparison(file_.pool, file_.text, condition, comparison)) return;
  const TSNode* operands = comparison.operands;
  const std::string& op = comparison.op;
  std::optional<std::uint32_t> param = testedParameter(operands[0]);
  Constant literal = constantOf(operands[1], 0);
  if ((op == "in" || op == "not in") && param && literal.known && literal.sequence) {
    // `backend in ("cuda", "hip")`: the keys, separated by NUL.
    std::string keys;
    for (const std::string& item : literal.items) {
      if (!keys.empty()) keys.push_back('\0');
      keys += item;
    }
    const bool in = (op == "in") == when_true;
    pushStaticTest(in ? StaticTest::Op::kIn : StaticTest::Op::kNotIn, *param, std::move(keys));
    return;
  }
  if (!param) {
    param = testedParameter(operands[1]);
    literal = constantOf(operands[0], 0);
  }
  if (!param || !literal.known || literal.sequence) return;
  bool equal;
  if (op == "==" || op == "is") {
    equal = true;
  } else if (op == "!=" || op == "is not") {
    equal = false;
  } else {
    return;
  }
  if (op.starts_with("is")) {
    if (literal.key != "None") return;  // `is True` tests identity, not truth
    pushStaticTest(equal == when_true ? StaticTest::Op::kIsNone : StaticTest::Op::kIsNotNone,
                   *param, {});
    return;
  }
  pushStaticTest(equal == when_true ? StaticTest::Op::kEquals : StaticTest::Op::kNotEquals, *param,
                 literal.key);
}

}  // namespace graphsafe::python
