// What a call returns: a function's returns under the argument types of the call, an
// instance of a class, a module's forward, and the library calls that build what the program
// calls later (nn.ModuleList, nn.Sequential, functools.partial, torch.compile, map).
// Also where a parameter's type comes from when no call path says: every call of its function.
#include <algorithm>
#include <memory>

#include "analyzer/program/type_evaluator.h"

namespace graphsafe::program {

bool isChainingMethodName(std::string_view name) {
  static constexpr std::string_view kNames[] = {
      "cuda",           "to",  "half",         "float", "double", "bfloat16", "eval", "train",
      "requires_grad_", "cpu", "share_memory", "type",  "apply",  "to_empty"};
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

namespace {

// Library functions that hand back the callable they are given (a decorator applied
// explicitly, a compiled or scripted module).
bool returnsItsCallable(std::string_view name) {
  static constexpr std::string_view kNames[] = {"torch.compile",
                                                "torch.jit.script",
                                                "torch.jit.trace",
                                                "torch.jit.ignore",
                                                "torch.no_grad",
                                                "torch.inference_mode",
                                                "torch.enable_grad",
                                                "functools.cache",
                                                "functools.lru_cache",
                                                "functools.update_wrapper",
                                                "contextlib.contextmanager",
                                                "contextlib.asynccontextmanager",
                                                "builtins.staticmethod",
                                                "builtins.classmethod",
                                                "builtins.property",
                                                "torch.compiler.disable",
                                                "torch._dynamo.disable",
                                                "typing.overload",
                                                "typing.final",
                                                "abc.abstractmethod"};
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

// A torch function that computes tensors: the ops of torch, torch.nn.functional, torch.linalg,
// torch.fft, torch.special (lowercase names; not the utilities of torch.cuda, torch.distributed
// and the like, and not the few that answer on the host).
bool isTensorFunction(std::string_view name) {
  static constexpr std::string_view kModules[] = {"torch.", "torch.nn.functional.", "torch.linalg.",
                                                  "torch.fft.", "torch.special."};
  std::size_t dot = name.rfind('.');
  if (dot == std::string_view::npos) return false;
  std::string_view module = name.substr(0, dot + 1);
  std::string_view last = name.substr(dot + 1);
  if (std::find(std::begin(kModules), std::end(kModules), module) == std::end(kModules)) {
    return false;
  }
  if (last.empty() || !(last.front() >= 'a' && last.front() <= 'z')) return false;
  static constexpr std::string_view kHost[] = {"is_tensor",
                                               "is_floating_point",
                                               "numel",
                                               "get_default_dtype",
                                               "is_grad_enabled",
                                               "compile",
                                               "manual_seed",
                                               "set_default_device",
                                               "set_default_dtype",
                                               "device",
                                               "no_grad",
                                               "inference_mode",
                                               "enable_grad",
                                               "get_rng_state",
                                               "set_rng_state"};
  return std::find(std::begin(kHost), std::end(kHost), last) == std::end(kHost);
}

// Where a tensor method's result lives, from where its receiver does. A host tensor's methods
// compute on the host, into new pageable memory; a view or an in-place update is the receiver's
// own memory (pinned stays pinned); a move (`.cuda()`, `.to(...)`, `.type(...)`) ends what is
// known, and `.pin_memory()` makes a pinned copy.
std::uint8_t tensorMethodMemory(std::string_view method, std::uint8_t receiver) {
  constexpr auto kUnknownMemory = static_cast<std::uint8_t>(TensorMemory::kUnknown);
  constexpr auto kPageable = static_cast<std::uint8_t>(TensorMemory::kPageableHost);
  if (method == "pin_memory") return static_cast<std::uint8_t>(TensorMemory::kPinnedHost);
  if (method == "cpu") return receiver == kUnknownMemory ? kPageable : receiver;
  if (receiver == kUnknownMemory || method == "cuda" || method == "to" || method == "type" ||
      method == "share_memory_") {
    return kUnknownMemory;
  }
  static constexpr std::string_view kViews[] = {
      "view",   "view_as",   "narrow",     "select",        "unsqueeze", "squeeze",
      "expand", "expand_as", "t",          "transpose",     "permute",   "as_strided",
      "detach", "unflatten", "contiguous", "requires_grad_"};
  if (method.ends_with('_') ||
      std::find(std::begin(kViews), std::end(kViews), method) != std::end(kViews)) {
    return receiver;
  }
  return kPageable;
}

}  // namespace

std::uint8_t TypeEvaluator::hostResultMemory(const CallArguments& arguments) {
  // A torch op computes where its tensors are: on the host, into new pageable memory, when
  // every tensor it is given (directly, or in a list as torch.cat takes them) is in host
  // memory and it is not told a device. Not known otherwise.
  constexpr auto kUnknownMemory = static_cast<std::uint8_t>(TensorMemory::kUnknown);
  for (const auto& [name, type] : arguments.keywords) {
    if (name == "device" || name == "out") return kUnknownMemory;
  }
  if (!arguments.complete) return kUnknownMemory;
  bool any_tensor = false;
  bool all_host = true;
  auto visit = [&](TypeId type, auto&& self, int depth) -> void {
    if (types_.hasUnknown(type)) {
      all_host = false;
      return;
    }
    for (const Atom& atom : types_.atoms(type)) {
      if (atom.kind == Atom::Kind::kTensor) {
        any_tensor = true;
        all_host = all_host && atom.sub != kUnknownMemory;
      } else if (atom.kind == Atom::Kind::kContainer && depth == 0) {
        self(atom.a, self, depth + 1);
      }
    }
  };
  for (TypeId type : arguments.positional) visit(type, visit, 0);
  for (const auto& [name, type] : arguments.keywords) visit(type, visit, 0);
  return any_tensor && all_host ? static_cast<std::uint8_t>(TensorMemory::kPageableHost)
                                : kUnknownMemory;
}

TypeId TypeEvaluator::callResult(TypeId callee, const CallArguments& arguments) {
  Nesting nesting(nesting_);
  if (!nesting.ok()) return kUnknown;
  TypeId result = types_.hasUnknown(callee) ? kUnknown : kBottom;
  for (const Atom& atom : types_.atoms(callee)) {
    TypeId found = kUnknown;
    switch (atom.kind) {
      case Atom::Kind::kFunction:
        found = returnType(atom.a, bindParameters(atom.a, arguments, {}), atom.c - 1);
        break;
      case Atom::Kind::kBoundMethod:
        found = returnType(atom.a, bindParameters(atom.a, arguments, {atom.b}), atom.c - 1);
        break;
      case Atom::Kind::kClass:
        found = construct(atom.a, arguments);
        break;
      case Atom::Kind::kInstance:
        found = instanceCall(atom.a, types_.atom(atom), arguments);
        break;
      case Atom::Kind::kPartial: {
        CallArguments shifted = arguments;
        shifted.positional.insert(shifted.positional.begin(), atom.b, kUnknown);
        found = callResult(atom.a, shifted);
        break;
      }
      case Atom::Kind::kExternal:
        if (atom.b == 0) {
          found = libraryCall(types_.nameAt(atom.a), arguments);
        } else if (returnsItsCallable(types_.nameAt(atom.a)) && !arguments.positional.empty()) {
          found = arguments.positional.front();  // torch.compile(mode="...")(model)
        } else if (types_.nameAt(atom.a).starts_with("torch.nn.")) {
          found = types_.atom({Atom::Kind::kTensor, 0, 0, 0});  // a library layer's forward
        }
        break;
      case Atom::Kind::kLibraryMethod:
        found = libraryMethodCall(types_.nameAt(atom.a), atom.b, arguments);
        break;
      case Atom::Kind::kContainer:
        if (static_cast<Holder>(atom.sub) == Holder::kSequential) {
          found = callResult(atom.a, arguments);  // each module in turn; the last one's result
        }
        break;
      default:
        break;
    }
    result = types_.join(result, found);
  }
  return result;
}

TypeId TypeEvaluator::returnType(std::uint32_t function, std::vector<TypeId> params,
                                 FrameId closure, bool exact) {
  const FunctionModel& model = index_.function(function);
  if (model.returns == kNoRef && model.yields == kNoRef) {
    return types_.atom({Atom::Kind::kNone, 0, 0, 0});
  }
  // Under its arguments' types a few calls deep; past that, what it returns for any call (a
  // closure keeps the frame it was made in: that is what tells one wrapper from another).
  const FrameId frame = exact || context_depth_ < kMaxContextDepth
                            ? this->frame(function, std::move(params), closure, exact)
                            : this->frame(function, {}, closure);
  ++context_depth_;
  TypeId result = kBottom;
  if (model.is_generator) {
    result = types_.atom({Atom::Kind::kContainer, static_cast<std::uint8_t>(Holder::kGenerator),
                          typeOf(frame, model.yields), 0});
  } else {
    result = typeOf(frame, model.returns);
  }
  --context_depth_;
  return result;
}

TypeId TypeEvaluator::construct(std::uint32_t class_id, const CallArguments& arguments) {
  const Atom plain{Atom::Kind::kInstance, 0, class_id, 0};
  const std::uint32_t init = lookupMethod(class_id, "__init__");
  if (init == kNoId || context_depth_ >= kMaxContextDepth) return types_.atom(plain);
  // The instance remembers its construction: its attributes take this call's arguments.
  const FrameId frame = this->frame(init, bindParameters(init, arguments, {types_.atom(plain)}));
  return types_.atom({Atom::Kind::kInstance, 0, class_id, 0, frame + 1});
}

std::uint32_t TypeEvaluator::callMethodOf(std::uint32_t class_id) {
  std::uint32_t method = lookupMethod(class_id, "__call__");
  // nn.Module.__call__ runs forward.
  if (method == kNoId && derivesModule(class_id)) method = lookupMethod(class_id, "forward");
  return method;
}

TypeId TypeEvaluator::instanceCall(std::uint32_t class_id, TypeId instance,
                                   const CallArguments& arguments) {
  const std::uint32_t method = callMethodOf(class_id);
  if (method == kNoId) return kUnknown;
  return returnType(method, bindParameters(method, arguments, {instance}));
}

TypeId TypeEvaluator::libraryCall(std::string_view name, const CallArguments& arguments) {
  auto argument = [&](std::size_t i) {
    return i < arguments.positional.size() ? arguments.positional[i] : kBottom;
  };
  auto container = [&](Holder holder, TypeId element) {
    return types_.atom({Atom::Kind::kContainer, static_cast<std::uint8_t>(holder), element, 0});
  };
  auto element = [&](TypeId type) { return elementType(type, -1, {}); };
  if (name == "functools.partial" && !arguments.positional.empty()) {
    return types_.atom({Atom::Kind::kPartial, 0, argument(0),
                        static_cast<std::uint32_t>(arguments.positional.size() - 1)});
  }
  if (name == "torch.nn.ModuleList" || name == "torch.nn.ParameterList") {
    return container(Holder::kModuleList, element(argument(0)));
  }
  if (name == "torch.nn.Sequential") {
    // Sequential(a, b, c), or Sequential(OrderedDict(...)) of named modules.
    TypeId members = kBottom;
    for (TypeId type : arguments.positional) {
      bool dict = false;
      for (const Atom& atom : types_.atoms(type)) {
        dict = dict || (atom.kind == Atom::Kind::kContainer &&
                        static_cast<Holder>(atom.sub) == Holder::kDict);
      }
      members = types_.join(members, dict ? element(type) : type);
    }
    return container(Holder::kSequential, members);
  }
  if (name == "torch.nn.ModuleDict" || name == "torch.nn.ParameterDict") {
    return container(Holder::kModuleDict, element(argument(0)));
  }
  if (name == "collections.OrderedDict" || name == "builtins.dict") {
    // dict(a=f), OrderedDict([("name", module), ...])
    TypeId values = kBottom;
    for (const auto& [keyword, type] : arguments.keywords) values = types_.join(values, type);
    if (!arguments.positional.empty()) {
      TypeId pairs = element(argument(0));
      bool mapping = false;
      for (const Atom& atom : types_.atoms(argument(0))) {
        mapping = mapping || (atom.kind == Atom::Kind::kContainer &&
                              static_cast<Holder>(atom.sub) == Holder::kDict);
      }
      values = types_.join(values, mapping ? pairs : elementType(pairs, 1, {}));
    }
    return container(Holder::kDict, values);
  }
  // functools.wraps(fn) is a decorator that hands back what it decorates (the wrapper).
  if (name == "functools.wraps") {
    return types_.atom({Atom::Kind::kExternal, 0, types_.name("functools.update_wrapper"), 1});
  }
  if (returnsItsCallable(name)) {
    if (arguments.positional.empty()) {
      // torch.compile(mode=...), lru_cache(maxsize=None): a decorator to apply later.
      return types_.atom({Atom::Kind::kExternal, 0, types_.name(name), 1});
    }
    return argument(0);
  }
  if (name == "builtins.list" || name == "builtins.tuple" || name == "builtins.set" ||
      name == "builtins.frozenset" || name == "builtins.sorted" || name == "builtins.reversed") {
    Holder holder = name == "builtins.tuple"                                   ? Holder::kTuple
                    : (name == "builtins.set" || name == "builtins.frozenset") ? Holder::kSet
                                                                               : Holder::kList;
    return container(holder, element(argument(0)));
  }
  if (name == "builtins.getattr" && arguments.positional.size() >= 2) {
    // getattr(obj, "name"[, default]) with the name a literal: the attribute itself.
    const auto& spelled = types_.atoms(argument(1));
    if (spelled.size() != 1 || spelled.front().kind != Atom::Kind::kHost ||
        spelled.front().a == 0 || types_.hasUnknown(argument(1))) {
      return kUnknown;
    }
    std::string_view key = types_.nameAt(spelled.front().a);
    if (!key.starts_with("s:")) return kUnknown;
    TypeId found = attributeType(argument(0), key.substr(2));
    return arguments.positional.size() >= 3 ? types_.join(found, argument(2)) : found;
  }
  if (name == "builtins.iter") return argument(0);
  // max(a, b), min(xs), sum(xs): what the arguments (or the one iterable's elements) hold.
  if (name == "builtins.max" || name == "builtins.min" || name == "builtins.sum") {
    if (arguments.positional.size() == 1) return element(argument(0));
    TypeId joined = kBottom;
    for (TypeId type : arguments.positional) joined = types_.join(joined, type);
    return arguments.positional.empty() ? kUnknown : joined;
  }
  // A copy is an object of the same kind (an instance of the same class, a tensor).
  if (name == "copy.deepcopy" || name == "copy.copy") {
    return arguments.positional.empty() ? kUnknown : argument(0);
  }
  if (name.starts_with("math.") && name.size() > 5 && name[5] >= 'a' && name[5] <= 'z') {
    return types_.atom({Atom::Kind::kHost, 0, 0, 0});
  }
  if (name == "builtins.next") return element(argument(0));
  if (name == "builtins.map" && arguments.positional.size() >= 2) {
    CallArguments each;
    for (std::size_t i = 1; i < arguments.positional.size(); ++i) {
      each.positional.push_back(element(argument(i)));
    }
    return container(Holder::kGenerator, callResult(argument(0), each));
  }
  if (name == "builtins.filter" && arguments.positional.size() >= 2) {
    return container(Holder::kGenerator, element(argument(1)));
  }
  if (name == "builtins.zip" || name == "builtins.enumerate") {
    Entries entries;
    if (name == "builtins.enumerate") {
      entries.emplace_back(0, types_.atom({Atom::Kind::kHost, 0, 0, 0}));
      entries.emplace_back(1, element(argument(0)));
    } else {
      for (std::size_t i = 0; i < arguments.positional.size(); ++i) {
        entries.emplace_back(static_cast<std::uint32_t>(i), element(argument(i)));
      }
    }
    TypeId joined = kBottom;
    for (const auto& [position, type] : entries) joined = types_.join(joined, type);
    TypeId tuple = types_.atom({Atom::Kind::kContainer, static_cast<std::uint8_t>(Holder::kTuple),
                                joined, types_.entries(std::move(entries)) + 1});
    return container(Holder::kList, tuple);
  }
  static constexpr std::string_view kHostBuiltins[] = {
      "builtins.len",     "builtins.int",     "builtins.float",      "builtins.str",
      "builtins.bool",    "builtins.range",   "builtins.abs",        "builtins.round",
      "builtins.hash",    "builtins.id",      "builtins.ord",        "builtins.chr",
      "builtins.repr",    "builtins.format",  "builtins.isinstance", "builtins.issubclass",
      "builtins.hasattr", "builtins.callable"};
  if (std::find(std::begin(kHostBuiltins), std::end(kHostBuiltins), name) !=
      std::end(kHostBuiltins)) {
    return types_.atom({Atom::Kind::kHost, 0, 0, 0});
  }
  if (isTensorFunction(name)) {
    return types_.atom({Atom::Kind::kTensor, hostResultMemory(arguments), 0, 0});
  }
  // The streams a program passes around: what made one says which it is (the default stream
  // is never the capture stream; the current one is it while capturing).
  if (name == "torch.cuda.default_stream" || name == "torch.cuda.current_stream") {
    return types_.atom({Atom::Kind::kExternal, 0, types_.name(name), 1});
  }
  // A library class: calling it makes an instance (nn.Linear(...), torch.cuda.CUDAGraph()).
  std::string_view last = name.substr(name.rfind('.') + 1);
  if (!last.empty() && last.front() >= 'A' && last.front() <= 'Z') {
    return types_.atom({Atom::Kind::kExternal, 0, types_.name(name), 1});
  }
  return kUnknown;
}

TypeId TypeEvaluator::libraryMethodCall(std::string_view method, TypeId receiver,
                                        const CallArguments& arguments) {
  TypeId result = types_.hasUnknown(receiver) ? kUnknown : kBottom;
  for (const Atom& atom : types_.atoms(receiver)) {
    TypeId found = kUnknown;
    switch (atom.kind) {
      case Atom::Kind::kInstance:
      case Atom::Kind::kExternal:
        // model.cuda().eval(): a module method that returns the module.
        if (isChainingMethodName(method)) found = types_.atom(atom);
        break;
      case Atom::Kind::kContainer: {
        const auto holder = static_cast<Holder>(atom.sub);
        const bool modules = holder == Holder::kModuleList || holder == Holder::kSequential ||
                             holder == Holder::kModuleDict;
        const TypeId host = types_.atom({Atom::Kind::kHost, 0, 0, 0});
        if (modules && isChainingMethodName(method)) {
          found = types_.atom(atom);
        } else if (method == "values" || method == "children" || method == "modules" ||
                   method == "parameters") {
          found = types_.atom(
              {Atom::Kind::kContainer, static_cast<std::uint8_t>(Holder::kList), atom.a, 0});
        } else if (method == "keys") {
          found = types_.atom(
              {Atom::Kind::kContainer, static_cast<std::uint8_t>(Holder::kList), host, 0});
        } else if (method == "items" || method == "named_children" || method == "named_modules") {
          Entries entries{{0, host}, {1, atom.a}};
          TypeId pair =
              types_.atom({Atom::Kind::kContainer, static_cast<std::uint8_t>(Holder::kTuple),
                           types_.join(host, atom.a), types_.entries(entries) + 1});
          found = types_.atom(
              {Atom::Kind::kContainer, static_cast<std::uint8_t>(Holder::kList), pair, 0});
        } else if (method == "get" || method == "pop" || method == "setdefault" ||
                   method == "__getitem__" || method == "popitem") {
          found = atom.a;
          if (method == "get" && arguments.positional.size() >= 2) {
            found = types_.join(found, arguments.positional[1]);
          }
        } else if (method == "copy") {
          found = types_.atom(atom);
        }
        break;
      }
      case Atom::Kind::kTensor:
        found = types_.atom({Atom::Kind::kTensor, tensorMethodMemory(method, atom.sub), 0, 0});
        break;
      default:
        break;
    }
    result = types_.join(result, found);
  }
  return result;
}

std::shared_ptr<const TypeEvaluator::SitesByTarget> TypeEvaluator::sitesByTarget(
    std::string_view name) {
  static const auto kEmpty = std::make_shared<const SitesByTarget>();
  // Every call spelling this name, typed once: which
  // function each one runs, and with what it binds before the arguments. The callees are typed
  // without looking further up at their callers' callers: a call whose receiver is a
  // parameter of the caller is not matched here.
  return site_memo_.getOnce(std::string(name), kEmpty, [&]() {
    const int outer_budget = cycles_.budget;
    cycles_.budget = 0;
    auto map = std::make_shared<SitesByTarget>();
    const auto& sites = sites_.named(name);
    for (const CallSite& site : sites) {
      const Reference& call = index_.file(site.file).references[site.event->call];
      if (call.operands.empty()) continue;
      const FrameId caller = plainFrame(index_.functionId(site.file, site.function));
      for (const Atom& atom : types_.atoms(typeOf(caller, call.operands[0]))) {
        std::uint32_t target = kNoId;
        TypeId bound = kBottom;
        if (atom.kind == Atom::Kind::kFunction) {
          target = atom.a;
        } else if (atom.kind == Atom::Kind::kBoundMethod) {
          target = atom.a;
          bound = atom.b;
        } else if (atom.kind == Atom::Kind::kClass) {
          target = lookupMethod(atom.a, "__init__");
          bound = types_.atom({Atom::Kind::kInstance, 0, atom.a, 0});
        }
        if (target != kNoId) (*map)[target].push_back({&site, bound});
      }
    }
    cycles_.budget = outer_budget;
    return std::shared_ptr<const SitesByTarget>(std::move(map));
  });
}

void TypeEvaluator::forEachCall(
    std::uint32_t function,
    const std::function<void(const CallSite&, const std::vector<TypeId>&)>& visit) {
  const FunctionModel& model = index_.function(function);
  // The names a call of this function may spell: its own; for __init__, its class and every
  // subclass that inherits it. Calls of a callee with no name (`make()(x)`, `fns[k](x)`) are
  // not searched: typing every one of them costs more than the parameters they would type.
  std::vector<std::string_view> names{model.name};
  if (model.name == "__init__" && model.class_index >= 0) {
    const std::uint32_t own = index_.classId(index_.functionFile(function), model.class_index);
    names.push_back(index_.classModel(own).name);
    for (std::uint32_t sub : subclasses(own)) {
      if (lookupMethod(sub, "__init__") == function) names.push_back(index_.classModel(sub).name);
    }
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  for (std::string_view name : names) {
    std::shared_ptr<const SitesByTarget> map = sitesByTarget(name);
    auto found = map->find(function);
    if (found == map->end()) continue;
    for (const auto& [site, bound] : found->second) {
      if (++site_visits_ > kMaxCallSiteVisits) return;  // the caller's answer is unknown
      const Reference& call = index_.file(site->file).references[site->event->call];
      const FrameId caller = plainFrame(index_.functionId(site->file, site->function));
      std::vector<TypeId> receiver;
      if (bound != kBottom) receiver.push_back(bound);
      visit(*site, bindParameters(function, argumentsOf(caller, call), receiver));
    }
  }
}

TypeId TypeEvaluator::parameterFromCallSites(std::uint32_t function, std::size_t index) {
  // A caller's own parameter is looked up at its callers in turn, this many calls up at most:
  // further up, every question would reach the whole program.
  // What is cut here is remembered as cut (cycle_memo.h): asked again with more calls to go, it
  // is looked up again.
  if (cycles_.budget <= 0) {
    cycles_.truncated = true;
    return kBottom;
  }
  --cycles_.budget;
  TypeId result = kBottom;
  forEachCall(function, [&](const CallSite&, const std::vector<TypeId>& params) {
    if (index < params.size()) result = types_.join(result, params[index]);
  });
  ++cycles_.budget;
  // Some calls not looked at: what they pass is not known, nor then the parameter.
  if (site_visits_ > kMaxCallSiteVisits) return kUnknown;
  return result;
}

}  // namespace graphsafe::program
