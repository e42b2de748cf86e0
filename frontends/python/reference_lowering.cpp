// What lowering leaves for the program model: each expression's reference, what functions
// return and yield, decorators applied as calls, class bases and body members, the writes
// that give attributes and containers their types, and the calls only types can resolve.
#include <algorithm>

#include "frontends/python/function_lowering.h"

namespace graphsafe::python {

namespace {

// Annotations nest rarely more than a few levels (`Optional[List[Model]]`).
constexpr int kMaxAnnotationDepth = 8;

// typing names that wrap one annotation in a container (`List[Model]`).
ContainerKind annotationContainer(std::string_view last, bool& is_container) {
  is_container = true;
  if (last == "List" || last == "list" || last == "Sequence" || last == "MutableSequence" ||
      last == "Iterable" || last == "Iterator" || last == "Generator" || last == "Deque" ||
      last == "deque" || last == "Collection") {
    return ContainerKind::kList;
  }
  if (last == "Set" || last == "set" || last == "FrozenSet" || last == "frozenset") {
    return ContainerKind::kSet;
  }
  if (last == "Dict" || last == "dict" || last == "Mapping" || last == "MutableMapping" ||
      last == "OrderedDict" || last == "DefaultDict" || last == "defaultdict") {
    return ContainerKind::kDict;
  }
  if (last == "Tuple" || last == "tuple") return ContainerKind::kTuple;
  is_container = false;
  return ContainerKind::kList;
}

std::string_view lastComponent(std::string_view dotted) {
  std::size_t dot = dotted.rfind('.');
  return dot == std::string_view::npos ? dotted : dotted.substr(dot + 1);
}

}  // namespace

ExprInfo FunctionLowering::withRef(ExprInfo info, RefId ref) {
  if (info.ref == kNoRef) info.ref = ref;
  return info;
}

ExprInfo FunctionLowering::joinedInfo(const ExprInfo& a, const ExprInfo& b) {
  ExprInfo joined = joinInfos(a, b);
  joined.ref = file_.refs.join(a.ref, b.ref);
  return joined;
}

RefId FunctionLowering::unboundNameRef(std::string_view name) {
  // A file with `from m import *`: the name may be m's; the program model looks in the star
  // modules first, then among the builtins.
  if (!file_.index.imports.starModules().empty() && !file_.model.module_name.empty()) {
    return file_.refs.global(file_.model.module_name + "." + std::string(name));
  }
  if (isBuiltinName(name)) return file_.refs.global("builtins." + std::string(name));
  return kNoRef;
}

RefId FunctionLowering::dottedRef(std::string_view dotted) {
  std::size_t dot = dotted.find('.');
  std::string_view first = dotted.substr(0, dot);
  ExprInfo root;
  RefId ref = lookupName(first, root) ? root.ref : unboundNameRef(first);
  while (dot != std::string_view::npos && ref != kNoRef) {
    std::size_t next = dotted.find('.', dot + 1);
    ref = file_.refs.attribute(ref, dotted.substr(dot + 1, next - dot - 1));
    dot = next;
  }
  return ref;
}

RefId FunctionLowering::annotationRef(TSNode type) {
  return annotationRefOf(type, 0);
}

RefId FunctionLowering::annotationRefOf(TSNode node, int depth) {
  node = unparenthesize(file_.pool, node);
  if (isNull(node) || depth > kMaxAnnotationDepth) return kNoRef;
  if (is(node, g_.type)) return annotationRefOf(firstNamedChild(file_.pool, node), depth + 1);
  if (is(node, g_.none)) return file_.refs.none();
  std::string_view quoted;
  if (plainStringValue(file_.pool, file_.text, node, quoted)) {
    return file_.refs.instanceOf(dottedRef(quoted));  // a forward reference: "Llama"
  }
  if (is(node, g_.identifier) || is(node, g_.attribute) || is(node, g_.member_type)) {
    std::string dotted;
    for (char c : textOf(node)) {
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\\') dotted.push_back(c);
    }
    return file_.refs.instanceOf(dottedRef(dotted));
  }
  if (is(node, g_.binary_operator) || is(node, g_.union_type)) {  // Llama | None
    RefId joined = kNoRef;
    for (Children it(file_.pool, node); it.valid(); it.next()) {
      joined = file_.refs.join(joined, annotationRefOf(it.node(), depth + 1));
    }
    return joined;
  }
  if (!is(node, g_.generic_type) && !is(node, g_.subscript)) return kNoRef;
  // Optional[X], Union[X, Y], List[X], Dict[K, V], Tuple[A, B]
  TSNode base = is(node, g_.subscript) ? field(node, g_.f_value) : firstNamedChild(file_.pool, node);
  std::string qualified = importedNameOf(base);
  std::string_view last = lastComponent(qualified.empty() ? textOf(base) : qualified);
  std::vector<TSNode> parameters;
  auto add = [&](TSNode parameter) {
    parameter = unparenthesize(file_.pool, parameter);
    if (is(parameter, g_.tuple) || is(parameter, g_.expression_list)) {
      for (Children inner(file_.pool, parameter); inner.valid(); inner.next()) {
        parameters.push_back(inner.node());
      }
    } else {
      parameters.push_back(parameter);
    }
  };
  if (is(node, g_.subscript)) {
    for (Children it(file_.pool, node); it.valid(); it.next()) {
      if (it.field() == g_.f_subscript) add(it.node());
    }
  } else {
    for (Children it(file_.pool, node); it.valid(); it.next()) {
      if (!is(it.node(), g_.type_parameter)) continue;
      for (Children inner(file_.pool, it.node()); inner.valid(); inner.next()) add(inner.node());
    }
  }
  if (last == "Optional" || last == "Union") {
    RefId joined = last == "Optional" ? file_.refs.none() : kNoRef;
    for (TSNode parameter : parameters) {
      joined = file_.refs.join(joined, annotationRefOf(parameter, depth + 1));
    }
    return joined;
  }
  bool is_container = false;
  ContainerKind kind = annotationContainer(last, is_container);
  if (!is_container || parameters.empty()) return kNoRef;
  std::vector<RefId> elements;
  std::vector<std::string> keys;
  if (kind == ContainerKind::kTuple) {
    for (TSNode parameter : parameters) elements.push_back(annotationRefOf(parameter, depth + 1));
  } else if (kind == ContainerKind::kDict) {
    if (parameters.size() >= 2) elements.push_back(annotationRefOf(parameters[1], depth + 1));
    keys.emplace_back();
  } else {
    elements.push_back(annotationRefOf(parameters.front(), depth + 1));
  }
  return file_.refs.container(kind, std::move(elements), std::move(keys));
}

void FunctionLowering::noteParameterReferences() {
  // Copies: evaluating a default may declare a lambda, which grows the function tables.
  const std::vector<TSNode> types = decl().param_types;
  const std::vector<TSNode> defaults = decl().param_defaults;
  const std::size_t count = file_.model.functions[id_].params.size();
  for (std::size_t i = 0; i < count && i < types.size(); ++i) {
    RefId annotation = annotationRef(types[i]);
    file_.model.functions[id_].params[i].annotation = annotation;
    // Defaults are evaluated where the def is; this function's own names are not bound yet.
    if (i < defaults.size() && !isNull(defaults[i])) {
      RefId fallback = quietEval(defaults[i]).ref;
      file_.model.functions[id_].params[i].default_value = fallback;
    }
  }
}

RefId FunctionLowering::callRef(RefId callee, const Arguments& arguments) {
  std::vector<RefId> positional;
  positional.reserve(arguments.positional.size());
  for (const ExprInfo& argument : arguments.positional) positional.push_back(argument.ref);
  std::vector<RefId> keyword_values;
  std::vector<std::string> keyword_names;
  for (std::size_t i = 0; i < arguments.keywords.size() && i < arguments.syntax.keywords.size();
       ++i) {
    keyword_values.push_back(arguments.keywords[i].ref);
    keyword_names.emplace_back(arguments.syntax.keywords[i].first);
  }
  return file_.refs.call(callee, std::move(positional), std::move(keyword_values),
                         std::move(keyword_names), arguments.syntax.has_splat);
}

void FunctionLowering::noteReturnValue(const ExprInfo& info) {
  if (mode_ != Mode::kNormal) return;
  returns_ = file_.refs.join(returns_, info.ref == kNoRef ? file_.refs.none() : info.ref);
}

void FunctionLowering::noteYieldValue(const ExprInfo& info, bool delegated) {
  if (mode_ != Mode::kNormal) return;
  RefId value = delegated ? file_.refs.element(info.ref) : info.ref;
  yields_ = file_.refs.join(yields_, value == kNoRef ? file_.refs.none() : value);
  if (yields_ == kNoRef) yields_ = file_.refs.none();
  // A @contextmanager whose yield is under a capture: every `with` on it captures its body.
  if (currentRegion() >= 0 && file_.model.functions[id_].yield_region < 0) {
    file_.model.functions[id_].yield_region = currentRegion();
  }
}

void FunctionLowering::lowerDefinition(TSNode node, bool in_class_body) {
  const bool decorated = is(node, g_.decorated_definition);
  TSNode definition = decorated ? field(node, g_.f_definition) : node;
  if (is(definition, g_.function_definition)) {
    FunctionId function = file_.functionOfNode(definition);
    if (function != kNoFunction && decorated) {
      std::vector<RefId> decorators;
      lowerDecorators(node, file_.refs.function(function, false), decorators);
      file_.model.functions[function].decorators = std::move(decorators);
    }
  } else if (is(definition, g_.class_definition)) {
    std::int32_t index = file_.classOfNode(definition);
    if (index >= 0) {
      std::vector<RefId> bases;
      for (TSNode base : file_.index.classes[static_cast<std::size_t>(index)].bases) {
        bases.push_back(eval(base).ref);
      }
      file_.model.classes[static_cast<std::size_t>(index)].bases = std::move(bases);
      if (decorated) {
        std::vector<RefId> decorators;
        lowerDecorators(node, file_.refs.classRef(index), decorators);
        file_.model.classes[static_cast<std::size_t>(index)].decorators = std::move(decorators);
      }
      lowerClassBody(index, field(definition, g_.f_body), 0);
    }
  }
  // Methods and nested classes bind no name in the enclosing scope.
  if (!in_class_body) bindDefinitionName(definition);
}

void FunctionLowering::lowerDecorators(TSNode decorated, RefId decorated_ref,
                                       std::vector<RefId>& decorators) {
  // Decorator expressions are evaluated top to bottom, then applied bottom to top.
  std::vector<std::pair<TSNode, RefId>> listed;
  for (Children it(file_.pool, decorated); it.valid(); it.next()) {
    if (!is(it.node(), g_.decorator)) continue;
    TSNode expression = unparenthesize(file_.pool, firstNamedChild(file_.pool, it.node()));
    if (isNull(expression)) continue;
    listed.emplace_back(it.node(), eval(expression).ref);
  }
  RefId applied = decorated_ref;
  for (auto it = listed.rbegin(); it != listed.rend(); ++it) {
    decorators.push_back(it->second);
    std::string_view text = textOf(firstNamedChild(file_.pool, it->first));
    // The builtins that only change how a method binds are no calls of the program.
    if (text == "staticmethod" || text == "classmethod" || text == "property") continue;
    applied = file_.refs.call(it->second, {applied}, {}, {}, false);
    if (quiet() || it->second == kNoRef) continue;
    Event& event = emit(EventKind::kCall, it->first);
    event.text = "@" + file_.text.brief(firstNamedChild(file_.pool, it->first));
    event.call = applied;
  }
}

void FunctionLowering::lowerClassBody(std::int32_t class_index, TSNode body, int depth) {
  if (isNull(body) || depth > kMaxNestingDepth) return;
  ClassModel& model = file_.model.classes[static_cast<std::size_t>(class_index)];
  for (Children it(file_.pool, body); it.valid(); it.next()) {
    TSNode statement = it.node();
    if (is(statement, g_.function_definition) || is(statement, g_.decorated_definition) ||
        is(statement, g_.class_definition)) {
      lowerDefinition(statement, true);
      continue;
    }
    if (is(statement, g_.if_statement) || is(statement, g_.try_statement)) {
      for (Children part(file_.pool, statement); part.valid(); part.next()) {
        if (is(part.node(), g_.block)) lowerClassBody(class_index, part.node(), depth + 1);
      }
      continue;
    }
    if (!is(statement, g_.expression_statement)) continue;
    TSNode assignment = firstNamedChild(file_.pool, statement);
    if (!is(assignment, g_.assignment)) continue;
    TSNode target = field(assignment, g_.f_left);
    if (!is(target, g_.identifier)) continue;
    TSNode value = field(assignment, g_.f_right);
    RefId ref = isNull(value) ? annotationRef(field(assignment, g_.f_type)) : quietEval(value).ref;
    if (ref != kNoRef) model.members.emplace_back(std::string(textOf(target)), ref);
  }
}

void FunctionLowering::noteAttributeWrite(TSNode target, RefId object, const ExprInfo& value,
                                          bool augmented) {
  // An augmented write changes the value whatever it adds (`self.step += 1`).
  if (mode_ != Mode::kNormal || object == kNoRef || (value.ref == kNoRef && !augmented)) return;
  AttributeWrite write;
  write.object = object;
  write.name = std::string(textOf(field(target, g_.f_attribute)));
  write.value = value.ref;
  write.function = id_;
  write.range = file_.text.range(target);
  write.augmented = augmented;
  file_.model.attribute_writes.push_back(std::move(write));
}

void FunctionLowering::noteGlobalWrite(TSNode target, const ExprInfo& value, bool augmented) {
  // `global X` then `X = v` in a function: the module's attribute X is written.
  if (mode_ != Mode::kNormal || id_ == 0 || !host_.outer_names.contains(textOf(target))) return;
  if (file_.model.module_name.empty() || !isGlobalDeclared(textOf(target))) return;
  AttributeWrite write;
  write.object = file_.refs.global(file_.model.module_name);
  write.name = std::string(textOf(target));
  write.value = value.ref;
  write.function = id_;
  write.range = file_.text.range(target);
  write.augmented = augmented || value.ref == kNoRef;
  if (write.object != kNoRef) file_.model.attribute_writes.push_back(std::move(write));
}

void FunctionLowering::noteItemWrite(TSNode target, const ExprInfo& base, const ExprInfo& value,
                                     std::string_view key, RefId key_ref, bool augmented) {
  if (mode_ != Mode::kNormal || base.ref == kNoRef) return;
  ElementWrite write;
  write.container = base.ref;
  write.key = std::string(key);
  write.key_ref = key_ref;
  write.value = value.ref;
  write.function = id_;
  write.range = file_.text.range(target);
  write.augmented = augmented;
  file_.model.element_writes.push_back(std::move(write));
}

void FunctionLowering::noteElementWrite(TSNode base_node, const ExprInfo& base, RefId value,
                                        std::int32_t position, std::string_view key) {
  if (mode_ != Mode::kNormal || value == kNoRef) return;
  base_node = unparenthesize(file_.pool, base_node);
  if (!key.empty() && updateContainer(base_node, key, value, 0)) return;
  const ContainerKind kind = position >= 0 || key.empty() ? ContainerKind::kList
                                                          : ContainerKind::kDict;
  std::vector<std::string> keys;
  if (kind == ContainerKind::kDict) keys.emplace_back(key);
  RefId grown = file_.refs.container(kind, {value}, std::move(keys));
  if (is(base_node, g_.identifier)) {
    auto it = bindings_.find(textOf(base_node));
    if (it != bindings_.end()) it->second.ref = file_.refs.join(it->second.ref, grown);
    return;
  }
  // `self.layers.append(block)`: the attribute's container gains an element.
  if (is(base_node, g_.attribute) && base.ref != kNoRef &&
      file_.refs.at(base.ref).kind == Reference::Kind::kAttribute) {
    ExprInfo grown_info;
    grown_info.ref = grown;
    noteAttributeWrite(base_node, file_.refs.at(base.ref).operands[0], grown_info, false);
  }
}

bool FunctionLowering::updateContainer(TSNode node, std::string_view key, RefId value, int depth) {
  if (depth > kMaxAnnotationDepth) return false;
  node = unparenthesize(file_.pool, node);
  if (is(node, g_.identifier)) {
    auto it = bindings_.find(textOf(node));
    if (it == bindings_.end()) return false;
    RefId replaced = file_.refs.updated(it->second.ref, key, value);
    // Under a branch or loop the old value may still be there.
    it->second.ref = conditional_depth_ > 0 ? file_.refs.join(it->second.ref, replaced) : replaced;
    return true;
  }
  if (!is(node, g_.subscript)) return false;
  // d["a"]["b"] = f: d's entry "a" is the updated inner container.
  std::string outer = literalKeyOf(field(node, g_.f_subscript));
  TSNode base = field(node, g_.f_value);
  if (outer.empty() || !is(unparenthesize(file_.pool, base), g_.identifier)) return false;
  auto it = bindings_.find(textOf(unparenthesize(file_.pool, base)));
  if (it == bindings_.end()) return false;
  const std::int32_t position = literalIndex(node);
  RefId inner = file_.refs.updated(file_.refs.element(it->second.ref, position, outer), key, value);
  return updateContainer(base, outer, inner, depth + 1);
}

std::string FunctionLowering::literalKeyOf(TSNode node) const {
  node = unparenthesize(file_.pool, node);
  std::string_view text;
  if (plainStringValue(file_.pool, file_.text, node, text)) return "s:" + std::string(text);
  if (is(node, g_.integer)) return "i:" + std::string(textOf(node));
  return {};
}

void FunctionLowering::noteIteration(TSNode site, RefId iterable) {
  if (quiet() || iterable == kNoRef) return;
  const Reference& reference = file_.refs.at(iterable);
  // Displays, comprehensions and calls of range()/enumerate() are never the program's objects.
  if (reference.kind == Reference::Kind::kContainer || reference.kind == Reference::Kind::kHost) {
    return;
  }
  RefId iterator = file_.refs.call(file_.refs.attribute(iterable, "__iter__"), {}, {}, {}, false);
  RefId next = file_.refs.call(file_.refs.attribute(iterator, "__next__"), {}, {}, {}, false);
  for (RefId call : {iterator, next}) {
    Event& event = emit(EventKind::kCall, site);
    event.api = "iter";
    event.text = file_.text.brief(site);
    event.call = call;
  }
}

void FunctionLowering::noteRaisedClass(TSNode raised, const ExprInfo& info) {
  raised = unparenthesize(file_.pool, raised);
  if (quiet() || isNull(raised) || is(raised, g_.call) || info.ref == kNoRef) return;
  Event& event = emit(EventKind::kCall, raised);
  event.api = "raise";
  event.text = file_.text.brief(raised);
  event.call = file_.refs.call(info.ref, {}, {}, {}, false);
}

void FunctionLowering::noteContainerGrowth(const Callee& callee, const Arguments& arguments) {
  std::string_view name = callee.name;
  if (mode_ != Mode::kNormal || arguments.positional.empty()) return;
  if (name == "append" || name == "appendleft" || name == "add") {
    noteElementWrite(callee.receiver_node, callee.receiver, arguments.positional[0].ref, -1, {});
  } else if (name == "insert" && arguments.positional.size() >= 2) {
    noteElementWrite(callee.receiver_node, callee.receiver, arguments.positional[1].ref, -1, {});
  } else if (name == "update" && arguments.positional[0].ref != kNoRef &&
             file_.refs.at(arguments.positional[0].ref).kind == Reference::Kind::kContainer) {
    // d.update({"a": f}): each literal key as if assigned.
    const Reference display = file_.refs.at(arguments.positional[0].ref);
    for (std::size_t i = 0; i < display.operands.size(); ++i) {
      std::string key = i < display.names.size() ? display.names[i] : std::string();
      noteElementWrite(callee.receiver_node, callee.receiver, display.operands[i], -1, key);
    }
  } else if (name == "extend" || name == "extendleft" || name == "update") {
    noteElementWrite(callee.receiver_node, callee.receiver,
                     file_.refs.element(arguments.positional[0].ref), -1, {});
  } else if (name == "setdefault" && arguments.positional.size() >= 2) {
    noteElementWrite(callee.receiver_node, callee.receiver, arguments.positional[1].ref, -1,
                     literalKeyOf(arguments.syntax.positional[0]));
  }
}

void FunctionLowering::emitDynamicCall(TSNode call, const Arguments& arguments) {
  if (quiet() || call_ref_ == kNoRef) return;
  const Reference& reference = file_.refs.at(call_ref_);
  if (reference.operands.empty() || reference.operands[0] == kNoRef) return;
  Event& event = emit(EventKind::kCall, call);
  event.text = file_.text.brief(call);
  event.call = call_ref_;
  if (host_.once_depth > 0) event.flags |= kFlagRunsOnce;
  fillArguments(event, arguments);
}

bool FunctionLowering::mayBeCaptureContext(RefId ref) const {
  if (ref == kNoRef) return false;
  const Reference& call = file_.refs.at(ref);
  if (call.kind != Reference::Kind::kCall || call.operands.empty() || call.operands[0] == kNoRef) {
    return false;
  }
  const Reference& callee = file_.refs.at(call.operands[0]);
  if (callee.kind != Reference::Kind::kGlobal) return true;
  std::string_view root = std::string_view(callee.name).substr(0, callee.name.find('.'));
  return !isLibraryRoot(root);
}

void FileLowering::collectGlobals() {
  if (final_bindings.empty()) return;
  for (const auto& [name, info] : final_bindings.front()) {
    if (info.ref != kNoRef) model.globals.emplace_back(std::string(name), info.ref);
  }
  std::sort(model.globals.begin(), model.globals.end());
}

}  // namespace graphsafe::python
