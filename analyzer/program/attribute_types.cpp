// Classes and attributes: bases across files, the method resolution order, subclasses, and
// what `object.name` holds: a method bound to its receiver, a member of the class body, the
// join of every value assigned to it (`self.model = model` in __init__, `runner.fn = step`),
// an element of a container.
#include <algorithm>

#include "analyzer/program/type_evaluator.h"

namespace graphsafe::program {

namespace {

// Classes in one MRO at most (deeper hierarchies are broken code).
constexpr std::size_t kMaxMro = 64;

// Library bases that add no behaviour the model needs to see.
bool isNeutralBase(std::string_view name) {
  return name == "builtins.object" || name.starts_with("abc.") || name.starts_with("typing.") ||
         name.starts_with("typing_extensions.") || name == "builtins.Exception" ||
         name == "builtins.BaseException" || name.starts_with("enum.") ||
         name.starts_with("dataclasses.");
}

bool isModuleBase(std::string_view name) {
  if (!name.starts_with("torch.nn.")) return false;
  std::string_view last = name.substr(name.rfind('.') + 1);
  return !last.empty() && last.front() >= 'A' && last.front() <= 'Z';
}

// C3 linearization of a class with the given base MROs; false when they do not linearize.
bool linearize(std::uint32_t own, const std::vector<std::vector<std::uint32_t>>& sequences,
               std::vector<std::uint32_t>& out) {
  out.assign(1, own);
  std::vector<std::vector<std::uint32_t>> rest = sequences;
  while (out.size() < kMaxMro) {
    rest.erase(std::remove_if(rest.begin(), rest.end(), [](const auto& s) { return s.empty(); }),
               rest.end());
    if (rest.empty()) return true;
    bool found = false;
    for (const auto& sequence : rest) {
      std::uint32_t head = sequence.front();
      bool in_tail = std::any_of(rest.begin(), rest.end(), [&](const auto& other) {
        return std::find(other.begin() + 1, other.end(), head) != other.end();
      });
      if (in_tail) continue;
      out.push_back(head);
      for (auto& other : rest) {
        if (!other.empty() && other.front() == head) other.erase(other.begin());
      }
      found = true;
      break;
    }
    if (!found) return false;
  }
  return true;
}

}  // namespace

TypeEvaluator::ClassInfo& TypeEvaluator::classInfo(std::uint32_t class_id) {
  ClassInfo& info = classes_[class_id];
  if (info.resolved) return info;
  info.resolved = true;  // before the bases are evaluated: a cycle sees what is known so far
  info.mro.push_back(class_id);
  const ClassModel& model = index_.classModel(class_id);
  const std::uint32_t file = index_.classFile(class_id);
  const FrameId scope = plainFrame(index_.functionId(file, model.scope));
  for (RefId base : model.bases) {
    TypeId type = typeOf(scope, base);
    if (!types_.isExact(type)) info.opaque_base = true;
    for (const Atom& atom : types_.atoms(type)) {
      if (atom.kind == Atom::Kind::kClass) {
        if (atom.a != class_id &&
            std::find(info.bases.begin(), info.bases.end(), atom.a) == info.bases.end()) {
          info.bases.push_back(atom.a);
        }
      } else if (atom.kind == Atom::Kind::kExternal) {
        std::string_view name = types_.nameAt(atom.a);
        if (isModuleBase(name)) {
          info.module = true;
        } else if (!isNeutralBase(name)) {
          info.opaque_base = true;
          if (info.external_base == 0) info.external_base = atom.a;
        }
      } else {
        info.opaque_base = true;
      }
    }
  }
  std::vector<std::vector<std::uint32_t>> sequences;
  for (std::uint32_t base : info.bases) {
    const ClassInfo& base_info = classInfo(base);
    info.module = info.module || base_info.module;
    info.opaque_base = info.opaque_base || base_info.opaque_base;
    if (info.external_base == 0) info.external_base = base_info.external_base;
    sequences.push_back(base_info.mro);
  }
  sequences.push_back(info.bases);
  std::vector<std::uint32_t> mro;
  if (!linearize(class_id, sequences, mro)) {
    // Bases that do not linearize (an error in Python): depth first, each class once.
    mro.assign(1, class_id);
    for (std::uint32_t base : info.bases) {
      for (std::uint32_t ancestor : classes_[base].mro) {
        if (mro.size() < kMaxMro && std::find(mro.begin(), mro.end(), ancestor) == mro.end()) {
          mro.push_back(ancestor);
        }
      }
    }
  }
  classes_[class_id].mro = std::move(mro);
  return classes_[class_id];
}

const std::vector<std::uint32_t>& TypeEvaluator::mro(std::uint32_t class_id) {
  return classInfo(class_id).mro;
}

bool TypeEvaluator::derivesModule(std::uint32_t class_id) { return classInfo(class_id).module; }

bool TypeEvaluator::hasOpaqueBase(std::uint32_t class_id) {
  return classInfo(class_id).opaque_base;
}

std::uint32_t TypeEvaluator::externalBase(std::uint32_t class_id) {
  return classInfo(class_id).external_base;
}

const std::vector<std::uint32_t>& TypeEvaluator::subclasses(std::uint32_t class_id) {
  static const std::vector<std::uint32_t> kNone;
  if (resolving_classes_) return kNone;
  if (!subclasses_built_) {
    subclasses_built_ = true;
    subclasses_.assign(index_.classCount(), {});
    std::vector<std::vector<std::uint32_t>> direct(index_.classCount());
    for (std::uint32_t c = 0; c < index_.classCount(); ++c) {
      for (std::uint32_t base : classInfo(c).bases) direct[base].push_back(c);
    }
    for (std::uint32_t c = 0; c < index_.classCount(); ++c) {
      std::vector<std::uint32_t>& all = subclasses_[c];
      std::vector<std::uint32_t> pending = direct[c];
      while (!pending.empty() && all.size() < TypeTable::kMaxAtoms * 4) {
        std::uint32_t next = pending.back();
        pending.pop_back();
        if (next == c || std::find(all.begin(), all.end(), next) != all.end()) continue;
        all.push_back(next);
        pending.insert(pending.end(), direct[next].begin(), direct[next].end());
      }
      std::sort(all.begin(), all.end());
    }
  }
  return subclasses_[class_id];
}

std::uint32_t TypeEvaluator::lookupMethod(std::uint32_t class_id, std::string_view name) {
  for (std::uint32_t ancestor : mro(class_id)) {
    const ClassModel& model = index_.classModel(ancestor);
    auto it = std::lower_bound(model.methods.begin(), model.methods.end(), name,
                               [](const auto& entry, std::string_view key) {
                                 return std::string_view(entry.first) < key;
                               });
    if (it != model.methods.end() && it->first == name) {
      return index_.functionId(index_.classFile(ancestor), it->second);
    }
  }
  return kNoId;
}

TypeId TypeEvaluator::attributeType(TypeId object, std::string_view name) {
  if (object == kBottom) return kBottom;
  Nesting nesting(nesting_);
  if (!nesting.ok()) return kUnknown;
  std::string key(reinterpret_cast<const char*>(&object), sizeof(object));
  key.append(name);
  return attribute_memo_.get(key, kBottom, [&]() { return computeAttribute(object, name); });
}

TypeId TypeEvaluator::computeAttribute(TypeId object, std::string_view name) {
  TypeId result = types_.hasUnknown(object) ? kUnknown : kBottom;
  for (const Atom& atom : types_.atoms(object)) {
    TypeId found = kBottom;
    switch (atom.kind) {
      case Atom::Kind::kInstance:
        found = instanceAttribute(atom, name);
        break;
      case Atom::Kind::kClass:
        found = classAttribute(atom.a, name, types_.atom(atom));
        break;
      case Atom::Kind::kModule:
        if (atom.a != kNoId) {
          found = moduleMember(atom.a, name, 0);
        } else {
          found = resolveDotted(types_.nameAt(atom.b) + "." + std::string(name), kNoId, 1);
        }
        break;
      case Atom::Kind::kSuper:
        found = superAttribute(atom.a, atom.b, name);
        break;
      case Atom::Kind::kExternal:
      case Atom::Kind::kContainer:
      case Atom::Kind::kTensor:
      case Atom::Kind::kHost:
        found = libraryAttribute(atom, types_.atom(atom), name);
        break;
      case Atom::Kind::kNone:
        break;
      default:
        found = kUnknown;
        break;
    }
    result = types_.join(result, found);
  }
  return result;
}

TypeId TypeEvaluator::methodAccess(std::uint32_t method, TypeId receiver, bool through_instance) {
  const FunctionModel& model = index_.function(method);
  if (model.is_staticmethod) return types_.atom({Atom::Kind::kFunction, 0, method, 0});
  if (model.is_classmethod) {
    TypeId classes = kBottom;
    for (const Atom& atom : types_.atoms(receiver)) {
      if (atom.kind == Atom::Kind::kInstance || atom.kind == Atom::Kind::kClass) {
        classes = types_.join(classes, types_.atom({Atom::Kind::kClass, 0, atom.a, 0}));
      }
    }
    return types_.atom({Atom::Kind::kBoundMethod, 0, method, classes});
  }
  if (model.is_property) {
    return through_instance ? returnType(method, {receiver}) : kUnknown;
  }
  if (!through_instance) return types_.atom({Atom::Kind::kFunction, 0, method, 0});
  // What the decorators made of the method, bound when it is a function.
  TypeId decorated = decoratedFunction(method);
  TypeId bound = types_.hasUnknown(decorated) ? kUnknown : kBottom;
  for (const Atom& atom : types_.atoms(decorated)) {
    if (atom.kind == Atom::Kind::kFunction) {
      bound = types_.join(bound,
                          types_.atom({Atom::Kind::kBoundMethod, 0, atom.a, receiver, atom.c}));
    } else {
      bound = types_.join(bound, types_.atom(atom));
    }
  }
  return bound;
}

TypeId TypeEvaluator::instanceAttribute(const Atom& instance, std::string_view name) {
  const std::uint32_t class_id = instance.a;
  const TypeId receiver = types_.atom(instance);
  TypeId result = writtenAttribute(instance, name);
  // The class and its bases: the first that defines the name decides.
  for (std::uint32_t ancestor : std::vector<std::uint32_t>(mro(class_id))) {
    const ClassModel& model = index_.classModel(ancestor);
    const std::uint32_t file = index_.classFile(ancestor);
    auto method = std::lower_bound(model.methods.begin(), model.methods.end(), name,
                                   [](const auto& entry, std::string_view key) {
                                     return std::string_view(entry.first) < key;
                                   });
    if (method != model.methods.end() && method->first == name) {
      return types_.join(result,
                         methodAccess(index_.functionId(file, method->second), receiver, true));
    }
    TypeId member = kBottom;
    for (const auto& [member_name, ref] : model.members) {
      if (member_name != name) continue;
      member = types_.join(member,
                           typeOf(plainFrame(index_.functionId(file, model.scope)), ref));
    }
    if (member != kBottom) {
      // A function stored in the class body binds like a method.
      TypeId bound = types_.hasUnknown(member) ? kUnknown : kBottom;
      for (const Atom& atom : types_.atoms(member)) {
        bound = types_.join(bound, atom.kind == Atom::Kind::kFunction
                                       ? types_.atom({Atom::Kind::kBoundMethod, 0, atom.a,
                                                      receiver, atom.c})
                                       : types_.atom(atom));
      }
      return types_.join(result, bound);
    }
  }
  // Not found in the program: a library base may define it (nn.Module's `training`, a
  // method of the library class the program's class extends).
  if (result == kBottom) return inheritedFromLibrary(class_id, name, receiver);
  return result;
}

TypeId TypeEvaluator::classAttribute(std::uint32_t class_id, std::string_view name,
                                     TypeId receiver) {
  for (std::uint32_t ancestor : std::vector<std::uint32_t>(mro(class_id))) {
    const ClassModel& model = index_.classModel(ancestor);
    const std::uint32_t file = index_.classFile(ancestor);
    for (const auto& [method_name, method] : model.methods) {
      if (method_name == name) {
        return methodAccess(index_.functionId(file, method), receiver, false);
      }
    }
    TypeId member = kBottom;
    for (const auto& [member_name, ref] : model.members) {
      if (member_name == name) {
        member = types_.join(member,
                             typeOf(plainFrame(index_.functionId(file, model.scope)), ref));
      }
    }
    if (member != kBottom) return member;
    // A class nested in this one's body.
    const auto& classes = index_.file(file).classes;
    for (std::size_t c = 0; c < classes.size(); ++c) {
      if (classes[c].name == name &&
          classes[c].outer_class == static_cast<std::int32_t>(ancestor - index_.classId(file, 0))) {
        return types_.atom(
            {Atom::Kind::kClass, 0, index_.classId(file, static_cast<std::int32_t>(c)), 0});
      }
    }
  }
  return inheritedFromLibrary(class_id, name, types_.atom({Atom::Kind::kClass, 0, class_id, 0}));
}

TypeId TypeEvaluator::inheritedFromLibrary(std::uint32_t class_id, std::string_view name,
                                           TypeId receiver) {
  if (derivesModule(class_id)) {
    return types_.atom({Atom::Kind::kLibraryMethod, 0, types_.name(name), receiver});
  }
  if (std::uint32_t base = externalBase(class_id); base != 0) {
    return types_.atom(
        {Atom::Kind::kExternal, 0, types_.name(types_.nameAt(base) + "." + std::string(name)), 0});
  }
  return hasOpaqueBase(class_id) ? kUnknown : kBottom;
}

bool TypeEvaluator::holdsInstanceOf(TypeId type, std::uint32_t class_id) const {
  const auto& atoms = types_.atoms(type);
  return std::any_of(atoms.begin(), atoms.end(), [&](const Atom& atom) {
    return atom.kind == Atom::Kind::kInstance && atom.a == class_id;
  });
}

const std::vector<std::pair<std::uint32_t, const AttributeWrite*>>& TypeEvaluator::writesNamed(
    std::string_view name) {
  if (!writes_built_) {
    writes_built_ = true;
    for (std::uint32_t f = 0; f < index_.files().size(); ++f) {
      for (const AttributeWrite& write : index_.file(f).attribute_writes) {
        writes_[write.name].emplace_back(f, &write);
      }
    }
  }
  auto it = writes_.find(std::string(name));
  return it == writes_.end() ? no_writes_ : it->second;
}

TypeId TypeEvaluator::writtenAttribute(const Atom& instance, std::string_view name) {
  const auto& writes = writesNamed(name);
  if (writes.empty()) return kBottom;
  const std::uint32_t class_id = instance.a;
  const TypeId receiver = types_.atom(instance);
  // The __init__ frame of the construction this instance came from (kNoId: any construction).
  const FrameId constructed = instance.c == 0 ? kNoId : instance.c - 1;
  TypeId result = kBottom;
  for (const auto& [file, write] : writes) {
    if (write->augmented || write->function == kNoFunction) continue;
    const std::uint32_t writer = index_.functionId(file, write->function);
    const FrameId plain = plainFrame(writer);
    if (!holdsInstanceOf(typeOf(plain, write->object), class_id)) continue;
    // `self.x = ...` in a method: evaluated with self the very instance asked about, so that
    // a base's __init__ calling an overridden factory method sees the override, and in the
    // __init__ of its construction with the arguments that construction passed.
    const Reference& target = index_.file(file).references[write->object];
    FrameId frame = plain;
    if (target.kind == Reference::Kind::kParameter && target.index == 0 &&
        target.function == write->function && index_.function(writer).has_self) {
      if (constructed != kNoId && frameFunction(constructed) == writer) {
        frame = constructed;
      } else {
        std::vector<TypeId> params(index_.function(writer).params.size(), kBottom);
        params[0] = receiver;
        frame = this->frame(writer, std::move(params));
      }
    }
    result = types_.join(result, typeOf(frame, write->value));
  }
  return result;
}

TypeId TypeEvaluator::superAttribute(std::uint32_t class_id, TypeId receiver,
                                     std::string_view name) {
  TypeId result = kBottom;
  std::vector<Atom> receivers = types_.atoms(receiver);
  if (receivers.empty()) receivers.push_back({Atom::Kind::kInstance, 0, class_id, 0});
  for (const Atom& atom : receivers) {
    if (atom.kind != Atom::Kind::kInstance && atom.kind != Atom::Kind::kClass) continue;
    const std::vector<std::uint32_t> order = mro(atom.a);
    auto self = std::find(order.begin(), order.end(), class_id);
    if (self == order.end()) continue;
    bool found = false;
    for (auto next = self + 1; next != order.end() && !found; ++next) {
      const ClassModel& model = index_.classModel(*next);
      for (const auto& [method_name, method] : model.methods) {
        if (method_name != name) continue;
        result = types_.join(result, methodAccess(index_.functionId(index_.classFile(*next), method),
                                                  types_.atom(atom),
                                                  atom.kind == Atom::Kind::kInstance));
        found = true;
        break;
      }
    }
    if (!found && (hasOpaqueBase(atom.a) || derivesModule(atom.a))) {
      result = types_.join(result, kUnknown);
    }
  }
  return result;
}

TypeId TypeEvaluator::libraryAttribute(const Atom& atom, TypeId whole, std::string_view name) {
  switch (atom.kind) {
    case Atom::Kind::kExternal: {
      if (atom.b == 0) {
        // A library module or class: its members are library objects too.
        std::string dotted = types_.nameAt(atom.a) + "." + std::string(name);
        return types_.atom({Atom::Kind::kExternal, 0, types_.name(dotted), 0});
      }
      if (name == "weight" || name == "bias") return types_.atom({Atom::Kind::kTensor, 0, 0, 0});
      if (isChainingMethodName(name)) {
        return types_.atom({Atom::Kind::kLibraryMethod, 0, types_.name(name), whole});
      }
      // A method of a library object: library code, by its dotted name.
      return types_.atom(
          {Atom::Kind::kExternal, 0, types_.name(types_.nameAt(atom.a) + "." + std::string(name)),
           0});
    }
    case Atom::Kind::kContainer:
    case Atom::Kind::kHost:
      return types_.atom({Atom::Kind::kLibraryMethod, 0, types_.name(name), whole});
    case Atom::Kind::kTensor:
      if (name == "shape" || name == "dtype" || name == "device" || name == "ndim" ||
          name == "is_cuda" || name == "requires_grad") {
        return types_.atom({Atom::Kind::kHost, 0, 0, 0});
      }
      if (name == "T" || name == "mT" || name == "grad" || name == "data" || name == "real" ||
          name == "imag") {
        return whole;
      }
      return types_.atom({Atom::Kind::kLibraryMethod, 0, types_.name(name), whole});
    default:
      return kUnknown;
  }
}

TypeId TypeEvaluator::elementType(TypeId container, std::int32_t position, std::string_view key) {
  Nesting nesting(nesting_);
  if (!nesting.ok()) return kUnknown;
  TypeId result = types_.hasUnknown(container) ? kUnknown : kBottom;
  for (const Atom& atom : types_.atoms(container)) {
    switch (atom.kind) {
      case Atom::Kind::kContainer: {
        TypeId element = atom.a;
        if (atom.b != 0) {
          const Entries& entries = types_.entriesAt(atom.b - 1);
          const auto holder = static_cast<Holder>(atom.sub);
          std::uint32_t wanted = kNoId;
          if (position >= 0 && (holder == Holder::kTuple || holder == Holder::kList)) {
            wanted = static_cast<std::uint32_t>(position);
          } else if (!key.empty() && holder != Holder::kTuple && holder != Holder::kList) {
            wanted = types_.name(key);
          }
          for (const auto& [entry_key, type] : entries) {
            if (entry_key == wanted) element = type;
          }
        }
        result = types_.join(result, element);
        break;
      }
      case Atom::Kind::kInstance: {
        std::uint32_t getitem = lookupMethod(atom.a, "__getitem__");
        if (getitem != kNoId) {
          result = types_.join(result, returnType(getitem, {types_.atom(atom)}));
          break;
        }
        // Iterated: what __next__ of the iterator __iter__ returns gives, or the elements of
        // the container or generator it returns.
        std::uint32_t iter = lookupMethod(atom.a, "__iter__");
        if (iter != kNoId) {
          TypeId iterator = returnType(iter, {types_.atom(atom)});
          for (const Atom& it : types_.atoms(iterator)) {
            std::uint32_t next =
                it.kind == Atom::Kind::kInstance ? lookupMethod(it.a, "__next__") : kNoId;
            if (next != kNoId) {
              result = types_.join(result, returnType(next, {types_.atom(it)}));
            } else if (it.kind == Atom::Kind::kContainer) {
              result = types_.join(result, it.a);
            } else {
              result = types_.join(result, kUnknown);
            }
          }
          break;
        }
        result = types_.join(result, kUnknown);
        break;
      }
      case Atom::Kind::kTensor:
      case Atom::Kind::kHost:
        result = types_.join(result, types_.atom(atom));
        break;
      case Atom::Kind::kNone:
        break;
      default:
        result = types_.join(result, kUnknown);
        break;
    }
  }
  return result;
}

}  // namespace graphsafe::program
