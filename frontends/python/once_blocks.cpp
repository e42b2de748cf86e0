// Blocks that run once by design, whatever a capture does:
//   - lazy initialization and log-once guards: `if x is None: x = make()`, `if not x: x = ...`,
//     `if key not in seen: seen.add(key); logger.info(...)`, where the block fills what the
//     condition tests;
//   - capture-only blocks: `if torch.cuda.is_current_stream_capturing(): ...`, or `if capturing
//     and ...:` on a name holding that answer (GS104's subject when the work differs).
// Host side effects there are not reported, and calls made there are flagged kFlagRunsOnce so
// that what they reach is judged the same way.
#include "frontends/python/function_lowering.h"

namespace graphsafe::python {

namespace {

constexpr int kMaxBlockDepth = 4;

bool isFillingMethod(std::string_view name) {
  return name == "add" || name == "append" || name == "update" || name == "setdefault" ||
         name == "__setitem__";
}

}  // namespace

bool FunctionLowering::writesGuarded(TSNode block, std::string_view guarded, int depth) const {
  if (isNull(block) || depth > kMaxBlockDepth) return false;
  for (Children it(file_.pool, block); it.valid(); it.next()) {
    TSNode statement = it.node();
    if (is(statement, g_.expression_statement)) {
      TSNode expression = firstNamedChild(file_.pool, statement);
      if (is(expression, g_.assignment) || is(expression, g_.augmented_assignment)) {
        TSNode target = unparenthesize(file_.pool, field(expression, g_.f_left));
        if (is(target, g_.subscript)) target = field(target, g_.f_value);
        if (textOf(target) == guarded) return true;
      } else if (is(expression, g_.call)) {
        TSNode callee = field(expression, g_.f_function);
        if (is(callee, g_.attribute) && textOf(field(callee, g_.f_object)) == guarded &&
            isFillingMethod(textOf(field(callee, g_.f_attribute)))) {
          return true;
        }
      }
    } else if (is(statement, g_.with_statement) || is(statement, g_.if_statement)) {
      // Double-checked locking: `with lock: if x is None: x = make()`.
      TSNode body = is(statement, g_.with_statement) ? field(statement, g_.f_body)
                                                     : field(statement, g_.f_consequence);
      if (writesGuarded(body, guarded, depth + 1)) return true;
    }
  }
  return false;
}

bool FunctionLowering::isCaptureOnly(TSNode condition, std::size_t first_event) const {
  // The operands of a top-level `and` chain; a capture query among them, not negated.
  std::vector<TSNode> operands{unparenthesize(file_.pool, condition)};
  for (std::size_t i = 0; i < operands.size() && i < 16; ++i) {
    TSNode node = operands[i];
    if (!is(node, g_.boolean_operator)) continue;
    if (textOf(field(node, g_.f_operator)) != "and") return false;
    operands.push_back(unparenthesize(file_.pool, field(node, g_.f_left)));
    operands.push_back(unparenthesize(file_.pool, field(node, g_.f_right)));
  }
  for (TSNode operand : operands) {
    if (is(operand, g_.boolean_operator) || is(operand, g_.not_operator)) continue;
    SourceRange range = file_.text.range(operand);
    for (std::size_t i = first_event; i < events_.size(); ++i) {
      const Event& event = events_[i];
      if (event.kind == EventKind::kBranch && event.range == range &&
          event.subject.origin == ValueOrigin::kCaptureQuery) {
        return true;
      }
    }
  }
  return false;
}

bool FunctionLowering::runsOnce(TSNode if_statement, std::size_t first_event) const {
  if (mode_ != Mode::kNormal) return false;
  TSNode condition = unparenthesize(file_.pool, field(if_statement, g_.f_condition));
  if (isCaptureOnly(condition, first_event)) return true;
  std::string_view guarded;
  if (is(condition, g_.not_operator)) {
    guarded = textOf(unparenthesize(file_.pool, field(condition, g_.f_argument)));
  } else if (is(condition, g_.comparison_operator)) {
    // x is None / key not in seen: the first operand, or the container after `not in`.
    TSNode first{};
    TSNode last{};
    bool is_none = false;
    bool not_in = false;
    int operands = 0;
    for (Children it(file_.pool, condition, true); it.valid(); it.next()) {
      TSNode child = it.node();
      if (it.field() == g_.f_operators) {
        is_none = is_none || ts_node_symbol(child) == g_.op_is;
        not_in = not_in || ts_node_symbol(child) == g_.op_not_in;
        continue;
      }
      if (!ts_node_is_named(child) || is(child, g_.comment)) continue;
      if (operands++ == 0) first = child;
      last = child;
    }
    if (operands != 2) return false;
    if (is_none && is(last, g_.none)) guarded = textOf(first);
    if (not_in) guarded = textOf(last);
  }
  return !guarded.empty() && writesGuarded(field(if_statement, g_.f_consequence), guarded, 0);
}

std::string FunctionLowering::noneTestedPath(TSNode condition, bool& is_none) const {
  condition = unparenthesize(file_.pool, condition);
  if (!is(condition, g_.comparison_operator)) return {};
  TSNode first{};
  TSNode last{};
  int operands = 0;
  int operators = 0;
  bool negated = false;
  for (Children it(file_.pool, condition, true); it.valid(); it.next()) {
    TSNode child = it.node();
    if (it.field() == g_.f_operators) {
      ++operators;
      if (ts_node_symbol(child) == g_.op_is_not)
        negated = true;
      else if (ts_node_symbol(child) != g_.op_is)
        return {};
      continue;
    }
    if (!ts_node_is_named(child) || is(child, g_.comment)) continue;
    if (operands++ == 0) first = child;
    last = child;
  }
  if (operands != 2 || operators != 1 || !is(last, g_.none)) return {};
  is_none = !negated;
  return flowPath(unparenthesize(file_.pool, first));
}

bool FunctionLowering::returnsOnceDone(TSNode statement, TSNode block) const {
  if (mode_ != Mode::kNormal || !is(statement, g_.if_statement)) return false;
  for (Children it(file_.pool, statement); it.valid(); it.next()) {
    if (it.field() == g_.f_alternative) return false;
  }
  TSNode body = field(statement, g_.f_consequence);
  TSNode only = firstNamedChild(file_.pool, body);
  if (isNull(only) || !is(only, g_.return_statement) || ts_node_named_child_count(body) != 1) {
    return false;
  }
  // The flag is an attribute (`md.initialized`, `self._ready`): state that outlives the call.
  TSNode flag = unparenthesize(file_.pool, field(statement, g_.f_condition));
  if (!is(flag, g_.attribute)) return false;
  return writesGuarded(block, textOf(flag), 0);
}

void FunctionLowering::noteCacheKeys(TSNode condition, std::vector<std::string>& keys) const {
  condition = unparenthesize(file_.pool, condition);
  if (!is(condition, g_.comparison_operator)) return;
  bool not_in = false;
  TSNode key{};
  for (Children it(file_.pool, condition, true); it.valid(); it.next()) {
    if (it.field() == g_.f_operators) {
      not_in = not_in || ts_node_symbol(it.node()) == g_.op_not_in;
      continue;
    }
    if (isNull(key) && ts_node_is_named(it.node()) && !is(it.node(), g_.comment)) key = it.node();
  }
  if (!not_in || isNull(key)) return;
  // `bs`, `(bs, dtype)`, `key(bs)`: every name in the key expression.
  std::vector<TSNode> pending{key};
  while (!pending.empty() && keys.size() < 64) {
    TSNode node = pending.back();
    pending.pop_back();
    if (is(node, g_.identifier)) {
      keys.emplace_back(textOf(node));
      continue;
    }
    for (Children it(file_.pool, node); it.valid(); it.next()) pending.push_back(it.node());
  }
}

void FunctionLowering::noteCaptureGuard(CaptureRegion& region, TSNode site) const {
  // The walk from the capture up to its function stops at the first loop: a conditional
  // outside the loops around the capture does not make any one of them capture only once.
  constexpr int kMaxParents = 512;
  TSNode node = isNull(site) ? site : ts_node_parent(site);
  for (int step = 0; step < kMaxParents && !isNull(node); ++step) {
    const TSSymbol symbol = ts_node_symbol(node);
    if (symbol == g_.for_statement || symbol == g_.while_statement ||
        symbol == g_.function_definition || symbol == g_.class_definition) {
      return;
    }
    if (symbol == g_.if_statement || symbol == g_.elif_clause || symbol == g_.else_clause ||
        symbol == g_.except_clause || symbol == g_.case_clause) {
      region.guard = file_.text.range(node);
      return;
    }
    node = ts_node_parent(node);
  }
}

void FunctionLowering::noteOnceBlock(std::uint32_t begin, std::uint32_t end) {
  if (mode_ != Mode::kNormal || end <= begin) return;
  file_.model.functions[id_].once_blocks.push_back(file_.text.range(begin, end));
}

void FunctionLowering::noteLazyCapture(CaptureRegion& region) const {
  if (host_.lazy_depth == 0) return;
  region.lazy = true;
  region.cache_keys = host_.cache_keys;
}

}  // namespace graphsafe::python
