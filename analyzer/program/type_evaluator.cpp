// References to types: names, parameters, functions and classes, containers, joins. Attributes
// are in attribute_types.cpp, calls in call_results.cpp.
#include "analyzer/program/type_evaluator.h"

#include <algorithm>

namespace graphsafe::program {

namespace {

// Tuple and list displays keep the type of each position up to this many elements.
constexpr std::size_t kMaxPositions = 16;
// Re-exports and star imports followed this deep at most (and cycles end here).
constexpr int kMaxNameDepth = 8;

Holder holderOf(ContainerKind kind) {
  switch (kind) {
    case ContainerKind::kList:
      return Holder::kList;
    case ContainerKind::kTuple:
      return Holder::kTuple;
    case ContainerKind::kDict:
      return Holder::kDict;
    case ContainerKind::kSet:
      return Holder::kSet;
    case ContainerKind::kGenerator:
      return Holder::kGenerator;
  }
  return Holder::kList;
}

template <typename Entry>
const Entry* findSorted(const std::vector<Entry>& entries, std::string_view name) {
  auto it = std::lower_bound(
      entries.begin(), entries.end(), name,
      [](const Entry& entry, std::string_view key) { return std::string_view(entry.first) < key; });
  return it != entries.end() && it->first == name ? &*it : nullptr;
}

}  // namespace

TypeEvaluator::TypeEvaluator(const ProgramIndex& index, const CallSiteIndex& sites)
    : index_(index),
      sites_(sites),
      plain_frames_(index.functionCount(), kNoId),
      context_frames_(index.functionCount(), 0),
      classes_(index.classCount()) {
  cycles_.budget = kMaxCallSiteDepth;
  // Every class's bases first, in one pass: a subclass list read while bases are still being
  // resolved would be missing classes for good. What the pass itself typed on the way is
  // forgotten: it may have seen no subclasses at all.
  resolving_classes_ = true;
  for (std::uint32_t c = 0; c < index.classCount(); ++c) classInfo(c);
  resolving_classes_ = false;
  memo_.clear();
  parameter_memo_.clear();
  attribute_memo_.clear();
  global_memo_.clear();
  decorated_memo_.clear();
  site_memo_.clear();
}

bool TypeEvaluator::spend() {
  return ++evaluations_ <= kMaxEvaluations;
}

FrameId TypeEvaluator::plainFrame(std::uint32_t function) {
  FrameId& slot = plain_frames_[function];
  if (slot == kNoId) {
    slot = static_cast<FrameId>(frames_.size());
    frames_.push_back({function, {}});
  }
  return slot;
}

FrameId TypeEvaluator::frame(std::uint32_t function, std::vector<TypeId> params, FrameId closure,
                             bool exact) {
  bool any = std::any_of(params.begin(), params.end(), [](TypeId t) { return t != kBottom; });
  if (!any && closure == kNoId) return plainFrame(function);
  std::string key(reinterpret_cast<const char*>(&function), sizeof(function));
  key.append(reinterpret_cast<const char*>(&closure), sizeof(closure));
  key.append(reinterpret_cast<const char*>(params.data()), params.size() * sizeof(TypeId));
  auto it = frame_ids_.find(key);
  if (it != frame_ids_.end()) return it->second;
  if (!exact && context_frames_[function] >= kMaxFramesPerFunction) {
    // Enough frames of this function: the closure alone (what tells wrappers apart) is kept.
    if (closure == kNoId || !any) return plainFrame(function);
    return this->frame(function, {}, closure);
  }
  ++context_frames_[function];
  auto id = static_cast<FrameId>(frames_.size());
  frames_.push_back({function, std::move(params), closure});
  frame_ids_.emplace(std::move(key), id);
  return id;
}

FrameId TypeEvaluator::frameOfFunction(FrameId frame, std::uint32_t function) const {
  // A closure chain is as deep as the nesting of defs in the source.
  for (int depth = 0; frame != kNoId && depth < 64; ++depth) {
    if (frames_[frame].function == function) return frame;
    frame = frames_[frame].closure;
  }
  return kNoId;
}

TypeId TypeEvaluator::typeOf(FrameId frame, RefId ref) {
  if (ref == kNoRef) return kUnknown;
  const std::uint32_t file = index_.functionFile(frames_[frame].function);
  const auto& references = index_.file(file).references;
  if (ref >= references.size()) return kUnknown;
  const std::uint64_t key = (std::uint64_t{frame} << 32) | ref;
  // A reference that depends on itself (a name rebound in a loop from its own value): the
  // other ways in say what it holds.
  return memo_.get(key, kBottom, [&]() -> TypeId {
    if (!spend()) return kUnknown;
    Nesting nesting(nesting_);
    if (!nesting.ok()) return kUnknown;
    return evaluate(frame, file, references[ref]);
  });
}

TypeId TypeEvaluator::evaluate(FrameId frame, std::uint32_t file, const Reference& reference) {
  using Kind = Reference::Kind;
  auto operand = [&](std::size_t i) {
    return i < reference.operands.size() ? typeOf(frame, reference.operands[i]) : kUnknown;
  };
  switch (reference.kind) {
    case Kind::kGlobal:
      return globalType(reference.name, file);
    case Kind::kParameter: {
      const std::uint32_t function = index_.functionId(file, reference.function);
      const auto position = static_cast<std::size_t>(std::max(reference.index, 0));
      // Its own parameter, or a closure's: the frame it was created in binds it. Otherwise
      // what every call of that function passes.
      const FrameId binding = frameOfFunction(frame, function);
      if (binding != kNoId) return parameterType(binding, position);
      return contextFreeParameter(function, position);
    }
    case Kind::kFunction: {
      const std::uint32_t function = index_.functionId(file, reference.function);
      // A def nested in this frame's function closes over this frame (when it knows more than
      // the context-free one does).
      const Frame& current = frames_[frame];
      const bool closes =
          index_.function(function).parent != kNoFunction &&
          index_.functionId(file, index_.function(function).parent) == current.function &&
          (!current.params.empty() || current.closure != kNoId);
      const FrameId closure = closes ? frame : kNoId;
      if (reference.index == 1) return decoratedFunction(function, closure);
      return types_.atom(
          {Atom::Kind::kFunction, 0, function, 0, closure == kNoId ? 0 : closure + 1});
    }
    case Kind::kClass:
      return types_.atom({Atom::Kind::kClass, 0, index_.classId(file, reference.index), 0});
    case Kind::kCall: {
      TypeId callee = operand(0);
      return callResult(callee, argumentsOf(frame, reference));
    }
    case Kind::kAttribute:
      return attributeType(operand(0), reference.name);
    case Kind::kElement: {
      if (reference.operands.size() > 1) {
        // `ls[key]` with `key` a literal on this path: that element.
        TypeId index = operand(1);
        const auto& atoms = types_.atoms(index);
        if (types_.isExact(index) && atoms.size() == 1 && atoms[0].kind == Atom::Kind::kHost &&
            atoms[0].a != 0) {
          std::string_view key = types_.nameAt(atoms[0].a);
          std::int32_t position = -1;
          if (key.starts_with("i:") && key.size() < 9) {
            position = 0;
            for (char c : key.substr(2)) {
              position = c >= '0' && c <= '9' ? position * 10 + (c - '0') : -1;
              if (position < 0) break;
            }
          }
          return elementType(operand(0), position, key);
        }
      }
      return elementType(operand(0), reference.index, reference.name);
    }
    case Kind::kJoin: {
      TypeId joined = kBottom;
      for (std::size_t i = 0; i < reference.operands.size(); ++i) {
        joined = types_.join(joined, operand(i));
      }
      return joined;
    }
    case Kind::kContainer: {
      TypeId element = kBottom;
      Entries entries;
      const bool positional = reference.container == ContainerKind::kTuple ||
                              reference.container == ContainerKind::kList;
      for (std::size_t i = 0; i < reference.operands.size(); ++i) {
        TypeId type = operand(i);
        element = types_.join(element, type);
        if (positional && reference.operands.size() <= kMaxPositions) {
          entries.emplace_back(static_cast<std::uint32_t>(i), type);
        } else if (reference.container == ContainerKind::kDict && i < reference.names.size() &&
                   !reference.names[i].empty()) {
          entries.emplace_back(types_.name(reference.names[i]), type);
        }
      }
      std::uint32_t list = entries.empty() ? 0 : types_.entries(std::move(entries)) + 1;
      return types_.atom({Atom::Kind::kContainer,
                          static_cast<std::uint8_t>(holderOf(reference.container)), element, list});
    }
    case Kind::kSuper: {
      const std::uint32_t function = index_.functionId(file, reference.function);
      const FunctionModel& model = index_.function(function);
      if (model.class_index < 0 || model.params.empty()) return kUnknown;
      TypeId receiver = function == frames_[frame].function ? parameterType(frame, 0)
                                                            : contextFreeParameter(function, 0);
      return types_.atom(
          {Atom::Kind::kSuper, 0, index_.classId(file, model.class_index), receiver});
    }
    case Kind::kInstanceOf:
      return instancesOf(operand(0));
    case Kind::kUpdated:
      return updatedContainer(operand(0), reference.name, operand(1));
    case Kind::kTensor: {
      const bool known = reference.index > 0 &&
                         reference.index <= static_cast<std::int32_t>(TensorMemory::kPinnedHost);
      return types_.atom({Atom::Kind::kTensor,
                          known ? static_cast<std::uint8_t>(reference.index) : std::uint8_t{0}, 0,
                          0});
    }
    case Kind::kHost:
      return types_.atom(
          {Atom::Kind::kHost, 0, reference.name.empty() ? 0 : types_.name(reference.name), 0});
    case Kind::kNone:
      return types_.atom({Atom::Kind::kNone, 0, 0, 0});
    case Kind::kOperation:
      return operationType(frame, reference);
    case Kind::kLocal:
      return operand(0);
    case Kind::kNarrowed: {
      TypeId narrowed = kBottom;
      const TypeId type = operand(0);
      for (const Atom& atom : types_.atoms(type)) {
        if (atom.kind != Atom::Kind::kTensor) narrowed = types_.join(narrowed, types_.atom(atom));
      }
      if (types_.hasUnknown(type) || narrowed == kBottom)
        narrowed = types_.join(narrowed, kUnknown);
      return narrowed;
    }
  }
  return kUnknown;
}

TypeId TypeEvaluator::operationType(FrameId frame, const Reference& reference) {
  const TypeId host = types_.atom({Atom::Kind::kHost, 0, 0, 0});
  if (reference.index == 1) return host;
  // An operator on a tensor makes a tensor; on host values only, a host value. Anything the
  // model cannot say about an operand leaves the result unknown unless a tensor decides it.
  bool all_host = !reference.operands.empty();
  for (RefId operand : reference.operands) {
    const TypeId type = typeOf(frame, operand);
    bool tensors = types_.isExact(type);
    bool hosts = tensors;
    for (const Atom& atom : types_.atoms(type)) {
      tensors = tensors && atom.kind == Atom::Kind::kTensor;
      hosts = hosts && atom.kind == Atom::Kind::kHost;
    }
    if (tensors) return types_.atom({Atom::Kind::kTensor, 0, 0, 0});
    all_host = all_host && hosts;
  }
  return all_host ? host : kUnknown;
}

std::uint32_t TypeEvaluator::entryKey(Holder holder, std::string_view key) {
  // Lists and tuples are entered by position ("i:2" -> 2), dicts by the key's name.
  if (holder == Holder::kList || holder == Holder::kTuple) {
    if (!key.starts_with("i:")) return kNoId;
    std::uint32_t position = 0;
    for (char c : key.substr(2)) {
      if (c < '0' || c > '9' || position > 1'000'000) return kNoId;
      position = position * 10 + static_cast<std::uint32_t>(c - '0');
    }
    return position;
  }
  return types_.name(key);
}

TypeId TypeEvaluator::updatedContainer(TypeId container, std::string_view key, TypeId value) {
  TypeId result = kBottom;
  bool any_container = false;
  for (const Atom& atom : types_.atoms(container)) {
    const std::uint32_t name =
        atom.kind == Atom::Kind::kContainer ? entryKey(static_cast<Holder>(atom.sub), key) : kNoId;
    if (name == kNoId) {
      result = types_.join(result, types_.atom(atom));
      continue;
    }
    any_container = true;
    Entries entries;
    if (atom.b != 0) entries = types_.entriesAt(atom.b - 1);
    std::erase_if(entries, [&](const auto& entry) { return entry.first == name; });
    entries.emplace_back(name, value);
    std::sort(entries.begin(), entries.end());
    result = types_.join(result,
                         types_.atom({Atom::Kind::kContainer, atom.sub, types_.join(atom.a, value),
                                      types_.entries(std::move(entries)) + 1}));
  }
  if (!any_container) {
    // Not known to be a container yet (a dict built elsewhere): it holds at least this.
    Entries entries{{types_.name(key), value}};
    result = types_.join(
        result, types_.atom({Atom::Kind::kContainer, static_cast<std::uint8_t>(Holder::kDict),
                             value, types_.entries(std::move(entries)) + 1}));
  }
  if (types_.hasUnknown(container)) result = types_.join(result, kUnknown);
  return result;
}

TypeId TypeEvaluator::instancesOf(TypeId classes) {
  TypeId result = types_.hasUnknown(classes) ? kUnknown : kBottom;
  for (const Atom& atom : types_.atoms(classes)) {
    switch (atom.kind) {
      case Atom::Kind::kClass: {
        // An annotation names a class; an instance of any subclass satisfies it.
        result = types_.join(result, types_.atom({Atom::Kind::kInstance, 0, atom.a, 0}));
        for (std::uint32_t sub : subclasses(atom.a)) {
          result = types_.join(result, types_.atom({Atom::Kind::kInstance, 0, sub, 0}));
        }
        break;
      }
      case Atom::Kind::kExternal: {
        // An annotation naming a library object, not a class (a TypeVar): it says nothing.
        if (atom.b != 0) break;
        std::string_view name = types_.nameAt(atom.a);
        if (name == "torch.Tensor" || name == "torch.nn.Parameter" ||
            name == "torch.nn.parameter.Parameter") {
          result = types_.join(result, types_.atom({Atom::Kind::kTensor, 0, 0, 0}));
        } else if (name.starts_with("builtins.")) {
          std::string_view type = name.substr(9);
          bool host = type == "int" || type == "float" || type == "bool" || type == "str" ||
                      type == "bytes" || type == "complex";
          result = types_.join(result, host ? types_.atom({Atom::Kind::kHost, 0, 0, 0}) : kUnknown);
        } else {
          result = types_.join(result, types_.atom({Atom::Kind::kExternal, 0, atom.a, 1}));
        }
        break;
      }
      case Atom::Kind::kNone:
      case Atom::Kind::kContainer:
        result = types_.join(result, types_.atom(atom));
        break;
      default:
        result = types_.join(result, kUnknown);
        break;
    }
  }
  return result;
}

TypeId TypeEvaluator::parameterType(FrameId frame, std::size_t index) {
  const Frame& current = frames_[frame];
  // What the path passes, unless it knows nothing of it: then whatever any call passes (every
  // value must come from one of them; for `self`, an instance of the class or a subclass).
  if (index < current.params.size() && current.params[index] != kBottom &&
      current.params[index] != kUnknown) {
    return current.params[index];
  }
  return contextFreeParameter(current.function, index);
}

TypeId TypeEvaluator::contextFreeParameter(std::uint32_t function, std::size_t index) {
  const FunctionModel& model = index_.function(function);
  if (index >= model.params.size()) return kUnknown;
  const std::uint64_t key = (std::uint64_t{function} << 32) | index;
  return parameter_memo_.get(key, kBottom, [&]() { return computeParameter(function, index); });
}

TypeId TypeEvaluator::computeParameter(std::uint32_t function, std::size_t index) {
  const FunctionModel& model = index_.function(function);
  TypeId type = kBottom;
  const Parameter& parameter = model.params[index];
  if (index == 0 && (model.has_self || model.is_classmethod)) {
    type = selfType(function, model.is_classmethod);
  } else if (parameter.variadic) {
    type = kUnknown;
  } else {
    const FrameId own = plainFrame(function);
    if (parameter.annotation != kNoRef) type = types_.join(type, typeOf(own, parameter.annotation));
    if (parameter.default_value != kNoRef) {
      type = types_.join(type, typeOf(own, parameter.default_value));
    }
    type = types_.join(type, parameterFromCallSites(function, index));
  }
  if (type == kBottom) type = kUnknown;
  return type;
}

TypeId TypeEvaluator::selfType(std::uint32_t function, bool as_class) {
  const FunctionModel& model = index_.function(function);
  if (model.class_index < 0) return kUnknown;
  const std::uint32_t own = index_.classId(index_.functionFile(function), model.class_index);
  const Atom::Kind kind = as_class ? Atom::Kind::kClass : Atom::Kind::kInstance;
  // A method runs with an instance of its class or of any subclass (through the subclass's
  // own calls, or super()).
  TypeId type = types_.atom({kind, 0, own, 0});
  for (std::uint32_t sub : subclasses(own))
    type = types_.join(type, types_.atom({kind, 0, sub, 0}));
  return type;
}

CallArguments TypeEvaluator::argumentsOf(FrameId frame, const Reference& call) {
  CallArguments arguments;
  arguments.complete = !call.splat;
  const auto positional = static_cast<std::size_t>(std::max(call.index, 0));
  for (std::size_t i = 0; i < positional && i + 1 < call.operands.size(); ++i) {
    arguments.positional.push_back(typeOf(frame, call.operands[i + 1]));
  }
  for (std::size_t i = 0; i < call.names.size() && 1 + positional + i < call.operands.size(); ++i) {
    arguments.keywords.emplace_back(call.names[i],
                                    typeOf(frame, call.operands[1 + positional + i]));
  }
  return arguments;
}

std::vector<TypeId> TypeEvaluator::bindParameters(std::uint32_t callee,
                                                  const CallArguments& arguments,
                                                  const std::vector<TypeId>& bound) {
  const FunctionModel& model = index_.function(callee);
  std::vector<TypeId> params(model.params.size(), kBottom);
  std::size_t next = 0;
  for (; next < bound.size() && next < params.size(); ++next) params[next] = bound[next];
  for (TypeId argument : arguments.positional) {
    if (next >= params.size() || model.params[next].variadic) break;
    params[next++] = argument;
  }
  for (const auto& [name, type] : arguments.keywords) {
    for (std::size_t i = 0; i < model.params.size(); ++i) {
      if (!model.params[i].variadic && model.params[i].name == name) params[i] = type;
    }
  }
  return params;
}

TypeId TypeEvaluator::globalType(std::string_view dotted, std::uint32_t from_file) {
  std::string key(dotted);
  key.push_back('\0');
  key.append(reinterpret_cast<const char*>(&from_file), sizeof(from_file));
  return global_memo_.get(key, kBottom, [&]() { return resolveDotted(dotted, from_file, 0); });
}

TypeId TypeEvaluator::resolveDotted(std::string_view dotted, std::uint32_t from_file, int depth) {
  if (depth > kMaxNameDepth || dotted.empty()) return kUnknown;
  // The longest prefix that is a module of the program decides what the rest means.
  for (std::size_t cut = dotted.size(); cut != std::string_view::npos && cut > 0;
       cut = cut == 0 ? std::string_view::npos : dotted.rfind('.', cut - 1)) {
    const std::uint32_t module = index_.moduleFile(dotted.substr(0, cut), from_file);
    if (module == kNoId) {
      if (cut == 0) break;
      continue;
    }
    if (cut == dotted.size()) return types_.atom({Atom::Kind::kModule, 0, module, 0});
    std::string_view rest = dotted.substr(cut + 1);
    std::size_t dot = rest.find('.');
    TypeId type = moduleMember(module, rest.substr(0, dot), depth);
    while (dot != std::string_view::npos) {
      std::size_t next = rest.find('.', dot + 1);
      type = attributeType(type, rest.substr(dot + 1, next - dot - 1));
      dot = next;
    }
    return type;
  }
  // A directory of modules without an __init__.py of its own (a namespace package).
  if (index_.isPackage(dotted)) {
    return types_.atom({Atom::Kind::kModule, 0, kNoId, types_.name(dotted)});
  }
  return types_.atom({Atom::Kind::kExternal, 0, types_.name(dotted), 0});
}

TypeId TypeEvaluator::moduleMember(std::uint32_t file, std::string_view name, int depth) {
  const FileModel& module = index_.file(file);
  if (!module.lowered) return kUnknown;  // no file the run lowers imports it
  if (const auto* global = findSorted(module.globals, name)) {
    return typeOf(plainFrame(index_.functionId(file, 0)), global->second);
  }
  if (const auto* alias = findSorted(module.import_aliases, name)) {
    return resolveDotted(alias->second, file, depth + 1);
  }
  std::string submodule = module.module_name + "." + std::string(name);
  if (!module.module_name.empty() && index_.moduleFile(submodule, file) != kNoId) {
    return resolveDotted(submodule, file, depth + 1);
  }
  TypeId found = kBottom;
  for (const std::string& star : module.star_imports) {
    found = types_.join(found, resolveDotted(star + "." + std::string(name), file, depth + 1));
  }
  if (found != kBottom) return found;
  return kBottom;
}

TypeId TypeEvaluator::decoratedFunction(std::uint32_t function, FrameId closure) {
  const FunctionModel& model = index_.function(function);
  TypeId type =
      types_.atom({Atom::Kind::kFunction, 0, function, 0, closure == kNoId ? 0 : closure + 1});
  if (model.decorators.empty() || model.parent == kNoFunction) return type;
  const std::uint64_t key = (std::uint64_t{function} << 32) | closure;
  return decorated_memo_.get(key, type, [&]() { return applyDecorators(function, closure, type); });
}

TypeId TypeEvaluator::applyDecorators(std::uint32_t function, FrameId closure, TypeId type) {
  const FunctionModel& model = index_.function(function);
  const std::uint32_t file = index_.functionFile(function);
  const FrameId scope =
      closure != kNoId ? closure : plainFrame(index_.functionId(file, model.parent));
  for (RefId decorator : model.decorators) {
    TypeId applied = kBottom;
    TypeId decorator_type = typeOf(scope, decorator);
    for (const Atom& atom : types_.atoms(decorator_type)) {
      CallArguments arguments;
      arguments.positional.push_back(type);
      switch (atom.kind) {
        case Atom::Kind::kFunction:
          // The decorator's result for this function alone: an identity decorator applied to
          // hundreds of functions must not hand each one all of them.
          applied = types_.join(applied, returnType(atom.a, bindParameters(atom.a, arguments, {}),
                                                    atom.c - 1, /*exact=*/true));
          break;
        case Atom::Kind::kBoundMethod:
        case Atom::Kind::kClass:
        case Atom::Kind::kInstance:
          applied = types_.join(applied, callResult(types_.atom(atom), arguments));
          break;
        default:
          // A library decorator (functools.cache, torch.no_grad(), contextmanager): the name
          // still calls the function, which is what a call graph needs.
          applied = types_.join(applied, type);
          break;
      }
    }
    // A decorator whose result the model cannot type keeps the function: most do.
    if (applied == kBottom || !types_.isExact(applied)) applied = types_.join(applied, type);
    type = applied;
  }
  return type;
}

}  // namespace graphsafe::program
