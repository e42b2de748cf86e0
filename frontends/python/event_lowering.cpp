// Statements and expressions of one function: the forward walk that binds names, classifies
// values and emits events in evaluation order. Calls are in call_lowering.cpp.
#include <array>
#include <optional>

#include "frontends/python/function_lowering.h"
#include "frontends/python/region_finder.h"

namespace graphsafe::python {

namespace {

// Counts nesting on entry and undoes it on every way out.
class DepthGuard {
 public:
  explicit DepthGuard(int& depth) : depth_(depth) { ++depth_; }
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;
  ~DepthGuard() { --depth_; }

 private:
  int& depth_;
};

std::string operatorApi(std::string_view op) {
  static constexpr std::pair<std::string_view, std::string_view> kNames[] = {
      {"+", "add"}, {"-", "sub"},     {"*", "mul"},    {"/", "truediv"}, {"//", "floordiv"},
      {"%", "mod"}, {"**", "pow"},    {"@", "matmul"}, {"&", "and_"},    {"|", "or_"},
      {"^", "xor"}, {"<<", "lshift"}, {">>", "rshift"}};
  for (const auto& [token, name] : kNames) {
    if (token == op) return "operator." + std::string(name);
  }
  return "operator." + std::string(op);
}

}  // namespace

FunctionLowering::FunctionLowering(FileLowering& file, FunctionId id, Mode mode)
    : file_(file), g_(file.g), id_(id), mode_(mode) {}

void FunctionLowering::run() {
  // Copies: lowering may declare lambdas, which grows the function tables.
  TSNode node = decl().node;
  bool is_lambda = decl().is_lambda;
  if (mode_ == Mode::kNormal) noteParameterReferences();
  bindParameters();
  if (id_ == 0) {
    lowerBlock(file_.root);
  } else if (is_lambda) {
    returns_ = eval(field(node, g_.f_body)).ref;
  } else {
    lowerBlock(field(node, g_.f_body));
  }
  // capture_begin() on a receiver not known to be a CUDAGraph and never ended here: not a
  // capture after all; its events fall back to the region around it.
  for (const OpenCapture& open : open_captures_) {
    if (!open.confirmed) file_.dropRegion(open.region);
  }
  if (mode_ != Mode::kNormal) return;
  file_.model.functions[id_].returns = returns_;
  file_.model.functions[id_].yields = yields_;
  file_.model.functions[id_].is_generator = yields_ != kNoRef;
  file_.model.functions[id_].memoized = isMemoized();
  file_.model.functions[id_].events = std::move(events_);
  file_.model.functions[id_].tests = std::move(tests_);
  file_.model.functions[id_].literal_params = literal_params_;
  if (file_.final_bindings.size() <= id_) file_.final_bindings.resize(id_ + 1);
  file_.final_bindings[id_] = std::move(bindings_);
}

// ---- names and bindings ----------------------------------------------------------------------

void FunctionLowering::bindParameters() {
  const std::size_t count = decl().param_names.size();
  bool has_self = decl().has_self;
  if (has_self) {
    self_class_ = decl().class_index;
    self_name_ = textOf(decl().param_names.front());
  }
  for (std::size_t i = 0; i < count; ++i) {
    std::string_view name = textOf(decl().param_names[i]);
    ExprInfo info;
    info.ref = file_.refs.parameter(id_, i);
    if (i == 0 && has_self) {
      info.object = ObjectKind::kInstance;
      info.class_index = self_class_;
    } else {
      ExprInfo annotation = annotationInfo(decl().param_types[i]);
      if (annotation.value.isTensor()) {
        info.value = tensorValue(ValueOrigin::kParameter);
        Value declared = info.value;
        declared.text = std::string(name);
        file_.model.functions[id_].params[i].declared = std::move(declared);
      } else {
        info.value = unknownValue(paramBit(i));
        info.object = annotation.object;
        info.class_index = annotation.class_index;
      }
    }
    bindings_[name] = std::move(info);
  }
}

ExprInfo FunctionLowering::annotationInfo(TSNode type) {
  ExprInfo info;
  if (isNull(type)) return info;
  TSNode expression = unparenthesize(file_.pool, firstNamedChild(file_.pool, type));
  std::string qualified;
  std::string_view quoted;
  if (plainStringValue(file_.pool, file_.text, expression, quoted)) {
    // A forward reference: "torch.Tensor", or "Tensor" imported from torch.
    std::size_t dot = quoted.find('.');
    const std::string* root = file_.index.imports.find(quoted.substr(0, dot));
    if (root != nullptr) {
      qualified = *root + (dot == std::string_view::npos ? "" : std::string(quoted.substr(dot)));
    }
  } else {
    qualified = importedNameOf(expression);
    if (qualified.empty() && is(expression, g_.identifier)) {
      ExprInfo named;
      if (lookupName(textOf(expression), named) && named.object == ObjectKind::kClass) {
        info.object = ObjectKind::kInstance;
        info.class_index = named.class_index;
      }
      return info;
    }
  }
  std::string_view canonical = canonicalApiName(qualified);
  if (canonical == "torch.Tensor" || canonical == "torch.nn.Parameter") {
    info.value = tensorValue(ValueOrigin::kParameter);
    return info;
  }
  switch (classifyFunction(canonical)) {
    case ApiKind::kCudaGraph:
      info.object = ObjectKind::kCudaGraph;
      break;
    case ApiKind::kStream:
      info.object = ObjectKind::kStream;
      break;
    case ApiKind::kEvent:
      info.object = ObjectKind::kEvent;
      break;
    case ApiKind::kGradScaler:
      info.object = ObjectKind::kGradScaler;
      break;
    case ApiKind::kNnModule:
      info.object = ObjectKind::kNnModule;
      break;
    default:
      break;
  }
  return info;
}

const ExprInfo* FunctionLowering::findLocal(std::string_view name) const {
  auto it = bindings_.find(name);
  return it == bindings_.end() ? nullptr : &it->second;
}

namespace {

bool definedIn(const FileIndex& index, ReferenceBuilder& refs, const FunctionDecl& scope,
               std::string_view name, ExprInfo& out) {
  auto def = scope.defs.find(name);
  if (def != scope.defs.end()) {
    out = ExprInfo{};
    out.function = def->second;
    // The name holds what the decorators made of the function.
    out.ref = refs.function(def->second, !isNull(index.functions[def->second].decorated));
    return true;
  }
  auto cls = scope.classes.find(name);
  if (cls != scope.classes.end()) {
    out = ExprInfo{};
    out.object = ObjectKind::kClass;
    out.class_index = cls->second;
    out.ref = refs.classRef(cls->second);
    return true;
  }
  return false;
}

}  // namespace

bool FunctionLowering::lookupName(std::string_view name, ExprInfo& out) const {
  if (const ExprInfo* local = findLocal(name)) {
    out = *local;
    return true;
  }
  const auto& functions = file_.index.functions;
  if (definedIn(file_.index, file_.refs, functions[id_], name, out)) return true;
  // Enclosing functions (closures), then the module. Class bodies are not scopes for methods.
  for (FunctionId scope = functions[id_].parent; scope != kNoFunction;
       scope = functions[scope].parent) {
    if (scope == 0) {
      if (file_.moduleGlobal(name, out)) {
        // Read from a function: what the module binds it to by the time it runs, whichever
        // statement that is (the program model joins them).
        if (!file_.model.module_name.empty()) {
          out.ref = file_.refs.global(file_.model.module_name + "." + std::string(name));
        }
        return true;
      }
    } else if (scope < file_.final_bindings.size()) {
      const Bindings& outer = file_.final_bindings[scope];
      auto it = outer.find(name);
      if (it != outer.end()) {
        out = it->second;
        return true;
      }
    }
    if (definedIn(file_.index, file_.refs, functions[scope], name, out)) return true;
  }
  if (const std::string* imported = file_.index.imports.find(name)) {
    out = ExprInfo{};
    out.object = ObjectKind::kImported;
    out.imported = *imported;
    out.ref = file_.refs.global(*imported);
    return true;
  }
  return false;
}

void FunctionLowering::bindDefinitionName(TSNode definition) {
  // The name now refers to the function or class (its body is lowered on its own).
  std::string_view name = textOf(field(definition, g_.f_name));
  ExprInfo info;
  if (!name.empty() && definedIn(file_.index, file_.refs, decl(), name, info)) {
    setBinding(name, info);
  }
}

bool FunctionLowering::isShadowed(std::string_view name) const {
  return findLocal(name) != nullptr || file_.index.functions[id_].defs.contains(name);
}

std::string FunctionLowering::importedNameOf(TSNode node) const {
  return importedName(node, file_.pool, file_.text, file_.index.imports,
                      [this](std::string_view name) { return isShadowed(name); });
}

bool FunctionLowering::isSelfName(TSNode node) const {
  return !self_name_.empty() && is(node, g_.identifier) && textOf(node) == self_name_;
}

void FunctionLowering::setBinding(std::string_view name, ExprInfo info) {
  info.value.text.clear();
  forgetNarrowing(name);
  noteBound(name, info);
  noteHostBinding(name);
  auto [it, inserted] = bindings_.try_emplace(name, info);
  if (inserted) return;
  // Straight-line code rebinds; a binding under a branch or loop may not happen, so it joins.
  it->second = conditional_depth_ > 0 ? joinedInfo(it->second, info) : std::move(info);
}

void FunctionLowering::bindTarget(TSNode target, const ExprInfo& info, TSNode value,
                                  bool augmented) {
  target = unparenthesize(file_.pool, target);
  if (isNull(target) || tooDeep(target)) return;
  noteOptimizerBinding(target, value);
  DepthGuard guard(depth_);
  TSSymbol symbol = ts_node_symbol(target);
  if (symbol == g_.identifier) {
    setBinding(textOf(target), info);
    noteBinding(target, info, value, augmented);
    noteHostWrite(target, ExprInfo{}, info, augmented);
    noteGlobalWrite(target, info, augmented);
  } else if (symbol == g_.pattern_list || symbol == g_.tuple_pattern || symbol == g_.list_pattern ||
             symbol == g_.expression_list || symbol == g_.tuple || symbol == g_.list) {
    ExprInfo element = elementOf(info);
    std::int32_t position = 0;
    bool after_splat = false;
    for (Children it(file_.pool, target); it.valid(); it.next(), ++position) {
      bool splat = is(it.node(), g_.list_splat_pattern) || is(it.node(), g_.list_splat);
      after_splat = after_splat || splat;
      // `a, b = pair`: each name holds its position; past a `*rest`, positions are not known.
      element.ref = file_.refs.element(info.ref, after_splat ? -1 : position);
      if (splat) {
        element.ref = file_.refs.container(ContainerKind::kList, {element.ref});
      }
      element.value.ref = element.ref;  // the value model reads the element, not the whole
      bindTarget(it.node(), element, TSNode{});
    }
  } else if (symbol == g_.list_splat_pattern || symbol == g_.list_splat) {
    bindTarget(firstNamedChild(file_.pool, target), withRef(ExprInfo{}, info.ref), TSNode{});
  } else if (symbol == g_.attribute) {
    TSNode object = field(target, g_.f_object);
    RefId object_ref = kNoRef;
    if (isSelfName(object)) {
      recordSelfAttribute(textOf(field(target, g_.f_attribute)), info, value, augmented);
      bindLocalAttribute(target, info);
      ExprInfo self;
      if (lookupName(textOf(object), self)) object_ref = self.ref;
    } else if (!is(object, g_.identifier)) {
      object_ref = eval(object).ref;
    } else {
      ExprInfo named;
      if (lookupName(textOf(object), named)) object_ref = named.ref;
    }
    noteAttributeWrite(target, object_ref, info, augmented);
    if (!augmented && textOf(field(target, g_.f_attribute)) == "grad" && !isNull(value) &&
        is(unparenthesize(file_.pool, value), g_.none)) {
      emitGradReset(target, flowPath(object), file_.text.brief(target) + " = None");
    }
    noteBinding(target, info, value, augmented);
    noteHostWrite(target, ExprInfo{}, info, augmented);
  } else if (symbol == g_.subscript) {
    TSNode base_node = field(target, g_.f_value);
    ExprInfo base = eval(base_node);
    TSNode key{};
    RefId key_ref = kNoRef;
    for (Children it(file_.pool, target); it.valid(); it.next()) {
      if (it.field() != g_.f_subscript) continue;
      // `cache[:, start:end] = kv`: the bounds of a slice written to are shapes too.
      if (is(it.node(), g_.slice)) {
        lowerSlice(it.node(), base, base_node, target);
      } else {
        const RefId ref = eval(it.node()).ref;
        if (isNull(key)) key_ref = ref;
      }
      key = isNull(key) ? it.node() : key;
    }
    const std::int32_t position = literalIndex(target);
    // `x[a:b] = v` writes into x (a tensor's block, a list's items): x gains no element.
    if (!augmented && !is(key, g_.slice)) {
      noteElementWrite(base_node, base, info.ref, position, literalKeyOf(key));
    }
    noteItemWrite(target, base, info, literalKeyOf(key), key_ref, augmented);
    noteSubscriptStore(target, base, info, value, augmented);
    noteHostWrite(target, base, info, augmented);
  }
}

void FunctionLowering::recordSelfAttribute(std::string_view name, const ExprInfo& info,
                                           TSNode value, bool augmented) {
  if (mode_ != Mode::kRecordAttributes || self_class_ < 0 || name.empty()) return;
  AttributeFacts& facts =
      file_.index.classes[static_cast<std::size_t>(self_class_)].attributes[name];
  facts.seen = true;
  bool is_none = !augmented && is(unparenthesize(file_.pool, value), g_.none);
  if (!is_none) {
    ExprInfo recorded = info;
    // Parameters of the method that assigns are not parameters of the method that reads.
    if (recorded.value.kind == ValueKind::kUnknown) recorded.value = unknownValue();
    recorded.value.text.clear();
    recorded.node = TSNode{};
    if (facts.only_none) facts.info = std::move(recorded);
    facts.only_none = false;
    bool tensor = info.value.isTensor();
    facts.tensor_everywhere = facts.tensor_everywhere && tensor;
    facts.any_tensor = facts.any_tensor || tensor;
    facts.constant_everywhere =
        facts.constant_everywhere && info.value.kind == ValueKind::kHostConstant;
    facts.plain_everywhere =
        facts.plain_everywhere && info.object == ObjectKind::kNone && info.function == kNoFunction;
  }
  if (file_.model.functions[id_].name != "__init__" && !file_.isConstructionHelper(id_)) {
    facts.written_after_init = true;
  }
}

ExprInfo FunctionLowering::attributeRead(const AttributeFacts& facts) const {
  ExprInfo read;
  if (facts.only_none) {
    read.value = hostConstant(ValueOrigin::kLiteral);
    return read;
  }
  read.object = facts.info.object;
  read.class_index = facts.info.class_index;
  read.function = facts.info.function;
  read.imported = facts.info.imported;
  read.stream = facts.info.stream;
  if (facts.info.object == ObjectKind::kNnModule) {
    read.leaf = facts.info.leaf;
    read.runs_members = facts.info.runs_members;
  }
  if (facts.tensor_everywhere) {
    read.value = tensorValue();
    read.mask = facts.info.mask;
    read.leaf = facts.info.leaf;
    read.pinned = facts.info.pinned;
  } else if (facts.constant_everywhere) {
    read.value = hostConstant(ValueOrigin::kLiteral);
  }
  return read;
}

ExprInfo FunctionLowering::elementOf(const ExprInfo& info) const {
  ExprInfo element;
  if (info.object == ObjectKind::kTensorTuple || info.value.isTensor()) {
    element.value = tensorValue();
  } else if (info.value.isKnownHost()) {
    element.value = info.value;
  } else {
    element.value = unknownValue(info.value.param_deps);
  }
  return element;
}

namespace {

// A loop variable takes a new value on every iteration, but inside one capture (or one call
// under it) every iteration is recorded: it varies between replays only when the loop runs
// around a capture made once (the program model follows the loop) or its bound itself varies.
Value loopValue(const Value& bound) {
  if (bound.kind == ValueKind::kHostConstant) return hostConstant(ValueOrigin::kLoopVariable);
  if (bound.kind == ValueKind::kHostVarying) return bound;
  return unknownValue(bound.param_deps);
}

}  // namespace

bool FunctionLowering::iteratesParameters(TSNode iterable, bool named) const {
  // m.parameters(), m.buffers() (named: m.named_parameters(), m.named_buffers()) of any
  // receiver, and an optimizer's group["params"]: the tensors a module or optimizer holds.
  TSNode node = unparenthesize(file_.pool, iterable);
  if (is(node, g_.call)) {
    TSNode callee = unparenthesize(file_.pool, field(node, g_.f_function));
    if (!is(callee, g_.attribute)) return false;
    std::string_view method = textOf(field(callee, g_.f_attribute));
    return named ? method == "named_parameters" || method == "named_buffers"
                 : method == "parameters" || method == "buffers";
  }
  if (named || !is(node, g_.subscript)) return false;
  std::string_view key;
  for (Children it(file_.pool, node); it.valid(); it.next()) {
    if (it.field() != g_.f_subscript) continue;
    if (!plainStringValue(file_.pool, file_.text, it.node(), key)) return false;
  }
  return key == "params" && textOf(field(node, g_.f_value)).find("group") != std::string_view::npos;
}

ExprInfo FunctionLowering::loopElement(TSNode iterable, const ExprInfo& info) {
  TSNode node = unparenthesize(file_.pool, iterable);
  ExprInfo element;
  if (is(node, g_.call)) {
    TSNode callee = field(node, g_.f_function);
    if (isUnshadowedBuiltin(callee, "range")) {
      // An int whatever the bound; it varies only if the bound does.
      element.value =
          info.value.isHostVarying() ? info.value : hostConstant(ValueOrigin::kLoopVariable);
      return element;
    }
  }
  if (iteratesParameters(iterable, false)) {
    element.value = tensorValue();
    element.leaf = true;
    return element;
  }
  if (info.value.isTensor() || info.object == ObjectKind::kTensorTuple) {
    element.value = tensorValue();
    return element;
  }
  if (is(node, g_.list) || is(node, g_.tuple) || is(node, g_.set)) {
    bool all_host = true;
    bool all_tensor = true;
    bool any = false;
    Value combined = hostConstant();
    for (Children it(file_.pool, node); it.valid(); it.next()) {
      Value value = quietEval(it.node()).value;
      all_host = all_host && value.isKnownHost();
      all_tensor = all_tensor && value.isTensor();
      if (value.isKnownHost()) combined = combineOperands(combined, value);
      any = true;
    }
    if (any && all_host) element.value = loopValue(combined);
    if (any && all_tensor) element.value = tensorValue();
    return element;
  }
  if (info.value.isKnownHost()) element.value = loopValue(info.value);
  return element;
}

void FunctionLowering::bindLoopTarget(TSNode target, TSNode iterable, const ExprInfo& info) {
  // What the loop variable holds, for the program model: an element of the iterable.
  const RefId element_ref = file_.refs.element(info.ref);
  TSNode node = unparenthesize(file_.pool, iterable);
  TSNode pattern = unparenthesize(file_.pool, target);
  bool is_pattern =
      is(pattern, g_.pattern_list) || is(pattern, g_.tuple_pattern) || is(pattern, g_.list_pattern);
  if (is_pattern && is(node, g_.call)) {
    TSNode callee = field(node, g_.f_function);
    bool enumerate = isUnshadowedBuiltin(callee, "enumerate");
    bool zip = !enumerate && isUnshadowedBuiltin(callee, "zip");
    if (iteratesParameters(node, true)) {
      // for name, p in m.named_parameters(): a name, then a tensor.
      std::size_t index = 0;
      for (Children it(file_.pool, pattern); it.valid(); it.next(), ++index) {
        ExprInfo element;
        element.value = index == 0 ? hostConstant(ValueOrigin::kLoopVariable) : tensorValue();
        element.leaf = index != 0;
        element.ref = index == 0 ? file_.refs.host() : file_.refs.tensor();
        bindTarget(it.node(), element, TSNode{});
      }
      return;
    }
    if (enumerate || zip) {
      CallArguments arguments;
      readArguments(file_.pool, file_.text, field(node, g_.f_arguments), arguments);
      std::size_t index = 0;
      for (Children it(file_.pool, pattern); it.valid(); it.next(), ++index) {
        ExprInfo element;
        if (enumerate && index == 0) {
          element.value = hostConstant(ValueOrigin::kLoopVariable);
          element.ref = file_.refs.host();
        } else {
          std::size_t source = enumerate ? 0 : index;
          if (source < arguments.positional.size()) {
            TSNode argument = arguments.positional[source];
            ExprInfo iterated = quietEval(argument);
            element = loopElement(argument, iterated);
            element.ref = file_.refs.element(iterated.ref);
          }
        }
        bindTarget(it.node(), element, TSNode{});
      }
      return;
    }
  }
  bindTarget(target, withRef(loopElement(iterable, info), element_ref), TSNode{});
}

// ---- statements ------------------------------------------------------------------------------

bool FunctionLowering::tooDeep(TSNode node) {
  if (depth_ < kMaxNestingDepth) return false;
  // What is nested deeper is not analyzed: the file says so once, at the first place.
  if (file_.nesting_cut_line < 0) {
    file_.nesting_cut_line = static_cast<std::int32_t>(ts_node_start_point(node).row);
  }
  return true;
}

void FunctionLowering::lowerBlock(TSNode block) {
  if (isNull(block) || tooDeep(block)) return;
  DepthGuard guard(depth_);
  std::size_t eager_from = events_.size();
  bool eager = false;
  bool once = false;
  const NarrowMark narrowed = narrowMark();
  for (Children it(file_.pool, block); it.valid(); it.next()) {
    std::size_t before = events_.size();
    lowerStatement(it.node());
    if (!eager && exitsUnderCapture(it.node(), before)) {
      eager = true;
      eager_from = events_.size();
    }
    // `if md.initialized: return` ... `md.initialized = True`: the rest runs on the first call.
    if (!once && returnsOnceDone(it.node(), block)) {
      once = true;
      ++host_.once_depth;
      ++host_.lazy_depth;
      noteOnceBlock(ts_node_end_byte(it.node()), ts_node_end_byte(block));
    }
    narrowAfter(it.node());
  }
  if (once) {
    --host_.once_depth;
    --host_.lazy_depth;
  }
  endNarrowing(narrowed);
  if (eager) markEagerOnly(eager_from, events_.size());
}

void FunctionLowering::lowerConditionalBlock(TSNode block) {
  ++conditional_depth_;
  lowerBlock(block);
  --conditional_depth_;
}

void FunctionLowering::lowerStatement(TSNode node) {
  if (tooDeep(node)) return;
  DepthGuard guard(depth_);
  TSSymbol symbol = ts_node_symbol(node);
  if (symbol == g_.expression_statement) {
    lowerExpressionStatement(node);
  } else if (symbol == g_.return_statement) {
    TSNode value = firstNamedChild(file_.pool, node);
    ExprInfo returned = isNull(value) ? withRef(ExprInfo{}, file_.refs.none()) : eval(value);
    noteReturnValue(returned);
    noteReturnedOutput(value, returned);
    noteReturn(node);
  } else if (symbol == g_.raise_statement) {
    TSNode raised = firstNamedChild(file_.pool, node);
    ExprInfo info = eval(raised);
    for (Children it(file_.pool, node); it.valid(); it.next()) {
      if (it.node().id != raised.id) eval(it.node());  // `from cause`
    }
    noteRaisedClass(raised, info);
  } else if (symbol == g_.delete_statement) {
    evalChildren(node);
    noteDelete(node);
  } else if (symbol == g_.if_statement) {
    lowerIf(node);
  } else if (symbol == g_.for_statement) {
    lowerFor(node);
  } else if (symbol == g_.while_statement) {
    lowerWhile(node);
  } else if (symbol == g_.with_statement) {
    lowerWith(node);
  } else if (symbol == g_.try_statement) {
    lowerTry(node);
  } else if (symbol == g_.match_statement) {
    lowerMatch(node);
  } else if (symbol == g_.assert_statement) {
    Children it(file_.pool, node);
    if (it.valid()) {
      std::size_t before = events_.size();
      condition(it.node());
      // A check, not a choice of work: rules about frozen branches tell the two apart.
      for (std::size_t i = before; i < events_.size(); ++i) {
        if (events_[i].kind == EventKind::kBranch) events_[i].api = "assert";
      }
      it.next();
      if (it.valid()) eval(it.node());
    }
  } else if (symbol == g_.function_definition || symbol == g_.decorated_definition ||
             symbol == g_.class_definition) {
    lowerDefinition(node);
  } else if (symbol == g_.global_statement || symbol == g_.nonlocal_statement) {
    noteGlobalDeclaration(node);
  } else if (symbol == g_.block || ts_node_is_error(node)) {
    lowerBlock(node);  // recovered code: lower what tree-sitter kept
  }
}

void FunctionLowering::lowerExpressionStatement(TSNode node) {
  for (Children it(file_.pool, node); it.valid(); it.next()) {
    TSNode child = it.node();
    TSSymbol symbol = ts_node_symbol(child);
    if (symbol == g_.assignment) {
      lowerAssignment(child);
    } else if (symbol == g_.augmented_assignment) {
      lowerAugmentedAssignment(child);
    } else {
      eval(child);
    }
  }
}

ExprInfo FunctionLowering::lowerAssignment(TSNode node) {
  if (tooDeep(node)) return {};
  DepthGuard guard(depth_);
  TSNode left = field(node, g_.f_left);
  TSNode right = field(node, g_.f_right);
  if (isNull(right)) return {};  // a bare annotation: `x: int`
  if (is(right, g_.assignment)) {
    ExprInfo info = lowerAssignment(right);  // a = b = value
    bindTarget(left, info, field(right, g_.f_right));
    return info;
  }
  // `a, b = x.sum(), 5`: element by element when both sides have the same shape.
  TSNode pattern = unparenthesize(file_.pool, left);
  TSNode values = unparenthesize(file_.pool, right);
  bool is_pattern =
      is(pattern, g_.pattern_list) || is(pattern, g_.tuple_pattern) || is(pattern, g_.list_pattern);
  bool is_sequence = is(values, g_.expression_list) || is(values, g_.tuple) || is(values, g_.list);
  if (is_pattern && is_sequence &&
      ts_node_named_child_count(pattern) == ts_node_named_child_count(values)) {
    std::vector<std::pair<TSNode, ExprInfo>> evaluated;
    std::vector<RefId> elements;
    for (Children it(file_.pool, values); it.valid(); it.next()) {
      evaluated.emplace_back(it.node(), eval(it.node()));
      elements.push_back(evaluated.back().second.ref);
    }
    std::size_t index = 0;
    for (Children it(file_.pool, pattern); it.valid() && index < evaluated.size();
         it.next(), ++index) {
      bindTarget(it.node(), evaluated[index].second, evaluated[index].first);
    }
    // `f, b = c, e = x, y`: the outer targets see the same tuple.
    return withRef({}, file_.refs.container(ContainerKind::kTuple, std::move(elements)));
  }
  std::size_t regions_before = file_.model.regions.size();
  ExprInfo info = eval(right);
  bindTarget(left, info, right);
  noteAssignedRegions(left, right, regions_before);
  noteTypeTestAlias(left, right);
  return info;
}

void FunctionLowering::lowerAugmentedAssignment(TSNode node) {
  TSNode left = field(node, g_.f_left);
  TSNode right = field(node, g_.f_right);
  ExprInfo target = eval(left);
  ExprInfo operand = eval(right);
  ExprInfo result;
  result.value = combineOperands(target.value, operand.value);
  result.object = target.object;
  result.class_index = target.class_index;
  // `x += y` keeps what x is (a list extended, a number grown); only containers gain elements.
  result.ref = target.ref;
  bindTarget(left, result, right, true);
}

void FunctionLowering::lowerIf(TSNode node) {
  std::size_t before = events_.size();
  if (mode_ == Mode::kNormal) file_.model.functions[id_].branches.push_back(file_.text.range(node));
  condition(field(node, g_.f_condition));
  markGuard(node, before);
  bool once = runsOnce(node, before);
  // 1: the body runs only under capture, the other sides only outside; -1: the body only outside.
  const int sense = captureSense(field(node, g_.f_condition), before, 0);
  // Per if/elif clause: where its condition's events start and end, and where its body's end.
  std::vector<std::array<std::size_t, 3>> clauses{{before, events_.size(), 0}};
  host_.once_depth += once ? 1 : 0;
  const bool lazy = once && !isCaptureOnly(field(node, g_.f_condition), before);
  const std::size_t keys_before = host_.cache_keys.size();
  if (lazy) {
    ++host_.lazy_depth;
    noteCacheKeys(field(node, g_.f_condition), host_.cache_keys);
    if (host_.cache_keys.size() > keys_before && !quiet()) {
      file_.model.functions[id_].cache_guards.push_back(
          {file_.text.range(field(node, g_.f_consequence)),
           {host_.cache_keys.begin() + static_cast<std::ptrdiff_t>(keys_before),
            host_.cache_keys.end()}});
    }
  }
  NarrowMark narrowed = narrowBy(field(node, g_.f_condition), true);
  bool tests_none = false;
  const std::string none_tested = noneTestedPath(field(node, g_.f_condition), tests_none);
  const std::size_t none_before = none_paths_.size();
  if (!none_tested.empty() && tests_none) none_paths_.push_back(none_tested);
  lowerConditionalBlock(field(node, g_.f_consequence));
  if (once) {
    TSNode body = field(node, g_.f_consequence);
    if (!isNull(body)) noteOnceBlock(ts_node_start_byte(body), ts_node_end_byte(body));
  }
  none_paths_.resize(none_before);
  if (!none_tested.empty() && !tests_none) none_paths_.push_back(none_tested);  // the other sides
  endNarrowing(narrowed);
  host_.once_depth -= once ? 1 : 0;
  if (lazy) {
    --host_.lazy_depth;
    host_.cache_keys.resize(keys_before);
  }
  clauses.back()[2] = events_.size();
  if (sense == -1) markEagerOnly(clauses.back()[1], events_.size());
  if (once && isCaptureOnly(field(node, g_.f_condition), before)) {
    markCaptureOnlyCalls(clauses.back()[1], events_.size());
  }
  const std::size_t alternatives = events_.size();
  narrowed = narrowBy(field(node, g_.f_condition), false);
  for (Children it(file_.pool, node); it.valid(); it.next()) {
    if (it.field() != g_.f_alternative) continue;
    TSNode clause = it.node();
    if (is(clause, g_.elif_clause)) {
      std::size_t condition_begin = events_.size();
      condition(field(clause, g_.f_condition));
      clauses.push_back({condition_begin, events_.size(), 0});
      NarrowMark clause_narrowed = narrowBy(field(clause, g_.f_condition), true);
      lowerConditionalBlock(field(clause, g_.f_consequence));
      endNarrowing(clause_narrowed);
      narrowBy(field(clause, g_.f_condition), false);  // the later clauses
      clauses.back()[2] = events_.size();
    } else if (is(clause, g_.else_clause)) {
      lowerConditionalBlock(field(clause, g_.f_body));
    }
  }
  none_paths_.resize(none_before);
  endNarrowing(narrowed);
  if (sense == 1) markEagerOnly(alternatives, events_.size());
  for (const auto& [condition_begin, condition_end, side_end] : clauses) {
    markCaptureBranch(condition_begin, condition_end, side_end, events_.size());
  }
}

void FunctionLowering::lowerWhile(TSNode node) {
  noteLoop(node);
  condition(field(node, g_.f_condition));
  lowerConditionalBlock(field(node, g_.f_body));
  TSNode alternative = field(node, g_.f_alternative);
  if (!isNull(alternative)) lowerConditionalBlock(field(alternative, g_.f_body));
}

void FunctionLowering::lowerFor(TSNode node) {
  noteLoop(node);
  TSNode left = field(node, g_.f_left);
  TSNode right = field(node, g_.f_right);
  ExprInfo iterable = eval(right);
  noteIteration(right, iterable.ref);
  if (!quiet() && !isNull(right)) {
    Event& event = emit(EventKind::kLoop, right);
    event.api = "for";
    event.text = file_.text.brief(right);
    event.subject = described(iterable.value, right);
    event.target = file_.text.brief(left);
    event.trips = tripsOf(right, 0);
  }
  const std::size_t targets_from = events_.size();
  bindLoopTarget(left, right, iterable);
  // The loop's own targets: bound anew by every iteration.
  for (std::size_t e = targets_from; e < events_.size(); ++e) {
    if (events_[e].kind == EventKind::kBind) events_[e].api = "for";
  }
  noteSubmoduleLoop(left, right);
  lowerConditionalBlock(field(node, g_.f_body));
  TSNode alternative = field(node, g_.f_alternative);
  if (!isNull(alternative)) lowerConditionalBlock(field(alternative, g_.f_body));
}

void FunctionLowering::lowerWith(TSNode node) {
  std::vector<std::int32_t> opened;
  std::size_t streams = 0;
  const std::size_t contexts = file_.model.functions[id_].contexts.size();
  for (Children clause(file_.pool, node); clause.valid(); clause.next()) {
    if (!is(clause.node(), g_.with_clause)) continue;
    for (Children item(file_.pool, clause.node()); item.valid(); item.next()) {
      if (!is(item.node(), g_.with_item)) continue;
      TSNode value = field(item.node(), g_.f_value);
      TSNode target{};
      if (is(value, g_.as_pattern)) {
        TSNode alias = field(value, g_.f_alias);
        if (!isNull(alias)) target = firstNamedChild(file_.pool, alias);
        value = firstNamedChild(file_.pool, value);
      }
      TSNode expression = unparenthesize(file_.pool, value);
      if (is(expression, g_.tuple) && isNull(target)) {
        // with (a, torch.cuda.graph(g)): as one parenthesized tuple
        for (Children element(file_.pool, expression); element.valid(); element.next()) {
          lowerWithItem(unparenthesize(file_.pool, element.node()), TSNode{}, opened, streams);
        }
      } else {
        lowerWithItem(expression, target, opened, streams);
      }
    }
  }
  const std::size_t entered = file_.model.functions[id_].contexts.size() - contexts;
  // A capture opened under a run-once guard (`if self.graph is None:`) is a lazy capture: what
  // it runs is captured work, not a cache being filled.
  const int once_depth = host_.once_depth;
  if (!opened.empty()) host_.once_depth = 0;
  lowerBlock(field(node, g_.f_body));
  host_.once_depth = once_depth;
  closeContextBlocks(contexts, entered, node);
  for (auto it = opened.rbegin(); it != opened.rend(); ++it) {
    noteRegionSpan(*it, file_.text.range(node));
    popRegion(*it);
  }
  stream_stack_.resize(stream_stack_.size() - std::min(streams, stream_stack_.size()));
}

void FunctionLowering::lowerWithItem(TSNode item, TSNode target, std::vector<std::int32_t>& regions,
                                     std::size_t& streams) {
  if (is(item, g_.call)) {
    std::string qualified = importedNameOf(unparenthesize(file_.pool, field(item, g_.f_function)));
    ApiKind kind =
        qualified.empty() ? ApiKind::kNone : classifyFunction(canonicalApiName(qualified));
    if (kind == ApiKind::kGraphContext || kind == ApiKind::kStreamContext) {
      Arguments& arguments = argumentsSlot();
      evalArguments(field(item, g_.f_arguments), arguments);  // evaluated before the capture
      if (kind == ApiKind::kStreamContext) {
        TSNode stream = arguments.syntax.find("stream", 0);
        streamContext(item, arguments);
        noteStreamBlock(item, stream);
        stream_stack_.push_back(isNull(stream) ? std::string_view{} : textOf(stream));
        ++streams;
      } else {
        openWithRegion(item, arguments.syntax, CaptureRegion::Pending::kNo, kNoRef, regions);
      }
      --argument_depth_;
      if (!isNull(target)) bindTarget(target, ExprInfo{}, TSNode{});
      return;
    }
    noteAutocastBlock(item, canonicalApiName(qualified));
  }
  ExprInfo info = eval(item);
  if (info.object == ObjectKind::kGraphContext && !isNull(info.node)) {
    // `ctx = torch.cuda.graph(g, pool=p) if shared else torch.cuda.graph(g)`, then `with ctx:`
    CallArguments syntax;
    readArguments(file_.pool, file_.text, field(info.node, g_.f_arguments), syntax);
    openWithRegion(item, syntax, CaptureRegion::Pending::kNo, kNoRef, regions);
  } else if (is(item, g_.call) && mayBeCaptureContext(info.ref)) {
    // `with runner.capture():` on a function of the program: a capture if the program model
    // finds a @contextmanager there whose yield is under one.
    openWithRegion(item, CallArguments{}, CaptureRegion::Pending::kCaptureContext, info.ref,
                   regions);
  }
  if (!isNull(target)) bindTarget(target, info, item);
}

void FunctionLowering::openWithRegion(TSNode item, const CallArguments& syntax,
                                      CaptureRegion::Pending pending, RefId pending_ref,
                                      std::vector<std::int32_t>& regions) {
  if (quiet()) return;
  CaptureRegion region;
  region.kind = RegionKind::kGraphContext;
  region.site = file_.text.range(item);
  region.function = id_;
  region.pending = pending;
  region.pending_ref = pending_ref;
  region.pending_scope = id_;
  noteLazyCapture(region);
  noteCaptureGuard(region, item);
  if (pending == CaptureRegion::Pending::kNo) describeGraphContext(file_.text, syntax, region);
  std::int32_t index = file_.addRegion(std::move(region), currentRegion());
  region_stack_.push_back(index);
  regions.push_back(index);
  openRegionExtent(index, item);
}

void FunctionLowering::lowerTry(TSNode node) {
  for (Children it(file_.pool, node); it.valid(); it.next()) {
    TSNode child = it.node();
    if (is(child, g_.block)) {
      lowerBlock(child);  // the try body
    } else if (is(child, g_.except_clause) || is(child, g_.else_clause)) {
      for (Children part(file_.pool, child); part.valid(); part.next()) {
        if (is(part.node(), g_.block)) lowerConditionalBlock(part.node());
      }
    } else if (is(child, g_.finally_clause)) {
      for (Children part(file_.pool, child); part.valid(); part.next()) {
        if (is(part.node(), g_.block)) lowerBlock(part.node());
      }
    }
  }
}

void FunctionLowering::lowerMatch(TSNode node) {
  eval(field(node, g_.f_subject));
  TSNode body = field(node, g_.f_body);
  if (isNull(body)) return;
  for (Children clause(file_.pool, body); clause.valid(); clause.next()) {
    if (!is(clause.node(), g_.case_clause)) continue;
    for (Children part(file_.pool, clause.node()); part.valid(); part.next()) {
      if (is(part.node(), g_.if_clause)) {
        condition(firstNamedChild(file_.pool, part.node()));
      } else if (is(part.node(), g_.block)) {
        lowerConditionalBlock(part.node());
      }
    }
  }
}

// ---- expressions -----------------------------------------------------------------------------

ExprInfo FunctionLowering::eval(TSNode node) {
  if (isNull(node) || tooDeep(node)) return {};
  DepthGuard guard(depth_);
  ExprInfo info = dispatch(node);
  // A flag the configuration declares as "is the stream being captured?" (capture-flags).
  if (!file_.settings.capture_flags.empty() && isCaptureFlag(node)) {
    info.value = hostVarying(ValueOrigin::kCaptureQuery);
  }
  // Every value an event carries names its expression, for the program model to evaluate.
  info.value.ref = info.ref;
  return info;
}

ExprInfo FunctionLowering::quietEval(TSNode node) {
  ++quiet_depth_;
  ExprInfo info = eval(node);
  --quiet_depth_;
  return info;
}

ExprInfo FunctionLowering::dispatch(TSNode node) {
  TSSymbol symbol = ts_node_symbol(node);
  if (symbol == g_.identifier) return localRead(node, evalIdentifier(node));
  if (symbol == g_.attribute) return evalAttribute(node);
  if (symbol == g_.call) return noteCallResult(node, evalCall(node));
  if (symbol == g_.subscript) return evalSubscript(node);
  if (symbol == g_.binary_operator) return evalBinary(node);
  if (symbol == g_.comparison_operator) return evalComparison(node);
  if (symbol == g_.parenthesized_expression) return eval(firstNamedChild(file_.pool, node));
  if (symbol == g_.integer || symbol == g_.float_literal || symbol == g_.true_literal ||
      symbol == g_.false_literal || symbol == g_.none || symbol == g_.ellipsis) {
    ExprInfo info;
    info.value = hostConstant(ValueOrigin::kLiteral);
    info.ref = symbol == g_.none            ? file_.refs.none()
               : symbol == g_.integer       ? file_.refs.host(literalKeyOf(node))
               : symbol == g_.true_literal  ? file_.refs.host("True")
               : symbol == g_.false_literal ? file_.refs.host("False")
                                            : file_.refs.host();
    return info;
  }
  if (symbol == g_.string) return withStringFacts(node, evalString(node));
  if (symbol == g_.concatenated_string) {
    bool constant = true;
    for (Children it(file_.pool, node); it.valid(); it.next()) {
      constant = evalString(it.node()).value.kind == ValueKind::kHostConstant && constant;
    }
    ExprInfo info;
    if (constant) info.value = hostConstant(ValueOrigin::kLiteral);
    return info;
  }
  if (symbol == g_.unary_operator) {
    ExprInfo operand = eval(field(node, g_.f_argument));
    ExprInfo info;
    info.value =
        operand.value.isKnownHost() ? hostResultOf(operand.value) : tensorResultOf(operand.value);
    info.mask = operand.mask;  // ~mask
    info.ref = file_.refs.operation({operand.ref});
    return info;
  }
  if (symbol == g_.boolean_operator) {
    // In a value, only the left operand is tested for truth (`x = a or default`).
    ExprInfo left = condition(field(node, g_.f_left));
    ExprInfo right = eval(field(node, g_.f_right));
    ExprInfo info;
    info.value = joinValues(left.value, right.value);
    info.ref = file_.refs.join(left.ref, right.ref);
    return info;
  }
  if (symbol == g_.not_operator) {
    ExprInfo operand = condition(field(node, g_.f_argument));
    ExprInfo info;
    info.value = hostResultOf(operand.value);
    info.ref = file_.refs.operation({operand.ref}, true);
    return info;
  }
  if (symbol == g_.conditional_expression) return evalConditional(node);
  if (symbol == g_.named_expression) {
    ExprInfo info = eval(field(node, g_.f_value));
    TSNode name = field(node, g_.f_name);
    if (is(name, g_.identifier)) setBinding(textOf(name), info);
    return info;
  }
  if (symbol == g_.list || symbol == g_.tuple || symbol == g_.set || symbol == g_.expression_list) {
    return evalSequence(node);
  }
  if (symbol == g_.list_comprehension || symbol == g_.set_comprehension ||
      symbol == g_.dictionary_comprehension || symbol == g_.generator_expression) {
    return evalComprehension(node);
  }
  if (symbol == g_.lambda) {
    ExprInfo info;
    info.node = node;  // its body runs when called, not here
    info.ref = file_.refs.function(file_.lambdaFunction(node, id_), false);
    return info;
  }
  if (symbol == g_.yield) return lowerYield(node);
  if (symbol == g_.dictionary) return evalDictionary(node);
  if (symbol == g_.pair || symbol == g_.await || symbol == g_.list_splat ||
      symbol == g_.dictionary_splat || symbol == g_.parenthesized_list_splat ||
      symbol == g_.slice || symbol == g_.as_pattern || symbol == g_.keyword_argument) {
    return evalChildren(node);
  }
  return {};
}

ExprInfo FunctionLowering::evalChildren(TSNode node) {
  for (Children it(file_.pool, node); it.valid(); it.next()) eval(it.node());
  return {};
}

ExprInfo FunctionLowering::condition(TSNode node) {
  node = unparenthesize(file_.pool, node);
  if (isNull(node) || tooDeep(node)) return {};
  DepthGuard guard(depth_);
  TSSymbol symbol = ts_node_symbol(node);
  if (symbol == g_.boolean_operator) {
    // Each operand of a condition is tested for truth on its own; the right one runs only when
    // the left one holds (`and`) or does not (`or`).
    ExprInfo left = condition(field(node, g_.f_left));
    NarrowMark narrowed =
        narrowBy(field(node, g_.f_left), textOf(field(node, g_.f_operator)) == "and");
    ExprInfo right = condition(field(node, g_.f_right));
    endNarrowing(narrowed);
    ExprInfo info;
    info.value = joinValues(left.value, right.value);
    info.ref = file_.refs.operation({left.ref, right.ref}, true);
    info.value.ref = info.ref;
    return info;
  }
  if (symbol == g_.not_operator) {
    ExprInfo operand = condition(field(node, g_.f_argument));
    ExprInfo info;
    info.value = hostResultOf(operand.value);
    info.ref = file_.refs.operation({operand.ref}, true);
    info.value.ref = info.ref;
    return info;
  }
  if (symbol == g_.call && isUnshadowedBuiltin(field(node, g_.f_function), "bool")) {
    // `if bool(x):` is the branch on x, not a separate synchronization.
    TSNode arguments = field(node, g_.f_arguments);
    TSNode only{};
    int count = 0;
    if (is(arguments, g_.argument_list)) {
      for (Children it(file_.pool, arguments); it.valid(); it.next(), ++count) only = it.node();
    }
    if (count == 1 && !is(only, g_.keyword_argument) && !is(only, g_.list_splat) &&
        !is(only, g_.dictionary_splat)) {
      ExprInfo argument = eval(only);
      emitBranch(node, argument.value);
      ExprInfo info;
      info.value = hostResultOf(argument.value);
      info.ref = file_.refs.operation({argument.ref}, true);
      info.value.ref = info.ref;
      return info;
    }
  }
  ExprInfo info = eval(node);
  emitBranch(node, info.value);
  return info;
}

ExprInfo FunctionLowering::evalIdentifier(TSNode node) {
  ExprInfo info;
  if (!lookupName(textOf(node), info)) return withRef({}, unboundNameRef(textOf(node)));
  narrowedRead(textOf(node), info);
  noteNameRead(textOf(node), node, info);
  return info;
}

ExprInfo FunctionLowering::evalAttribute(TSNode node) {
  std::string qualified = importedNameOf(node);
  if (!qualified.empty()) {
    ExprInfo info;
    info.object = ObjectKind::kImported;
    info.ref = file_.refs.global(qualified);
    info.imported = std::move(qualified);
    return info;
  }
  ExprInfo object = eval(field(node, g_.f_object));
  std::string_view name = textOf(field(node, g_.f_attribute));
  return withRef(evalAttributeOf(node, object, name), file_.refs.attribute(object.ref, name));
}

ExprInfo FunctionLowering::evalAttributeOf(TSNode node, const ExprInfo& object,
                                           std::string_view name) {
  ExprInfo info;
  switch (object.object) {
    case ObjectKind::kInstance: {
      if (const AttributeFacts* facts = findAttribute(file_.index, object.class_index, name)) {
        ExprInfo read = attributeRead(*facts);
        if (isSelfName(field(node, g_.f_object))) localAttribute(node, read);
        if (isSelfName(field(node, g_.f_object))) noteNameRead(flowPath(node), node, read);
        return read;
      }
      FunctionId method = findMethod(file_.index, object.class_index, name);
      if (method != kNoFunction) info.function = method;  // a bound method
      return info;
    }
    case ObjectKind::kImported:
      info.object = ObjectKind::kImported;
      info.imported = object.imported + "." + std::string(name);
      return info;
    case ObjectKind::kTensorTuple:
      if (name == "values" || name == "indices") info.value = tensorValue();
      return info;
    case ObjectKind::kNnModule:
      info.leaf = object.leaf && (name == "weight" || name == "bias");
      return info;
    case ObjectKind::kNone:
      break;
    default:
      return info;
  }
  if (isHostAttribute(name)) {
    info.value = hostConstant(ValueOrigin::kNone);
    if (name == "device" && object.value.isTensor()) {
      info.device = object.pageable ? DeviceKind::kCpu : DeviceKind::kCuda;
    } else if (name == "device" && currentRegion() >= 0 && !object.value.isKnownHost() &&
               !object.pageable && !object.pinned && !object.host_memory &&
               object.object == ObjectKind::kNone) {
      // x.device under capture: the tensors a capture computes on are on the GPU.
      info.device = DeviceKind::kCuda;
    }
  } else if (isTensorAttribute(name)) {
    info.value = tensorResultOf(object.value);
  }
  return info;
}

ExprInfo FunctionLowering::evalSubscript(TSNode node) {
  TSNode base_node = field(node, g_.f_value);
  ExprInfo base = eval(base_node);
  Value index = hostConstant(ValueOrigin::kLiteral);
  RefId index_ref = kNoRef;
  const ExprInfo* mask = nullptr;
  ExprInfo mask_info;
  TSNode mask_node{};
  for (Children it(file_.pool, node); it.valid(); it.next()) {
    if (it.field() != g_.f_subscript) continue;
    bool slice = is(it.node(), g_.slice);
    ExprInfo part = slice ? lowerSlice(it.node(), base, base_node, node) : eval(it.node());
    if (!slice) emitIndexUse(it.node(), part, base, base_node, node);
    index_ref = part.ref;
    if (part.mask && mayBeTensor(part.value) && mask == nullptr) {
      mask_info = part;
      mask = &mask_info;
      mask_node = it.node();
    }
    index = combineOperands(index, part.value);
  }
  ExprInfo info;
  {
    // A slice is a container of some of the elements (which ones is not followed), or a view of
    // a tensor: what an operator makes of the base.
    TSNode key = field(node, g_.f_subscript);
    if (!is(key, g_.slice)) {
      info.ref = file_.refs.element(base.ref, literalIndex(node), literalKeyOf(key), index_ref);
    } else if (base.ref != kNoRef) {
      info.ref = file_.refs.operation({base.ref});
    }
  }
  if (base.object == ObjectKind::kTensorTuple || base.value.isTensor()) {
    info.value = tensorValue();
  } else if (base.value.isKnownHost()) {
    // LRS[step]: a host container indexed by a varying index varies.
    info.value = index.isKnownHost() ? combineOperands(base.value, index) : unknownValue();
  } else {
    info.value = unknownValue(base.value.param_deps);
  }
  if (mask != nullptr && !base.value.isKnownHost()) {
    emitSync(node, "torch.Tensor.__getitem__", file_.text.brief(node), mask->value, mask_node,
             kFlagDataDependent | kFlagNeedsTensor);
  }
  return info;
}

ExprInfo FunctionLowering::evalBinary(TSNode node) {
  TSNode left = field(node, g_.f_left);
  TSNode right = field(node, g_.f_right);
  TSNode op = field(node, g_.f_operator);
  if (is(op, g_.op_percent) && (is(left, g_.string) || is(left, g_.concatenated_string))) {
    eval(left);
    return evalStringFormat(node, right);
  }
  ExprInfo lhs = eval(left);
  ExprInfo rhs = eval(right);
  ExprInfo info;
  std::string_view op_text = textOf(op);
  // [0] * n: repeating a list or a string needs an integer, so a tensor count is read back.
  if (op_text == "*") {
    auto sequence = [this](TSNode side) {
      TSNode shown = unparenthesize(file_.pool, side);
      return is(shown, g_.list) || is(shown, g_.tuple) || is(shown, g_.string);
    };
    const bool left_count = sequence(right) && mayBeTensor(lhs.value);
    const bool right_count = sequence(left) && mayBeTensor(rhs.value);
    if (left_count || right_count) {
      emitSync(node, "sequence repetition", file_.text.brief(node),
               left_count ? lhs.value : rhs.value, left_count ? left : right,
               kFlagImplicit | kFlagNeedsTensor);
      info.value = hostResultOf(left_count ? lhs.value : rhs.value);
      return info;
    }
  }
  info.value = combineOperands(lhs.value, rhs.value);
  info.ref = file_.refs.operation({lhs.ref, rhs.ref});
  info.value.ref = info.ref;
  if (op_text == "&" || op_text == "|" || op_text == "^") {
    info.mask = (lhs.mask || rhs.mask) && mayBeTensor(info.value);
  }
  // A host scalar meeting a tensor: later rules look for values frozen into the op. A side only
  // the program model can type (a helper's result) may be the tensor. Between two
  // tensors it is device work all the same, which rules count (GS602's size of a graph).
  auto typable = [](const ExprInfo& side) {
    return mayBeTensor(side.value) ||
           (!side.value.isKnownHost() && side.object == ObjectKind::kNone && side.ref != kNoRef);
  };
  bool tensor_side = typable(lhs) || typable(rhs);
  // x @ w with w a weight: autocast casts w, and may read a cached cast (GS204).
  bool weights = op_text == "@" && (lhs.leaf || rhs.leaf);
  if (!quiet() && (weights || tensor_side)) {
    Event& event = emit(EventKind::kTensorOp, node);
    event.api = operatorApi(op_text);
    event.text = file_.text.brief(node);
    event.subject = described(info.value, node);
    event.args.push_back(described(lhs.value, left));
    event.args.push_back(described(rhs.value, right));
    if (weights) event.flags = kFlagReadsWeights;
  }
  return info;
}

ExprInfo FunctionLowering::evalStringFormat(TSNode node, TSNode right) {
  TSNode values = unparenthesize(file_.pool, right);
  auto check = [&](TSNode operand) {
    ExprInfo info = eval(operand);
    if (mayBeTensor(info.value)) {
      emitSync(node, "str.__mod__", file_.text.brief(node), info.value, operand,
               kFlagImplicit | kFlagNeedsTensor);
    }
  };
  if (is(values, g_.tuple)) {
    for (Children it(file_.pool, values); it.valid(); it.next()) check(it.node());
  } else {
    check(values);
  }
  return {};
}

ExprInfo FunctionLowering::evalComparison(TSNode node) {
  bool structural = false;  // is / is not
  bool membership = false;  // in / not in
  bool first = true;
  bool all_host = true;
  Value combined;
  Value left;
  std::vector<RefId> operands;
  for (Children it(file_.pool, node, true); it.valid(); it.next()) {
    TSNode child = it.node();
    if (it.field() == g_.f_operators) {
      TSSymbol op = ts_node_symbol(child);
      structural = structural || op == g_.op_is || op == g_.op_is_not;
      membership = membership || op == g_.op_in || op == g_.op_not_in;
      continue;
    }
    if (!ts_node_is_named(child) || is(child, g_.comment)) continue;
    Value value = eval(child).value;
    operands.push_back(value.ref);
    all_host = all_host && value.isKnownHost();
    if (first) left = value;
    combined = first ? value : combineOperands(combined, value);
    first = false;
  }
  ExprInfo info;
  // `x is None`, `k in d`: a truth value on the host; `a < b`: what the operands make.
  info.ref = file_.refs.operation(std::move(operands), structural || membership);
  if (structural) {
    info.value = hostConstant(ValueOrigin::kNone);
  } else if (membership) {
    // `key in cache` varies with the key: a container that fills up is a cache being filled.
    if (all_host) info.value = hostResultOf(left);
  } else {
    info.value = combined;
    if (combined.kind == ValueKind::kUnknown && combined.param_deps == 0) info.value = {};
    info.mask = mayBeTensor(info.value);
  }
  return info;
}

ExprInfo FunctionLowering::evalConditional(TSNode node) {
  TSNode parts[3] = {};
  int count = 0;
  for (Children it(file_.pool, node); it.valid() && count < 3; it.next())
    parts[count++] = it.node();
  if (count < 3) return evalChildren(node);
  std::size_t before = events_.size();
  condition(parts[1]);
  std::size_t condition_end = events_.size();
  NarrowMark narrowed = narrowBy(parts[1], true);
  ExprInfo body = eval(parts[0]);
  endNarrowing(narrowed);
  std::size_t body_end = events_.size();
  narrowed = narrowBy(parts[1], false);
  ExprInfo alternative = eval(parts[2]);
  endNarrowing(narrowed);
  markCaptureBranch(before, condition_end, body_end, events_.size());
  ExprInfo joined = joinedInfo(body, alternative);
  // `torch.cuda.graph(g, pool=p) if shared else torch.cuda.graph(g)`: a graph context either way.
  if (body.object == ObjectKind::kGraphContext && alternative.object == ObjectKind::kGraphContext) {
    joined.node = body.node;
  }
  return joined;
}

ExprInfo FunctionLowering::evalString(TSNode node) {
  bool interpolated = false;
  for (Children it(file_.pool, node); it.valid(); it.next()) {
    if (!is(it.node(), g_.interpolation)) continue;
    interpolated = true;
    TSNode expression = field(it.node(), g_.f_expression);
    ExprInfo value = eval(expression);
    if (mayBeTensor(value.value)) {
      emitSync(it.node(), "builtins.format", "f\"{" + file_.text.brief(expression) + "}\"",
               value.value, expression, kFlagImplicit | kFlagNeedsTensor);
    }
  }
  ExprInfo info;
  if (!interpolated) info.value = hostConstant(ValueOrigin::kLiteral);
  info.ref = file_.refs.host(interpolated ? std::string() : literalKeyOf(node));
  return info;
}

ExprInfo FunctionLowering::evalSequence(TSNode node) {
  bool constant = true;
  bool host = true;
  Value varying;
  std::vector<RefId> elements;
  for (Children it(file_.pool, node); it.valid(); it.next()) {
    ExprInfo element = eval(it.node());
    elements.push_back(element.ref);
    Value value = std::move(element.value);
    constant = value.kind == ValueKind::kHostConstant && constant;
    host = value.isKnownHost() && host;
    if (value.isHostVarying() && varying.kind == ValueKind::kUnknown) varying = value;
  }
  ExprInfo info;
  if (constant) info.value = hostConstant(ValueOrigin::kLiteral);
  // (n, hidden) with n varying: a host value that varies with it.
  if (!constant && host) info.value = hostVarying(varying.origin);
  const ContainerKind kind = is(node, g_.list)  ? ContainerKind::kList
                             : is(node, g_.set) ? ContainerKind::kSet
                                                : ContainerKind::kTuple;
  info.ref = file_.refs.container(kind, std::move(elements));
  return info;
}

ExprInfo FunctionLowering::evalComprehension(TSNode node) {
  // Comprehension variables live in their own scope: save what they shadow, restore after.
  std::vector<std::pair<std::string_view, std::optional<ExprInfo>>> saved;
  auto save = [&](auto&& self, TSNode target, int depth) -> void {
    if (isNull(target) || depth > 16) return;
    if (is(target, g_.identifier)) {
      std::string_view name = textOf(target);
      const ExprInfo* previous = findLocal(name);
      saved.emplace_back(name, previous ? std::optional<ExprInfo>(*previous) : std::nullopt);
      return;
    }
    for (Children it(file_.pool, target); it.valid(); it.next()) self(self, it.node(), depth + 1);
  };
  int outer_conditional = conditional_depth_;
  conditional_depth_ = 0;
  for (Children it(file_.pool, node); it.valid(); it.next()) {
    TSNode clause = it.node();
    if (is(clause, g_.for_in_clause)) {
      TSNode right = field(clause, g_.f_right);
      TSNode left = field(clause, g_.f_left);
      ExprInfo iterable = eval(right);
      noteIteration(right, iterable.ref);
      save(save, left, 0);
      bindLoopTarget(left, right, iterable);
    } else if (is(clause, g_.if_clause)) {
      condition(firstNamedChild(file_.pool, clause));
    }
  }
  TSNode body = field(node, g_.f_body);
  RefId element = kNoRef;
  std::vector<std::string> keys;
  TSNode kept = is(body, g_.pair) ? field(body, g_.f_value) : body;
  if (is(body, g_.pair)) eval(field(body, g_.f_key));
  if (is(body, g_.pair)) keys.emplace_back();
  ExprInfo kept_info = eval(kept);
  element = kept_info.ref;
  if (!is(node, g_.generator_expression)) {
    // A list, set or dict comprehension keeps every element it computes, like a loop that
    // appends: `[runner.run(x) for x in batches]` keeps each call's result past the next call.
    noteLoop(node);
    emitStore(is(node, g_.dictionary_comprehension) ? "dict comprehension"
              : is(node, g_.set_comprehension)      ? "set comprehension"
                                                    : "list comprehension",
              std::string(), kept, kept_info);
  }
  conditional_depth_ = outer_conditional;
  for (auto it = saved.rbegin(); it != saved.rend(); ++it) {
    if (it->second) {
      bindings_[it->first] = std::move(*it->second);
    } else {
      bindings_.erase(it->first);
    }
  }
  const ContainerKind kind = is(node, g_.set_comprehension)          ? ContainerKind::kSet
                             : is(node, g_.dictionary_comprehension) ? ContainerKind::kDict
                             : is(node, g_.generator_expression)     ? ContainerKind::kGenerator
                                                                     : ContainerKind::kList;
  return withRef({}, file_.refs.container(kind, {element}, std::move(keys)));
}

// ---- events ----------------------------------------------------------------------------------

Event& FunctionLowering::emit(EventKind kind, TSNode range_node) {
  if (quiet()) {
    scratch_ = Event{};
    return scratch_;
  }
  Event& event = events_.emplace_back();
  event.kind = kind;
  event.range = file_.text.range(range_node);
  event.region = currentRegion();
  event.test = current_test_;
  return event;
}

Value FunctionLowering::described(const Value& value, TSNode node) const {
  Value out = value;
  out.text = isNull(node) ? std::string{} : file_.text.brief(node);
  return out;
}

void FunctionLowering::emitBranch(TSNode node, const Value& subject) {
  if (quiet()) return;
  std::string text = file_.text.brief(node);
  Event& event = emit(EventKind::kBranch, node);
  event.api = "branch";
  event.subject = subject;
  event.subject.text = text;
  event.text = std::move(text);
}

Event& FunctionLowering::emitSync(TSNode range_node, std::string api, std::string text,
                                  const Value& subject, TSNode subject_node, std::uint32_t flags) {
  Event& event = emit(EventKind::kHostSync, range_node);  // a scratch event when quiet
  event.api = std::move(api);
  event.text = std::move(text);
  event.subject = described(subject, subject_node);
  event.flags = flags;
  // Under a lazy initialization: the warm-up's call ran it; a capture finds it done.
  if (host_.once_depth > 0 && host_.lazy_depth > 0) event.flags |= kFlagRunsOnce;
  return event;
}

void FunctionLowering::popRegion(std::int32_t region) {
  for (auto it = region_stack_.rbegin(); it != region_stack_.rend(); ++it) {
    if (*it == region) {
      region_stack_.erase(std::next(it).base());
      return;
    }
  }
}

}  // namespace graphsafe::python
