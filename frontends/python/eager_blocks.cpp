// Code that runs only when no capture is under way, flagged kFlagEagerOnly:
//   - the body of `if not capturing:` (the capture query negated: directly, through a local
//     name or a helper of this file that returns it, or as one operand of an `and` chain);
//   - the `elif`/`else` sides of `if capturing:` (or `if capturing or ...:`);
//   - the rest of a block after `if capturing: raise|return|continue|break`, after
//     `assert not capturing`, and after a call to a helper of this file that raises under
//     capture (`def reject(): if torch.cuda.is_current_stream_capturing(): raise ...`, also
//     after returning for tensors that are not on a CUDA device and inside `with` blocks).
// The region walk skips these events: no rule reports them, and calls made there are not
// followed.
#include "frontends/python/function_lowering.h"

namespace graphsafe::python {

namespace {

constexpr int kMaxExitDepth = 4;
constexpr int kMaxOperands = 16;

}  // namespace

int FunctionLowering::captureSense(TSNode condition, std::size_t first_event, int depth) const {
  condition = unparenthesize(file_.pool, condition);
  if (isNull(condition) || depth > kMaxOperands) return 0;
  if (is(condition, g_.not_operator)) {
    return -captureSense(field(condition, g_.f_argument), first_event, depth + 1);
  }
  if (is(condition, g_.boolean_operator)) {
    int left = captureSense(field(condition, g_.f_left), first_event, depth + 1);
    int right = captureSense(field(condition, g_.f_right), first_event, depth + 1);
    // `a or capturing` holds whenever capturing; `a and not capturing` never does.
    const bool is_or = textOf(field(condition, g_.f_operator)) == "or";
    const int decisive = is_or ? 1 : -1;
    if (left == decisive || right == decisive) return decisive;
    return left == -decisive && right == -decisive ? -decisive : 0;
  }
  // A leaf of the condition: its branch event tells whether it holds the query's answer.
  SourceRange range = file_.text.range(condition);
  for (std::size_t i = first_event; i < events_.size(); ++i) {
    const Event& event = events_[i];
    if (event.kind == EventKind::kBranch && event.range == range &&
        event.subject.origin == ValueOrigin::kCaptureQuery) {
      return 1;
    }
  }
  return 0;
}

bool FunctionLowering::alwaysExits(TSNode block, bool raise_only, int depth) const {
  if (isNull(block) || depth > kMaxExitDepth) return false;
  TSNode last{};
  for (Children it(file_.pool, block); it.valid(); it.next()) {
    if (!is(it.node(), g_.comment)) last = it.node();
  }
  if (isNull(last)) return false;
  if (is(last, g_.raise_statement)) return true;
  if (!raise_only) {
    const std::string_view type = ts_node_type(last);
    if (is(last, g_.return_statement) || type == "continue_statement" ||
        type == "break_statement") {
      return true;
    }
  }
  if (!is(last, g_.if_statement)) return false;
  // if/elif/else where every side exits.
  if (!alwaysExits(field(last, g_.f_consequence), raise_only, depth + 1)) return false;
  bool has_else = false;
  for (Children it(file_.pool, last); it.valid(); it.next()) {
    if (it.field() != g_.f_alternative) continue;
    TSNode clause = it.node();
    const bool is_else = is(clause, g_.else_clause);
    has_else = has_else || is_else;
    TSNode body = field(clause, is_else ? g_.f_body : g_.f_consequence);
    if (!alwaysExits(body, raise_only, depth + 1)) return false;
  }
  return has_else;
}

bool FunctionLowering::testsNotOnDevice(TSNode condition) const {
  condition = unparenthesize(file_.pool, condition);
  bool negated = false;
  if (is(condition, g_.not_operator)) {
    negated = true;
    condition = unparenthesize(file_.pool, field(condition, g_.f_argument));
  }
  if (is(condition, g_.attribute)) {
    // `not x.is_cuda`, `x.is_cpu`
    std::string_view name = textOf(field(condition, g_.f_attribute));
    return negated ? name == "is_cuda" : name == "is_cpu";
  }
  if (is(condition, g_.call)) {
    // `not torch.cuda.is_available()`
    return negated && canonicalApiName(importedNameOf(field(condition, g_.f_function))) ==
                          "torch.cuda.is_available";
  }
  if (negated) return false;
  // `device.type != "cuda"`, `x.device.type == "cpu"`
  Comparison comparison;
  if (!readComparison(file_.pool, file_.text, condition, comparison)) return false;
  std::string_view device;
  TSNode type = unparenthesize(file_.pool, comparison.operands[0]);
  if (!is(type, g_.attribute) || textOf(field(type, g_.f_attribute)) != "type" ||
      !plainStringValue(file_.pool, file_.text, comparison.operands[1], device)) {
    return false;
  }
  const std::string& op = comparison.op;
  return (op == "!=" && device == "cuda") || (op == "==" && device == "cpu");
}

bool FunctionLowering::raisesUnderCapture(FunctionId function) const {
  if (function >= file_.index.functions.size()) return false;
  if (auto known = file_.raises_under_capture.find(function);
      known != file_.raises_under_capture.end()) {
    return known->second;
  }
  const FunctionDecl& callee = file_.index.functions[function];
  const bool raises = !callee.is_lambda && !isNull(callee.node) &&
                      rejectsCapture(field(callee.node, g_.f_body), function, 0);
  file_.raises_under_capture.emplace(function, raises);
  return raises;
}

bool FunctionLowering::rejectsCapture(TSNode block, FunctionId function, int depth) const {
  if (isNull(block) || depth > kMaxExitDepth) return false;
  // The body opens with plain statements (a docstring, assignments), returns for tensors not on
  // a CUDA device (no capture there), and `with` blocks, then the guard.
  for (Children it(file_.pool, block); it.valid(); it.next()) {
    TSNode statement = it.node();
    if (is(statement, g_.comment) || is(statement, g_.expression_statement)) continue;
    if (is(statement, g_.with_statement)) {
      return rejectsCapture(field(statement, g_.f_body), function, depth + 1);
    }
    if (!is(statement, g_.if_statement)) return false;
    bool has_alternative = false;
    for (Children side(file_.pool, statement); side.valid(); side.next()) {
      has_alternative = has_alternative || side.field() == g_.f_alternative;
    }
    if (!has_alternative && testsNotOnDevice(field(statement, g_.f_condition)) &&
        alwaysExits(field(statement, g_.f_consequence), false, 0)) {
      continue;
    }
    TSNode condition = unparenthesize(file_.pool, field(statement, g_.f_condition));
    if (!is(condition, g_.call)) return false;
    TSNode callee_node = unparenthesize(file_.pool, field(condition, g_.f_function));
    std::string qualified = importedName(callee_node, file_.pool, file_.text, file_.index.imports,
                                         [](std::string_view) { return false; });
    bool query = canonicalApiName(qualified) == "torch.cuda.is_current_stream_capturing";
    if (!query && is(callee_node, g_.identifier) && !file_.index.functions.empty()) {
      auto local = file_.index.functions[0].defs.find(textOf(callee_node));
      query = local != file_.index.functions[0].defs.end() && local->second != function &&
              returnsCaptureQuery(local->second);
    }
    return query && alwaysExits(field(statement, g_.f_consequence), true, 0);
  }
  return false;
}

bool FunctionLowering::exitsUnderCapture(TSNode statement, std::size_t first_event) const {
  if (is(statement, g_.if_statement)) {
    int sense = captureSense(field(statement, g_.f_condition), first_event, 0);
    if (sense == 1) return alwaysExits(field(statement, g_.f_consequence), false, 0);
    if (sense != -1) return false;
    // if not capturing: ... else: raise
    for (Children it(file_.pool, statement); it.valid(); it.next()) {
      if (it.field() != g_.f_alternative) continue;
      if (!is(it.node(), g_.else_clause)) return false;
      return alwaysExits(field(it.node(), g_.f_body), false, 0);
    }
    return false;
  }
  if (is(statement, g_.assert_statement)) {
    Children it(file_.pool, statement);
    return it.valid() && captureSense(it.node(), first_event, 0) == -1;
  }
  if (!is(statement, g_.expression_statement)) return false;
  TSNode call = unparenthesize(file_.pool, firstNamedChild(file_.pool, statement));
  if (!is(call, g_.call)) return false;
  SourceRange range = file_.text.range(call);
  for (std::size_t i = first_event; i < events_.size(); ++i) {
    const Event& event = events_[i];
    if (event.kind == EventKind::kCall && event.range == range && event.callee != kNoFunction &&
        (event.flags & kFlagBoundMethod) == 0) {
      return raisesUnderCapture(event.callee);
    }
  }
  return false;
}

void FunctionLowering::markEagerOnly(std::size_t begin, std::size_t end) {
  for (std::size_t i = begin; i < end && i < events_.size(); ++i) {
    events_[i].flags |= kFlagEagerOnly;
  }
}

void FunctionLowering::markCaptureOnlyCalls(std::size_t begin, std::size_t end) {
  for (std::size_t i = begin; i < end && i < events_.size(); ++i) {
    if (events_[i].kind == EventKind::kCall) events_[i].flags |= kFlagCaptureDependent;
  }
}

}  // namespace graphsafe::python
