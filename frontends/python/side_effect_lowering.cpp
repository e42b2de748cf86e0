// Python state changed under capture (kHostSideEffect, for GS106). Replay re-issues device work
// only, so these run once, while the graph is recorded:
//   - writes to state that outlives the captured call: item assignment (`state[0] += 1`),
//     container methods (append, insert, pop, update, ...), attribute assignment of a host value
//     (`self.step += 1`), assignment to a name declared `global` or `nonlocal`;
//   - printing and logging (logging is flagged kFlagLogging: reported as a warning).
// What outlives the call: globals and closure variables, `self` outside __init__, parameters
// (decided per call path: the event's subject keeps their dependencies), and locals of the
// capturing function bound before its region. A container a captured function makes for itself
// is its own business, and storing a tensor is how a graph's outputs are kept, not a host change.
#include <algorithm>
#include <optional>

#include "frontends/python/function_lowering.h"

namespace graphsafe::python {

namespace {

constexpr int kMaxChain = 32;

bool isLogLevel(std::string_view name) {
  static constexpr std::string_view kLevels[] = {
      "debug", "info", "warning",      "warn",      "error", "exception", "critical",
      "fatal", "log",  "warning_once", "info_once", "trace", "success"};
  return std::find(std::begin(kLevels), std::end(kLevels), name) != std::end(kLevels);
}

// Names a logger is usually bound to: logger, log, _logger, LOGGER, self.log.
bool looksLikeLogger(std::string_view text) {
  std::size_t dot = text.rfind('.');
  std::string_view last = dot == std::string_view::npos ? text : text.substr(dot + 1);
  while (!last.empty() && last.front() == '_') last.remove_prefix(1);
  std::string lower(last);
  for (char& c : lower) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return lower == "logger" || lower == "log" || lower == "logging";
}

// What a write's subject is: known host state, state decided per call path (parameters), or
// nothing to report (a tensor, or a value we know nothing about).
std::optional<Value> hostSubject(const Value& container, const Value& stored) {
  if (container.isTensor() || stored.isTensor()) return std::nullopt;
  auto known = [](const Value& v) { return v.isKnownHost() || v.param_deps != 0; };
  if (!known(container) || !known(stored)) return std::nullopt;
  if (container.isKnownHost() && stored.isKnownHost()) return hostConstant(ValueOrigin::kNone);
  return unknownValue(container.param_deps | stored.param_deps);
}

}  // namespace

FunctionLowering::Lifetime FunctionLowering::lifetimeOf(TSNode node) const {
  node = unparenthesize(file_.pool, node);
  for (int step = 0; step < kMaxChain; ++step) {
    if (is(node, g_.attribute)) {
      node = unparenthesize(file_.pool, field(node, g_.f_object));
    } else if (is(node, g_.subscript)) {
      node = unparenthesize(file_.pool, field(node, g_.f_value));
    } else {
      break;
    }
  }
  if (!is(node, g_.identifier)) return Lifetime::kFresh;
  std::string_view name = textOf(node);
  if (isSelfName(node)) {
    return file_.model.functions[id_].name == "__init__" ? Lifetime::kFresh : Lifetime::kOutlives;
  }
  if (host_.outer_names.contains(name)) return Lifetime::kOutlives;
  if (const ExprInfo* local = findLocal(name)) {
    if (local->value.kind == ValueKind::kUnknown && local->value.param_deps != 0) {
      return Lifetime::kParameter;
    }
    if (currentRegion() < 0) return Lifetime::kFresh;
    auto bound = host_.bound_in.find(name);
    std::int32_t region = bound == host_.bound_in.end() ? -1 : bound->second;
    return region == currentRegion() ? Lifetime::kFresh : Lifetime::kOutlives;
  }
  ExprInfo ignored;
  return lookupName(name, ignored) ? Lifetime::kOutlives : Lifetime::kFresh;
}

void FunctionLowering::emitHostEffect(TSNode range_node, std::string api, const Value& subject,
                                      TSNode subject_node, std::uint32_t flags) {
  // Lazy initialization, log-once and capture-only blocks run once by design.
  if (quiet() || host_.once_depth > 0) return;
  Event& event = emit(EventKind::kHostSideEffect, range_node);
  event.api = std::move(api);
  event.text = file_.text.brief(range_node);
  event.subject = described(subject, subject_node);
  event.flags = flags;
  event.callee = enclosingOwner(subject_node);
}

FunctionId FunctionLowering::enclosingOwner(TSNode target) const {
  // The root name of `a.b[c].d`.
  for (int depth = 0; depth < 32 && !isNull(target) && !is(target, g_.identifier); ++depth) {
    if (is(target, g_.attribute)) {
      target = field(target, g_.f_object);
    } else if (is(target, g_.subscript)) {
      target = field(target, g_.f_value);
    } else if (is(target, g_.call)) {
      target = field(target, g_.f_function);
    } else {
      return kNoFunction;
    }
  }
  if (isNull(target) || !is(target, g_.identifier)) return kNoFunction;
  const std::string_view name = textOf(target);
  // A local of this function, unless declared `nonlocal` (a `global` finds no function).
  if (findLocal(name) != nullptr && !host_.outer_names.contains(name)) return kNoFunction;
  const auto& functions = file_.index.functions;
  for (FunctionId scope = functions[id_].parent; scope != kNoFunction && scope != 0;
       scope = functions[scope].parent) {
    if (scope < file_.final_bindings.size() && file_.final_bindings[scope].contains(name)) {
      return scope;
    }
  }
  return kNoFunction;
}

void FunctionLowering::noteGlobalDeclaration(TSNode statement) {
  const bool global = is(statement, g_.global_statement);
  for (Children it(file_.pool, statement); it.valid(); it.next()) {
    if (!is(it.node(), g_.identifier)) continue;
    host_.outer_names.insert(textOf(it.node()));
    if (global) host_.global_names.insert(textOf(it.node()));
  }
}

bool FunctionLowering::isGlobalDeclared(std::string_view name) const {
  return host_.global_names.contains(name);
}

void FunctionLowering::noteHostWrite(TSNode target, const ExprInfo& base, const ExprInfo& info,
                                     bool augmented) {
  if (quiet()) return;
  TSNode statement = target;
  for (int step = 0; step < 4 && !isNull(statement); ++step) {
    if (is(statement, g_.assignment) || is(statement, g_.augmented_assignment)) break;
    statement = ts_node_parent(statement);
  }
  if (isNull(statement)) statement = target;
  TSSymbol symbol = ts_node_symbol(target);
  if (symbol == g_.identifier) {
    if (!host_.outer_names.contains(textOf(target)) || info.value.isTensor()) return;
    // A global or nonlocal write is a host change whatever it holds, a tensor aside.
    Value subject = info.value.isKnownHost() || info.value.param_deps != 0
                        ? info.value
                        : hostConstant(ValueOrigin::kGlobal);
    emitHostEffect(statement, "global", subject, target, kFlagNone);
    return;
  }
  if (symbol == g_.attribute) {
    if (lifetimeOf(field(target, g_.f_object)) == Lifetime::kFresh) return;
    if (info.value.isTensor() || info.pageable) return;
    if (!info.value.isKnownHost() && info.value.param_deps == 0) return;
    emitHostEffect(statement, augmented ? "attribute update" : "attribute assignment", info.value,
                   target, kFlagNone);
    return;
  }
  if (symbol == g_.subscript) {
    TSNode container = field(target, g_.f_value);
    if (base.pageable || lifetimeOf(container) == Lifetime::kFresh) return;
    Value stored = augmented && base.value.isKnownHost() ? hostConstant() : info.value;
    std::optional<Value> subject = hostSubject(base.value, stored);
    if (subject) {
      emitHostEffect(statement, augmented ? "item update" : "item assignment", *subject, target,
                     kFlagNone);
    }
  }
}

void FunctionLowering::noteContainerMethod(const Callee& callee, TSNode call,
                                           const Arguments& arguments) {
  static constexpr std::string_view kStoring[] = {"append", "appendleft", "add",
                                                  "extend", "extendleft", "update"};
  static constexpr std::string_view kRemoving[] = {"pop",    "popleft", "popitem",
                                                   "remove", "clear",   "discard"};
  std::string_view name = callee.name;
  bool storing = std::find(std::begin(kStoring), std::end(kStoring), name) != std::end(kStoring);
  bool inserting = name == "insert" || name == "setdefault";
  bool removing =
      std::find(std::begin(kRemoving), std::end(kRemoving), name) != std::end(kRemoving);
  if (quiet() || (!storing && !inserting && !removing)) return;
  const ExprInfo& receiver = callee.receiver;
  if (receiver.object != ObjectKind::kNone || receiver.pageable) return;
  if (lifetimeOf(callee.receiver_node) == Lifetime::kFresh) return;
  Value stored = hostConstant();
  if (storing || inserting) {
    std::size_t position = inserting ? 1 : 0;
    if (position < arguments.positional.size()) {
      stored = arguments.positional[position].value;
    } else if (storing) {
      return;  // update(**kwargs), or a call we cannot read
    }
  }
  std::optional<Value> subject = hostSubject(receiver.value, stored);
  if (subject) {
    emitHostEffect(call, "container." + std::string(name), *subject, callee.receiver_node,
                   kFlagNone);
  }
}

void FunctionLowering::notePrint(TSNode call, const Arguments& arguments) {
  if (quiet()) return;
  emitHostEffect(call, "builtins.print", hostConstant(), TSNode{}, kFlagNone);
  fillArguments(events_.back(), arguments);
}

// `else: logger.error("unsupported type")` under an isinstance test: the path is chosen by the
// types the capture saw, which no replay can change, and the message says nothing that varies.
bool FunctionLowering::isConstantLogOnTypedPath(const Arguments& arguments) const {
  if (narrowed_.empty() || arguments.syntax.has_splat) return false;
  for (TSNode argument : arguments.syntax.positional) {
    TSNode shown = unparenthesize(file_.pool, argument);
    if (!is(shown, g_.string) && !is(shown, g_.concatenated_string)) return false;
    // An f-string formats values: not constant.
    for (Children it(file_.pool, shown); it.valid(); it.next()) {
      if (is(it.node(), g_.interpolation)) return false;
    }
  }
  return !arguments.syntax.positional.empty() && arguments.syntax.keywords.empty();
}

bool FunctionLowering::noteLoggingApi(std::string_view qualified, TSNode call,
                                      const Arguments& arguments) {
  std::size_t dot = qualified.rfind('.');
  if (dot == std::string_view::npos) return false;
  std::string_view owner = qualified.substr(0, dot);
  std::string_view name = qualified.substr(dot + 1);
  bool logging = (owner == "logging" && isLogLevel(name)) ||
                 (owner == "warnings" && name == "warn") ||
                 (owner.ends_with(".logger") && isLogLevel(name));
  if (!logging) return false;
  if (!quiet() && !isConstantLogOnTypedPath(arguments)) {
    emitHostEffect(call, std::string(qualified), hostConstant(), TSNode{}, kFlagLogging);
    fillArguments(events_.back(), arguments);
  }
  return true;
}

bool FunctionLowering::noteLoggerMethod(const Callee& callee, TSNode call,
                                        const Arguments& arguments) {
  if (!isLogLevel(callee.name)) return false;
  const ExprInfo& receiver = callee.receiver;
  bool logger =
      receiver.object == ObjectKind::kLogger ||
      (receiver.object == ObjectKind::kNone && receiver.value.kind == ValueKind::kUnknown &&
       receiver.value.param_deps == 0 && looksLikeLogger(textOf(callee.receiver_node)));
  if (!logger) return false;
  if (!quiet() && !isConstantLogOnTypedPath(arguments)) {
    emitHostEffect(call, "logging.Logger." + std::string(callee.name), hostConstant(), TSNode{},
                   kFlagLogging);
    fillArguments(events_.back(), arguments);
  }
  return true;
}

ExprInfo FunctionLowering::evalDictionary(TSNode node) {
  // {} or {"step": 0}: a host container, like a list display of host values.
  bool constant = true;
  std::vector<RefId> values;
  std::vector<std::string> keys;
  for (Children it(file_.pool, node); it.valid(); it.next()) {
    if (is(it.node(), g_.pair)) {
      TSNode key_node = field(it.node(), g_.f_key);
      bool key = eval(key_node).value.kind == ValueKind::kHostConstant;
      ExprInfo value = eval(field(it.node(), g_.f_value));
      constant = constant && key && value.value.kind == ValueKind::kHostConstant;
      values.push_back(value.ref);
      keys.push_back(literalKeyOf(key_node));
    } else {
      // {**other}: the other dict's entries, under keys not known here.
      TSNode spread_node =
          is(it.node(), g_.dictionary_splat) ? firstNamedChild(file_.pool, it.node()) : it.node();
      ExprInfo spread = eval(spread_node);
      values.push_back(file_.refs.element(spread.ref));
      keys.emplace_back();
      constant = false;
    }
  }
  ExprInfo info;
  if (constant) info.value = hostConstant(ValueOrigin::kLiteral);
  info.ref = file_.refs.container(ContainerKind::kDict, std::move(values), std::move(keys));
  return info;
}

}  // namespace graphsafe::python
