// What a call means: a function of this file (a call event), a torch API (a tensor, a sync, a
// capture region), a builtin, a method of a known object. The API facts are tables in
// python_apis.cpp; this file decides which table applies.
#include <algorithm>

#include "frontends/python/function_lowering.h"
#include "frontends/python/region_finder.h"

namespace graphsafe::python {

namespace {

// Returns an argument slot to the pool when the call is done with it.
class ArgumentsLease {
 public:
  explicit ArgumentsLease(std::size_t& depth) : depth_(depth) {}
  ArgumentsLease(const ArgumentsLease&) = delete;
  ArgumentsLease& operator=(const ArgumentsLease&) = delete;
  ~ArgumentsLease() { --depth_; }

 private:
  std::size_t& depth_;
};

bool containsIgnoringCase(std::string_view text, std::string_view needle) {
  auto it = std::search(text.begin(), text.end(), needle.begin(), needle.end(), [](char a, char b) {
    return (a >= 'A' && a <= 'Z' ? static_cast<char>(a - 'A' + 'a') : a) == b;
  });
  return it != text.end();
}

std::string_view rootOf(std::string_view qualified) {
  return qualified.substr(0, qualified.find('.'));
}

}  // namespace

const ExprInfo* FunctionLowering::Arguments::find(std::string_view name, int position) const {
  for (std::size_t i = 0; i < syntax.keywords.size() && i < keywords.size(); ++i) {
    if (syntax.keywords[i].first == name) return &keywords[i];
  }
  if (position >= 0 && static_cast<std::size_t>(position) < positional.size()) {
    return &positional[static_cast<std::size_t>(position)];
  }
  return nullptr;
}

FunctionLowering::Arguments& FunctionLowering::argumentsSlot() {
  if (argument_depth_ == argument_slots_.size()) {
    argument_slots_.push_back(std::make_unique<Arguments>());
  }
  return *argument_slots_[argument_depth_++];
}

void FunctionLowering::evalArguments(TSNode arguments, Arguments& out) {
  readArguments(file_.pool, file_.text, arguments, out.syntax);
  out.positional.clear();
  out.keywords.clear();
  for (TSNode node : out.syntax.positional) out.positional.push_back(eval(node));
  for (const auto& keyword : out.syntax.keywords) out.keywords.push_back(eval(keyword.second));
  // f(*args): what is spread is read (and its calls run) though no parameter is known to get it.
  for (TSNode spread : out.syntax.splats) eval(spread);
}

bool FunctionLowering::isUnshadowedBuiltin(TSNode function, std::string_view name) const {
  if (!is(function, g_.identifier) || textOf(function) != name) return false;
  ExprInfo ignored;
  return !lookupName(name, ignored);
}

bool FunctionLowering::isExtraStateFunction(std::string_view qualified) const {
  return std::find(file_.extra_state_functions.begin(), file_.extra_state_functions.end(),
                   qualified) != file_.extra_state_functions.end();
}

void FunctionLowering::emitGradReset(TSNode node, std::string target, std::string text) {
  if (quiet()) return;
  Event& event = emit(EventKind::kGradReset, node);
  event.api = "grad reset";
  event.text = std::move(text);
  for (const std::string& path : none_paths_) {
    if (!event.source.empty()) event.source += ' ';
    event.source += path;
  }
  event.target = std::move(target);
}

void FunctionLowering::emitStateChange(TSNode call, std::string api, std::string text) {
  if (quiet()) return;
  Event& event = emit(EventKind::kStateChange, call);
  event.api = std::move(api);
  event.text = std::move(text);
  if (host_.once_depth > 0) event.flags |= kFlagRunsOnce;
}

bool FunctionLowering::isExtraSyncFunction(std::string_view qualified) const {
  return std::find(file_.extra_sync_functions.begin(), file_.extra_sync_functions.end(),
                   qualified) != file_.extra_sync_functions.end();
}

ExprInfo FunctionLowering::evalCall(TSNode call) {
  Callee callee = resolveCallee(field(call, g_.f_function));
  Arguments& arguments = argumentsSlot();
  ArgumentsLease lease(argument_depth_);
  evalArguments(field(call, g_.f_arguments), arguments);
  // The call as a reference: the kCall event lowering emits for it carries it, and so does
  // the value it returns.
  const RefId ref = callRef(callee.ref, arguments);
  const RefId outer_call = call_ref_;
  call_ref_ = ref;
  ExprInfo result = evalResolvedCall(callee, call, arguments);
  // A tensor whose memory this file knows (a CPU factory, `.cpu()`, `.pin_memory()`) is typed
  // by it across files; any other result by the call.
  result = withRef(std::move(result), memoryRef(result));
  result = withRef(std::move(result), ref);
  call_ref_ = outer_call;
  return result;
}

ExprInfo FunctionLowering::evalResolvedCall(Callee& callee, TSNode call,
                                            const Arguments& arguments) {
  if (callee.kind == Callee::Kind::kValue && isKernelLaunch(field(call, g_.f_function))) {
    return launchKernel(call, arguments);
  }

  switch (callee.kind) {
    case Callee::Kind::kFunction: {
      if (!file_.extra_sync_functions.empty()) {
        const std::string& qualified = file_.model.functions[callee.function].qualified_name;
        if (isExtraSyncFunction(qualified) ||
            isExtraSyncFunction(file_.model.module_name + "." + qualified)) {
          emitSync(call, qualified, file_.text.brief(call), Value{}, TSNode{}, kFlagNone);
        }
      }
      return callFunction(callee.function, call, arguments);
    }
    case Callee::Kind::kClass:
      return construct(callee.class_index, call, arguments);
    case Callee::Kind::kApi:
      return callApi(callee.qualified, call, arguments);
    case Callee::Kind::kBuiltin:
      return callBuiltin(callee, call, arguments);
    case Callee::Kind::kMethod:
      return callMethod(callee, call, arguments);
    case Callee::Kind::kSuperMethod: {
      std::int32_t class_index = decl().class_index;
      if (class_index >= 0) {
        for (std::int32_t base :
             file_.index.classes[static_cast<std::size_t>(class_index)].base_classes) {
          FunctionId method = findMethod(file_.index, base, callee.name);
          if (method != kNoFunction) return callFunction(method, call, arguments);
        }
      }
      // A base in another file: the program model follows the class's bases.
      emitDynamicCall(call, arguments);
      return {};
    }
    case Callee::Kind::kValue:
      return callValue(callee, call, arguments);
    case Callee::Kind::kUnknown:
      // A name no scope binds (brought by a star import, or a builtin lowering has no rule
      // for): the program model looks for it.
      emitDynamicCall(call, arguments);
      break;
  }
  return {};
}

FunctionLowering::Callee FunctionLowering::calleeFromInfo(ExprInfo info) const {
  Callee callee;
  if (info.function != kNoFunction) {
    callee.kind = Callee::Kind::kFunction;
    callee.function = info.function;
  } else if (info.object == ObjectKind::kClass) {
    callee.kind = Callee::Kind::kClass;
    callee.class_index = info.class_index;
  } else if (info.object == ObjectKind::kImported) {
    callee.kind = Callee::Kind::kApi;
    callee.qualified = std::move(info.imported);
  } else {
    callee.kind = Callee::Kind::kValue;
    callee.receiver = std::move(info);
  }
  return callee;
}

FunctionLowering::Callee FunctionLowering::resolveCallee(TSNode function) {
  function = unparenthesize(file_.pool, function);
  Callee callee;
  if (is(function, g_.identifier)) {
    std::string_view name = textOf(function);
    ExprInfo info;
    if (lookupName(name, info)) {
      const RefId ref = info.ref;
      callee = calleeFromInfo(std::move(info));
      callee.receiver_node = function;
      callee.ref = ref;
      return callee;
    }
    callee.ref = unboundNameRef(name);
    callee.builtin = classifyBuiltin(name);
    if (callee.builtin != BuiltinKind::kNone) {
      callee.kind = Callee::Kind::kBuiltin;
      callee.name = name;
    }
    return callee;
  }
  if (is(function, g_.attribute)) {
    std::string qualified = importedNameOf(function);
    if (!qualified.empty()) {
      callee.kind = Callee::Kind::kApi;
      callee.ref = file_.refs.global(qualified);
      callee.qualified = std::move(qualified);
      return callee;
    }
    TSNode object = unparenthesize(file_.pool, field(function, g_.f_object));
    callee.name_node = field(function, g_.f_attribute);
    callee.name = textOf(callee.name_node);
    callee.receiver_node = object;
    if (is(object, g_.call) && isUnshadowedBuiltin(field(object, g_.f_function), "super")) {
      if (!quiet()) {
        auto& called = file_.model.functions[id_].builtin_calls;
        if (std::find(called.begin(), called.end(), "super") == called.end()) {
          called.emplace_back("super");
        }
      }
      callee.kind = Callee::Kind::kSuperMethod;
      callee.ref = file_.refs.attribute(file_.refs.superOf(id_), callee.name);
      return callee;
    }
    callee.receiver = eval(object);
    callee.ref = file_.refs.attribute(callee.receiver.ref, callee.name);
    if (callee.receiver.object == ObjectKind::kClass) {
      // Class.method(obj, ...): the function itself, called unbound.
      FunctionId method = findMethod(file_.index, callee.receiver.class_index, callee.name);
      if (method == kNoFunction) return Callee{};
      callee.kind = Callee::Kind::kFunction;
      callee.function = method;
      return callee;
    }
    if (callee.receiver.object == ObjectKind::kImported) {
      callee.kind = Callee::Kind::kApi;
      callee.qualified = callee.receiver.imported + "." + std::string(callee.name);
      return callee;
    }
    callee.kind = Callee::Kind::kMethod;
    return callee;
  }
  callee.kind = Callee::Kind::kValue;
  callee.receiver = eval(function);
  callee.receiver_node = function;
  callee.ref = callee.receiver.ref;
  return callee;
}

void FunctionLowering::fillArguments(Event& event, const Arguments& arguments) {
  event.arguments_complete = !arguments.syntax.has_splat;
  event.args.reserve(arguments.positional.size());
  for (std::size_t i = 0; i < arguments.positional.size(); ++i) {
    event.args.push_back(described(arguments.positional[i].value, arguments.syntax.positional[i]));
    notePassedParameter(arguments.syntax.positional[i]);
  }
  for (std::size_t i = 0; i < arguments.keywords.size(); ++i) {
    const auto& [name, node] = arguments.syntax.keywords[i];
    event.keywords.push_back({std::string(name), described(arguments.keywords[i].value, node)});
    notePassedParameter(node);
  }
}

ExprInfo FunctionLowering::moduleCallResult(const Arguments& arguments) const {
  std::uint64_t deps = 0;
  auto consider = [&deps](const ExprInfo& info) {
    if (info.value.isTensor()) return true;
    if (info.value.kind == ValueKind::kUnknown) deps |= info.value.param_deps;
    return false;
  };
  ExprInfo result;
  for (const ExprInfo& info : arguments.positional) {
    if (consider(info)) {
      result.value = tensorValue();
      return result;
    }
  }
  for (const ExprInfo& info : arguments.keywords) {
    if (consider(info)) {
      result.value = tensorValue();
      return result;
    }
  }
  result.value = unknownValue(deps);
  return result;
}

ExprInfo FunctionLowering::callFunction(FunctionId function, TSNode call,
                                        const Arguments& arguments) {
  noteFunctionCall(function, call);
  if (!quiet()) {
    Event& event = emit(EventKind::kCall, call);
    event.api = file_.model.functions[function].qualified_name;
    event.text = file_.text.brief(call);
    event.callee = function;
    event.call = call_ref_;
    fillArguments(event, arguments);
    // self.step(x), model(x, mask=m), Block(8): the receiver is the first parameter, however
    // many arguments follow; Class.method(obj, x) passes it explicitly.
    if (file_.index.functions[function].has_self && !isUnboundMethodCall(call)) {
      event.flags |= kFlagBoundMethod;
    }
    if (host_.once_depth > 0) event.flags |= kFlagRunsOnce;
  }
  if (returnsCaptureQuery(function)) {
    ExprInfo answer;
    answer.value = hostVarying(ValueOrigin::kCaptureQuery);
    return answer;
  }
  // model(x) / self.block(x) / block.forward(x): a module's forward returns tensors.
  std::int32_t class_index = file_.index.functions[function].class_index;
  if (class_index >= 0 && file_.model.functions[function].name == "forward") {
    return moduleCallResult(arguments);
  }
  return {};
}

bool FunctionLowering::isUnboundMethodCall(TSNode call) const {
  TSNode callee = unparenthesize(file_.pool, field(call, g_.f_function));
  if (!is(callee, g_.attribute)) return false;
  TSNode object = unparenthesize(file_.pool, field(callee, g_.f_object));
  ExprInfo info;
  return is(object, g_.identifier) && lookupName(textOf(object), info) &&
         info.object == ObjectKind::kClass;
}

ExprInfo FunctionLowering::construct(std::int32_t class_index, TSNode call,
                                     const Arguments& arguments) {
  FunctionId init = findMethod(file_.index, class_index, "__init__");
  if (init != kNoFunction) {
    callFunction(init, call, arguments);
  } else {
    emitDynamicCall(call, arguments);  // __init__ of a base in another file, or a library's
  }
  ExprInfo instance;
  instance.object = ObjectKind::kInstance;
  instance.class_index = class_index;
  return instance;
}

ExprInfo FunctionLowering::callApi(const std::string& qualified, TSNode call,
                                   const Arguments& arguments) {
  std::string_view canonical = canonicalApiName(qualified);
  if (!file_.extra_sync_functions.empty() &&
      (isExtraSyncFunction(qualified) || isExtraSyncFunction(canonical))) {
    emitSync(call, std::string(canonical), file_.text.brief(call), Value{}, TSNode{}, kFlagNone);
    return {};
  }
  if (!file_.extra_state_functions.empty() &&
      (isExtraStateFunction(qualified) || isExtraStateFunction(canonical))) {
    emitStateChange(call, std::string(canonical), file_.text.brief(call));
    return {};
  }
  auto tensor_op = [&](bool mask, std::uint32_t flags = kFlagNone) {
    if (!quiet()) {
      Event& event = emit(EventKind::kTensorOp, call);
      event.api = std::string(canonical);
      event.text = file_.text.brief(call);
      event.flags = flags;
      fillArguments(event, arguments);
    }
    ExprInfo result;
    result.value = tensorValue();
    result.mask = mask;
    return result;
  };
  const ExprInfo* input = arguments.find("input", 0);
  TSNode input_node = arguments.syntax.find("input", 0);
  ExprInfo result;
  if (const ShapeArguments* shape = functionShapeArguments(canonical)) {
    emitShapeUses(*shape, canonical, call, arguments, nullptr, TSNode{});
  }
  switch (classifyFunction(canonical)) {
    case ApiKind::kFactory: {
      ExprInfo memory;
      std::uint32_t flags = factoryCopy(canonical, arguments, memory);
      result = tensor_op(false, flags);
      result.pageable = memory.pageable;
      result.pinned = memory.pinned;
      if (TSNode grad = arguments.syntax.find("requires_grad"); !isNull(grad)) {
        result.leaf = is(unparenthesize(file_.pool, grad), g_.true_literal);
      }
      return result;
    }
    case ApiKind::kLegacyTensor: {
      // torch.cuda.FloatTensor([1.0, 2.0]) copies the list from pageable memory to the device;
      // torch.cuda.FloatTensor(3, 4) only allocates.
      const bool cuda = canonical.starts_with("torch.cuda.");
      bool from_data = false;
      if (!arguments.syntax.positional.empty()) {
        TSNode data = unparenthesize(file_.pool, arguments.syntax.positional[0]);
        from_data = is(data, g_.list) || is(data, g_.tuple) || is(data, g_.list_comprehension);
      }
      result = tensor_op(false, cuda && from_data ? kFlagPageableSource : kFlagNone);
      result.pageable = !cuda && !file_.default_device_may_change;
      return result;
    }
    case ApiKind::kTensorFunction:
      return tensor_op(false, weightFlags(canonical, nullptr, arguments));
    case ApiKind::kParameter:
      result = tensor_op(false);
      result.leaf = true;
      return result;
    case ApiKind::kBoolTensorFunction:
      return tensor_op(true);
    case ApiKind::kTupleFunction:
      result = tensor_op(false);
      result.value = Value{};
      result.object = ObjectKind::kTensorTuple;
      return result;
    case ApiKind::kDataDependent:
      emitSync(call, std::string(canonical), file_.text.brief(call), input ? input->value : Value{},
               input_node, kFlagDataDependent);
      result.value = tensorValue();
      return result;
    case ApiKind::kWhere:
      if (arguments.positional.size() == 1 && arguments.keywords.empty() &&
          !arguments.syntax.has_splat) {
        // torch.where(cond): the indices of the true elements, a data-dependent size.
        emitSync(call, std::string(canonical), file_.text.brief(call),
                 arguments.positional[0].value, arguments.syntax.positional[0], kFlagDataDependent);
        result.object = ObjectKind::kTensorTuple;
        return result;
      }
      return tensor_op(false);
    case ApiKind::kRepeatInterleave: {
      const ExprInfo* repeats = arguments.find("repeats", 1);
      TSNode repeats_node = arguments.syntax.find("repeats", 1);
      if (repeats == nullptr && arguments.positional.size() == 1) {
        repeats = &arguments.positional[0];  // torch.repeat_interleave(repeats)
        repeats_node = arguments.syntax.positional[0];
      }
      // With output_size= the size is given: nothing is read back.
      if (repeats != nullptr && mayBeTensor(repeats->value) &&
          arguments.find("output_size") == nullptr) {
        emitSync(call, std::string(canonical), file_.text.brief(call), repeats->value, repeats_node,
                 kFlagDataDependent | kFlagNeedsTensor);
        result.value = tensorValue();
        return result;
      }
      return tensor_op(false);
    }
    case ApiKind::kDeviceSync:
      emitSync(call, std::string(canonical), file_.text.brief(call), Value{}, TSNode{}, kFlagNone);
      return {};
    case ApiKind::kCaptureQuery:
      if (!quiet()) {
        Event& event = emit(EventKind::kCaptureQuery, call);
        event.api = std::string(canonical);
        event.text = file_.text.brief(call);
      }
      result.value = hostVarying(ValueOrigin::kCaptureQuery);
      return result;
    case ApiKind::kCudaGraph:
      result.object = ObjectKind::kCudaGraph;
      return result;
    case ApiKind::kStream:
    case ApiKind::kCurrentStream:
      result.object = ObjectKind::kStream;
      if (canonical == "torch.cuda.current_stream") result.stream = StreamRole::kCurrent;
      if (canonical == "torch.cuda.default_stream") result.stream = StreamRole::kDefault;
      if (canonical == "torch.cuda.Stream" || canonical == "torch.Stream") {
        result.stream = StreamRole::kCreated;
      }
      return result;
    case ApiKind::kEvent:
      result.object = ObjectKind::kEvent;
      return result;
    case ApiKind::kGradScaler:
      result.object = ObjectKind::kGradScaler;
      return result;
    case ApiKind::kNnModule:
      result.object = ObjectKind::kNnModule;
      result.leaf = hasCastWeights(canonical);
      result.runs_members = canonical == "torch.nn.Sequential";
      return result;
    case ApiKind::kMakeGraphedCallables:
      graphedCallables(call, arguments);
      return {};
    case ApiKind::kCompile: {
      bool graphs = compileUsesCudaGraphs(file_.pool, file_.text, arguments.syntax);
      const ExprInfo* target = arguments.find("model", 0);
      if (target == nullptr) {
        // torch.compile(mode=...) without the function: applied by a later call.
        result.object = ObjectKind::kCompileFactory;
        result.node = call;
        result.graphs = graphs;
        return result;
      }
      if (graphs) {
        compileRegion(*target, call);
      } else if (const ExprInfo* mode = arguments.find("mode");
                 mode != nullptr && mode->ref != kNoRef &&
                 !is(unparenthesize(file_.pool, arguments.syntax.find("mode")), g_.string)) {
        // mode=mode: a capture if the name can hold a mode that captures.
        compileRegion(*target, call, mode->ref);
      }
      return *target;  // the compiled wrapper stands for the function or module it wraps
    }
    case ApiKind::kHostConstantCall:
      if (canonical == "torch.device") return torchDeviceCall(arguments);
      result.value = hostConstant(ValueOrigin::kNone);
      return result;
    case ApiKind::kStateChange:
      emitStateChange(call, std::string(canonical), file_.text.brief(call));
      return result;
    case ApiKind::kHostVaryingCall:
      result.value = hostVarying(ValueOrigin::kHostCall);
      return result;
    case ApiKind::kGraphContext:
      // Bound to a name and entered later (`ctx = torch.cuda.graph(g); with ctx:`).
      result.object = ObjectKind::kGraphContext;
      result.node = call;
      return result;
    case ApiKind::kStreamContext:
      return {};
    case ApiKind::kNone:
      break;
  }
  if (canonical == "torch.cuda.set_stream") {
    streamContext(call, arguments);
    return {};
  }
  if (canonical == "torch.from_numpy") {
    result.value = tensorValue();  // a host tensor sharing the array's memory
    result.pageable = true;
    return result;
  }
  if (canonical == "logging.getLogger") {
    result.object = ObjectKind::kLogger;
    return result;
  }
  if (noteLoggingApi(canonical, call, arguments)) return {};
  if (noteThreadApi(canonical, call, arguments, result)) return result;
  // A function of another analyzed module: the engine resolves it through its index.
  if (!quiet() && !isLibraryRoot(rootOf(qualified))) {
    Event& event = emit(EventKind::kCall, call);
    event.api = qualified;
    event.text = file_.text.brief(call);
    event.callee_qualified = qualified;
    event.call = call_ref_;
    if (host_.once_depth > 0) event.flags |= kFlagRunsOnce;
    fillArguments(event, arguments);
  }
  return {};
}

ExprInfo FunctionLowering::callBuiltin(const Callee& callee, TSNode call,
                                       const Arguments& arguments) {
  const ExprInfo* first = arguments.positional.empty() ? nullptr : &arguments.positional[0];
  TSNode first_node = arguments.positional.empty() ? TSNode{} : arguments.syntax.positional[0];
  std::string api = "builtins." + std::string(callee.name);
  if (!quiet()) {
    auto& called = file_.model.functions[id_].builtin_calls;
    if (std::find(called.begin(), called.end(), callee.name) == called.end()) {
      called.emplace_back(callee.name);
    }
  }
  ExprInfo result;
  switch (callee.builtin) {
    case BuiltinKind::kScalarConversion:
    case BuiltinKind::kStringConversion:
      if (first == nullptr) {
        result.value = hostConstant(ValueOrigin::kLiteral);
        return result;
      }
      if (mayBeTensor(first->value)) {
        emitSync(call, std::move(api), file_.text.brief(call), first->value, first_node,
                 kFlagImplicit | kFlagNeedsTensor);
      }
      result.value = hostResultOf(first->value);
      return result;
    case BuiltinKind::kPrint:
      for (std::size_t i = 0; i < arguments.positional.size(); ++i) {
        if (!mayBeTensor(arguments.positional[i].value)) continue;
        emitSync(call, api, file_.text.brief(call), arguments.positional[i].value,
                 arguments.syntax.positional[i], kFlagImplicit | kFlagNeedsTensor);
      }
      notePrint(call, arguments);
      return {};
    case BuiltinKind::kLen:
      if (first != nullptr) {
        result.value =
            first->value.isTensor() ? hostConstant(ValueOrigin::kNone) : hostResultOf(first->value);
      }
      return result;
    case BuiltinKind::kStructural:
      result.value = hostConstant(ValueOrigin::kNone);
      return result;
    case BuiltinKind::kRange:
    case BuiltinKind::kEnumerate: {
      // range(t): Python needs an integer, so the tensor's value is read back (`__index__`).
      if (callee.builtin == BuiltinKind::kRange) {
        for (std::size_t i = 0; i < arguments.positional.size(); ++i) {
          if (!mayBeTensor(arguments.positional[i].value)) continue;
          emitSync(call, api, file_.text.brief(call), arguments.positional[i].value,
                   arguments.syntax.positional[i], kFlagImplicit | kFlagNeedsTensor);
          break;
        }
      }
      Value bound = hostConstant(ValueOrigin::kLiteral);
      for (const ExprInfo& argument : arguments.positional) {
        bound = argument.value.isTensor() ? Value{} : combineOperands(bound, argument.value);
        if (argument.value.isTensor()) break;
      }
      result.value = bound;
      return result;
    }
    case BuiltinKind::kSuper:
      result.object = ObjectKind::kSuper;
      return result;
    case BuiltinKind::kNone:
      break;
  }
  return {};
}

std::string FunctionLowering::methodText(const Callee& callee, TSNode call) const {
  if (isNull(callee.name_node)) return file_.text.brief(call);
  std::uint32_t begin = ts_node_start_byte(callee.name_node);
  std::uint32_t end = ts_node_end_byte(call);
  std::string_view all = file_.text.all();
  if (begin > end || end > all.size()) return file_.text.brief(call);
  return "." + briefText(all.substr(begin, end - begin));
}

ExprInfo FunctionLowering::callMethod(Callee& callee, TSNode call, const Arguments& arguments) {
  noteFlowMethod(callee, call, arguments);
  noteGraphedUse(callee, call);
  noteThreadMethod(callee, call, arguments);
  std::string_view name = callee.name;
  const ExprInfo& receiver = callee.receiver;
  for (std::string_view method : file_.extra_sync_methods) {
    if (method != name) continue;
    emitSync(call, "." + std::string(name), methodText(callee, call), receiver.value,
             callee.receiver_node, kFlagNotKnownHost);
    return {};
  }
  // opt.zero_grad(), model.zero_grad(): set_to_none is the default since PyTorch 2.0.
  if (name == "zero_grad" && !receiver.value.isKnownHost() && !receiver.value.isTensor()) {
    TSNode set_to_none = arguments.syntax.find("set_to_none", 0);
    if (isNull(set_to_none) || textOf(unparenthesize(file_.pool, set_to_none)) != "False") {
      emitGradReset(call, flowPath(callee.receiver_node), file_.text.brief(call));
    }
  }
  for (std::string_view method : file_.extra_state_methods) {
    if (method != name) continue;
    emitStateChange(call, "." + std::string(name), methodText(callee, call));
    return {};
  }
  ExprInfo result;
  switch (receiver.object) {
    case ObjectKind::kInstance: {
      FunctionId method = findMethod(file_.index, receiver.class_index, name);
      if (method != kNoFunction) return callFunction(method, call, arguments);
      if (const AttributeFacts* facts = findAttribute(file_.index, receiver.class_index, name)) {
        // self.proj(h): calling what an attribute holds (a submodule, a stored function).
        Callee held;
        held.kind = Callee::Kind::kValue;
        held.receiver = attributeRead(*facts);
        held.receiver_node = callee.name_node;
        return callValue(held, call, arguments);
      }
      if ((name == "register_buffer" || name == "register_parameter") &&
          isSelfName(callee.receiver_node) && arguments.positional.size() >= 2) {
        std::string_view attribute;
        if (plainStringValue(file_.pool, file_.text, arguments.syntax.positional[0], attribute)) {
          recordSelfAttribute(attribute, arguments.positional[1], arguments.syntax.positional[1],
                              false);
        }
        return {};
      }
      if (name == "compile" && compileUsesCudaGraphs(file_.pool, file_.text, arguments.syntax)) {
        compileRegion(receiver, call);  // model.compile(mode="reduce-overhead")
        return {};
      }
      if (isModuleChainingMethod(name)) return receiver;
      // A method of a base in another file: the program model follows the bases.
      emitDynamicCall(call, arguments);
      return {};
    }
    case ObjectKind::kNnModule:
      if (name == "forward") {
        noteModuleCall(receiver, call);
        if (receiver.runs_members) emitDynamicCall(call, arguments);
        return moduleCallResult(arguments);
      }
      if (isModuleChainingMethod(name)) return receiver;
      return {};
    case ObjectKind::kCudaGraph:
      if (name == "capture_begin") captureBegin(callee, call, arguments);
      if (name == "capture_end") captureEnd(callee);
      return {};
    case ObjectKind::kStream:
    case ObjectKind::kEvent:
      if (lowerStreamMethod(callee, call, arguments)) return result;
      if (name == "synchronize" || name == "query") {
        std::string api =
            receiver.object == ObjectKind::kStream ? "torch.cuda.Stream." : "torch.cuda.Event.";
        emitSync(call, api + std::string(name), file_.text.brief(call), receiver.value,
                 callee.receiver_node, kFlagNone);
        if (name == "query") result.value = hostVarying(ValueOrigin::kHostCall);
      }
      return result;
    case ObjectKind::kGradScaler:
      if (name == "step" || name == "update") {
        emitSync(call, "torch.amp.GradScaler." + std::string(name), file_.text.brief(call),
                 receiver.value, callee.receiver_node, kFlagNone);
        return {};
      }
      if (name == "scale") return moduleCallResult(arguments);
      if (name == "unscale_") {
        emitStateChange(call, "torch.amp.GradScaler.unscale_", file_.text.brief(call));
      }
      return {};
    case ObjectKind::kNone:
      if ((name == "capture_begin" || name == "capture_end") && !receiver.value.isTensor()) {
        if (name == "capture_begin") captureBegin(callee, call, arguments);
        if (name == "capture_end") captureEnd(callee);
        return {};
      }
      if (noteLoggerMethod(callee, call, arguments)) return {};
      noteContainerMethod(callee, call, arguments);
      noteContainerGrowth(callee, arguments);
      if (!receiver.value.isTensor() && lowerStreamMethod(callee, call, arguments)) return {};
      // A method of an object this file cannot type (an attribute, a parameter, a call's
      // result): the program model may. A name tensors have (`view`, `split`) is taken for the
      // tensor method it most likely is.
      if (!receiver.value.isTensor() && classifyTensorMethod(name) == MethodKind::kNone) {
        emitDynamicCall(call, arguments);
      }
      return callTensorMethod(callee, call, arguments);
    case ObjectKind::kLogger:
      noteLoggerMethod(callee, call, arguments);
      return {};
    default:
      return {};
  }
}

ExprInfo FunctionLowering::callTensorMethod(const Callee& callee, TSNode call,
                                            const Arguments& arguments) {
  std::string_view name = callee.name;
  const ExprInfo& receiver = callee.receiver;
  bool tensorish = mayBeTensor(receiver.value);
  // A copy to the device from a tensor this file cannot place: the program model may.
  RefId copy_source = kNoRef;
  auto tensor_op = [&](std::uint32_t flags = kFlagNone) {
    if (quiet()) return;
    if (!tensorish) {
      // Not known to be a tensor here; a copy of it still is one where the model types it.
      if (copy_source == kNoRef) return;
      flags |= kFlagUntypedReceiver;
    }
    Event& event = emit(EventKind::kTensorOp, call);
    event.api = "torch.Tensor." + std::string(name);
    event.text = file_.text.brief(call);
    event.subject = described(receiver.value, callee.receiver_node);
    event.flags = flags;
    event.operand = copy_source;
    fillArguments(event, arguments);
  };
  // A tensor in host memory: reading it waits for no device.
  const bool host_memory = receiver.pageable || receiver.pinned || receiver.host_memory;
  auto sync = [&](std::uint32_t flags, const Value& subject, TSNode subject_node) {
    if ((flags & kFlagNotKnownHost) != 0 && host_memory) return;
    Event& event = emitSync(call, "torch.Tensor." + std::string(name), methodText(callee, call),
                            subject, subject_node, flags);
    // The program model may know the receiver lives in host memory (an attribute set in
    // __init__ from a CPU factory), which this file cannot.
    if ((flags & kFlagNotKnownHost) != 0) event.operand = receiver.ref;
  };
  ExprInfo result;
  if (const ShapeArguments* shape = methodShapeArguments(name); shape != nullptr && tensorish) {
    emitShapeUses(*shape, "torch.Tensor." + std::string(name), call, arguments, &receiver,
                  callee.receiver_node);
  }
  switch (classifyTensorMethod(name)) {
    case MethodKind::kTensor:
      tensor_op(
          static_cast<std::uint32_t>(methodCopy(name, receiver, arguments, result, copy_source) |
                                     weightFlags(name, &receiver, arguments)));
      result.value = tensorResultOf(receiver.value);
      return result;
    case MethodKind::kBoolTensor:
      tensor_op();
      result.value = tensorResultOf(receiver.value);
      result.mask = tensorish;
      return result;
    case MethodKind::kTuple:
      tensor_op();
      // max(), min(), median() without a dimension reduce to one tensor, not a pair.
      if ((name == "max" || name == "min" || name == "median" || name == "nanmedian") &&
          arguments.positional.empty() && arguments.keywords.empty()) {
        result.value = tensorResultOf(receiver.value);
        return result;
      }
      if (receiver.value.isTensor()) result.object = ObjectKind::kTensorTuple;
      return result;
    case MethodKind::kHost:
      result.value = hostConstant(ValueOrigin::kNone);
      return result;
    case MethodKind::kSyncToHost:
      sync(kFlagNotKnownHost, receiver.value, callee.receiver_node);
      result.value = hostVarying(ValueOrigin::kTensorExpr);
      return result;
    case MethodKind::kSyncToCpu:
      sync(kFlagNotKnownHost, receiver.value, callee.receiver_node);
      result.pageable = name == "cpu";
      return result;
    case MethodKind::kDataDependent:
      sync(kFlagDataDependent | kFlagNotKnownHost, receiver.value, callee.receiver_node);
      result.value = tensorResultOf(receiver.value);
      return result;
    case MethodKind::kRepeatInterleave: {
      const ExprInfo* repeats = arguments.find("repeats", 0);
      if (repeats != nullptr && mayBeTensor(repeats->value) &&
          arguments.find("output_size") == nullptr) {
        sync(kFlagDataDependent | kFlagNeedsTensor, repeats->value,
             arguments.syntax.find("repeats", 0));
      } else {
        tensor_op();
      }
      result.value = tensorResultOf(receiver.value);
      return result;
    }
    case MethodKind::kTo: {
      TSNode device = arguments.syntax.find("device", 0);
      if (!isNull(device) && isCpuDevice(file_.pool, file_.text, device)) {
        sync(kFlagNotKnownHost, receiver.value, callee.receiver_node);
        result.pageable = true;
        return result;
      }
      tensor_op(methodCopy(name, receiver, arguments, result, copy_source));
      result.value = tensorResultOf(receiver.value);
      return result;
    }
    case MethodKind::kHostVarying:
      result.value = hostVarying(ValueOrigin::kHostCall);
      return result;
    case MethodKind::kNone:
      break;
  }
  if (name == "format" &&
      (is(callee.receiver_node, g_.string) || is(callee.receiver_node, g_.concatenated_string))) {
    // "{}".format(t) reads the tensor's value to print it.
    for (std::size_t i = 0; i < arguments.positional.size(); ++i) {
      if (!mayBeTensor(arguments.positional[i].value)) continue;
      emitSync(call, "str.format", file_.text.brief(call), arguments.positional[i].value,
               arguments.syntax.positional[i], kFlagImplicit | kFlagNeedsTensor);
    }
    for (std::size_t i = 0; i < arguments.keywords.size(); ++i) {
      if (!mayBeTensor(arguments.keywords[i].value)) continue;
      emitSync(call, "str.format", file_.text.brief(call), arguments.keywords[i].value,
               arguments.syntax.keywords[i].second, kFlagImplicit | kFlagNeedsTensor);
    }
    return result;
  }
  if (name == "synchronize" && arguments.positional.empty() && arguments.keywords.empty()) {
    // A stream or event object we could not follow, named as one (self.copy_stream).
    std::string_view receiver_text = textOf(callee.receiver_node);
    std::size_t dot = receiver_text.rfind('.');
    std::string_view last =
        dot == std::string_view::npos ? receiver_text : receiver_text.substr(dot + 1);
    bool stream = containsIgnoringCase(last, "stream");
    if (stream || containsIgnoringCase(last, "event")) {
      emitSync(call, stream ? "torch.cuda.Stream.synchronize" : "torch.cuda.Event.synchronize",
               file_.text.brief(call), receiver.value, callee.receiver_node, kFlagNone);
    }
  }
  return result;
}

ExprInfo FunctionLowering::callValue(const Callee& callee, TSNode call,
                                     const Arguments& arguments) {
  const ExprInfo& value = callee.receiver;
  switch (value.object) {
    case ObjectKind::kCompileFactory: {
      // torch.compile(mode=...)(f)
      const ExprInfo* target = arguments.find("model", 0);
      if (target == nullptr) return {};
      if (value.graphs) compileRegion(*target, isNull(value.node) ? call : value.node);
      return *target;
    }
    case ObjectKind::kInstance: {
      FunctionId method = findMethod(file_.index, value.class_index, "__call__");
      bool forward = false;
      if (method == kNoFunction) {
        method = findMethod(file_.index, value.class_index, "forward");
        forward = method != kNoFunction;
      }
      ExprInfo result;
      if (method != kNoFunction) {
        result = callFunction(method, call, arguments);
      } else {
        emitDynamicCall(call, arguments);  // forward inherited from a base in another file
      }
      if (forward ||
          file_.index.classes[static_cast<std::size_t>(value.class_index)].derives_module) {
        return moduleCallResult(arguments);
      }
      return result;
    }
    case ObjectKind::kNnModule:
      noteModuleCall(value, call);
      if (value.runs_members) emitDynamicCall(call, arguments);
      return moduleCallResult(arguments);
    default:
      break;
  }
  if (value.function != kNoFunction) return callFunction(value.function, call, arguments);
  // A parameter, an attribute, an element of a container, a call's result: whatever it holds
  // is for the program model to say.
  emitDynamicCall(call, arguments);
  return {};
}

// ---- regions ---------------------------------------------------------------------------------

void FunctionLowering::captureBegin(const Callee& callee, TSNode call, const Arguments& arguments) {
  if (quiet()) return;
  CaptureRegion region;
  region.kind = RegionKind::kCaptureBeginEnd;
  region.site = file_.text.range(call);
  region.graph = file_.text.brief(callee.receiver_node);
  region.function = id_;
  if (callee.receiver.object != ObjectKind::kCudaGraph) {
    // Not known to be a CUDAGraph here: the program model keeps the region unless the
    // receiver's type says otherwise (`wp.capture_begin()` with wp the warp module).
    region.pending = CaptureRegion::Pending::kGraphReceiver;
    region.pending_ref = callee.receiver.ref;
    region.pending_scope = id_;
  }
  describeCaptureBegin(file_.text, arguments.syntax, region);
  noteLazyCapture(region);
  noteCaptureGuard(region, call);
  if (!stream_stack_.empty()) region.stream = std::string(stream_stack_.back());
  std::int32_t index = file_.addRegion(std::move(region), currentRegion());
  region_stack_.push_back(index);
  open_captures_.push_back(
      {textOf(callee.receiver_node), index, callee.receiver.object == ObjectKind::kCudaGraph});
  openRegionExtent(index, call);
}

void FunctionLowering::captureEnd(const Callee& callee) {
  std::string_view receiver = textOf(callee.receiver_node);
  for (std::size_t i = open_captures_.size(); i-- > 0;) {
    if (open_captures_[i].receiver != receiver) continue;
    std::int32_t region = open_captures_[i].region;
    const SourceRange& site = file_.model.regions[static_cast<std::size_t>(region)].site;
    noteRegionSpan(region, file_.text.range(site.begin, ts_node_end_byte(callee.name_node)));
    popRegion(region);
    open_captures_.erase(open_captures_.begin() + static_cast<std::ptrdiff_t>(i));
    return;
  }
}

FunctionId FunctionLowering::callableTarget(const ExprInfo& info, std::string& qualified) {
  if (info.function != kNoFunction) return info.function;
  if (is(info.node, g_.lambda)) return file_.lambdaFunction(info.node, id_);
  if (info.object == ObjectKind::kInstance) {
    return findMethod(file_.index, info.class_index, "forward");
  }
  if (info.object == ObjectKind::kImported && !isLibraryRoot(rootOf(info.imported))) {
    qualified = info.imported;
  }
  return kNoFunction;
}

void FunctionLowering::graphedCallables(TSNode call, const Arguments& arguments) {
  if (quiet()) return;
  std::vector<TSNode> nodes;
  graphedCallableNodes(file_.pool, arguments.syntax, nodes);
  TSNode callables = unparenthesize(file_.pool, arguments.syntax.find("callables", 0));
  const bool in_tuple = is(callables, g_.tuple) || is(callables, g_.list);
  std::int32_t position = -1;
  for (TSNode node : nodes) {
    ++position;
    ExprInfo info = quietEval(node);
    std::string qualified;
    FunctionId target = callableTarget(info, qualified);
    if (target == kNoFunction && qualified.empty() && !isOpaqueCallable(info)) continue;
    CaptureRegion region;
    region.kind = RegionKind::kGraphedCallable;
    region.site = file_.text.range(call);
    region.whole_function = true;
    region.function = target;
    region.target_qualified = std::move(qualified);
    region.callable = flowPath(node);
    region.callable_ref = info.ref;
    region.tuple_index = in_tuple ? position : -1;
    if (target != kNoFunction) {
      // Graphed callables are called with the static tensors of the sample arguments.
      const FunctionDecl& callable = file_.index.functions[target];
      const FunctionModel& function = file_.model.functions[target];
      region.param_values.resize(function.params.size());
      for (std::size_t i = 0; i < function.params.size(); ++i) {
        if ((i == 0 && callable.has_self) || callable.param_splat[i]) continue;
        region.param_values[i] = tensorValue(ValueOrigin::kParameter);
        region.param_values[i].text = function.params[i].name;
      }
    }
    file_.addRegion(std::move(region), -1);
  }
}

void FunctionLowering::compileRegion(const ExprInfo& target, TSNode site, RefId mode) {
  if (quiet()) return;
  std::string qualified;
  FunctionId function = callableTarget(target, qualified);
  if (function == kNoFunction && qualified.empty() && !isOpaqueCallable(target)) return;
  CaptureRegion region;
  region.kind = RegionKind::kCompiled;
  region.site = file_.text.range(site);
  region.dynamo_traced = true;
  if (is(site, g_.call)) {
    CallArguments arguments;
    readArguments(file_.pool, file_.text, field(site, g_.f_arguments), arguments);
    region.full_graph = compileIsFullGraph(file_.pool, arguments);
  }
  region.whole_function = true;
  region.function = function;
  region.target_qualified = std::move(qualified);
  if (mode != kNoRef) {
    region.pending = CaptureRegion::Pending::kCompileMode;
    region.pending_ref = mode;
    region.pending_scope = id_;
  }
  file_.addRegion(std::move(region), -1);
}

}  // namespace graphsafe::python
