#include "frontends/python/reference_builder.h"

namespace graphsafe::python {

namespace {

// References past this many in one file are not made (the call or name stays unknown): a
// generated file of millions of expressions must not cost more than itself.
constexpr std::size_t kMaxReferences = 1u << 22;

}  // namespace

RefId ReferenceBuilder::add(Reference reference) {
  if (references_.size() >= kMaxReferences) return kNoRef;
  references_.push_back(std::move(reference));
  return static_cast<RefId>(references_.size() - 1);
}

RefId ReferenceBuilder::global(std::string_view dotted) {
  if (dotted.empty()) return kNoRef;
  auto it = globals_.find(dotted);
  if (it != globals_.end()) return it->second;
  Reference reference;
  reference.kind = Reference::Kind::kGlobal;
  reference.name = std::string(dotted);
  RefId id = add(std::move(reference));
  if (id != kNoRef) globals_.emplace(std::string(dotted), id);
  return id;
}

RefId ReferenceBuilder::once(Reference::Kind kind, std::uint32_t function, std::int32_t index) {
  auto key = std::make_tuple(static_cast<int>(kind), function, index);
  auto it = simple_.find(key);
  if (it != simple_.end()) return it->second;
  Reference reference;
  reference.kind = kind;
  reference.function = function;
  reference.index = index;
  RefId id = add(std::move(reference));
  if (id != kNoRef) simple_.emplace(key, id);
  return id;
}

RefId ReferenceBuilder::parameter(FunctionId function, std::size_t index) {
  return once(Reference::Kind::kParameter, function, static_cast<std::int32_t>(index));
}

RefId ReferenceBuilder::function(FunctionId function, bool as_named) {
  return once(Reference::Kind::kFunction, function, as_named ? 1 : 0);
}

RefId ReferenceBuilder::classRef(std::int32_t index) {
  return once(Reference::Kind::kClass, kNoFunction, index);
}

RefId ReferenceBuilder::superOf(FunctionId function) {
  return once(Reference::Kind::kSuper, function, -1);
}

RefId ReferenceBuilder::attribute(RefId object, std::string_view name) {
  if (object == kNoRef || name.empty()) return kNoRef;
  auto it = attributes_.find(std::make_pair(object, std::string(name)));
  if (it != attributes_.end()) return it->second;
  Reference reference;
  reference.kind = Reference::Kind::kAttribute;
  reference.name = std::string(name);
  reference.operands.push_back(object);
  RefId id = add(std::move(reference));
  if (id != kNoRef) attributes_.emplace(std::make_pair(object, std::string(name)), id);
  return id;
}

RefId ReferenceBuilder::element(RefId container, std::int32_t position, std::string_view key,
                                RefId index) {
  if (container == kNoRef) return kNoRef;
  Reference reference;
  reference.kind = Reference::Kind::kElement;
  reference.index = position;
  reference.name = std::string(key);
  reference.operands.push_back(container);
  if (index != kNoRef && position < 0 && key.empty()) reference.operands.push_back(index);
  return add(std::move(reference));
}

RefId ReferenceBuilder::join(RefId a, RefId b) {
  if (a == b || b == kNoRef) return a;
  if (a == kNoRef) return b;
  Reference reference;
  reference.kind = Reference::Kind::kJoin;
  // Flatten a join of joins, so that a name bound in many branches stays one level deep.
  for (RefId side : {a, b}) {
    const Reference& part = references_[side];
    if (part.kind == Reference::Kind::kJoin) {
      reference.operands.insert(reference.operands.end(), part.operands.begin(),
                                part.operands.end());
    } else {
      reference.operands.push_back(side);
    }
  }
  return add(std::move(reference));
}

RefId ReferenceBuilder::call(RefId callee, std::vector<RefId> positional,
                             std::vector<RefId> keyword_values,
                             std::vector<std::string> keyword_names, bool splat) {
  Reference reference;
  reference.kind = Reference::Kind::kCall;
  reference.splat = splat;
  reference.index = static_cast<std::int32_t>(positional.size());
  reference.operands.reserve(1 + positional.size() + keyword_values.size());
  reference.operands.push_back(callee);
  reference.operands.insert(reference.operands.end(), positional.begin(), positional.end());
  reference.operands.insert(reference.operands.end(), keyword_values.begin(), keyword_values.end());
  reference.names = std::move(keyword_names);
  return add(std::move(reference));
}

RefId ReferenceBuilder::container(ContainerKind kind, std::vector<RefId> elements,
                                  std::vector<std::string> keys) {
  Reference reference;
  reference.kind = Reference::Kind::kContainer;
  reference.container = kind;
  reference.operands = std::move(elements);
  reference.names = std::move(keys);
  return add(std::move(reference));
}

RefId ReferenceBuilder::instanceOf(RefId classes) {
  if (classes == kNoRef) return kNoRef;
  Reference reference;
  reference.kind = Reference::Kind::kInstanceOf;
  reference.operands.push_back(classes);
  return add(std::move(reference));
}

RefId ReferenceBuilder::updated(RefId container, std::string_view key, RefId value) {
  if (value == kNoRef) return container;
  Reference reference;
  reference.kind = Reference::Kind::kUpdated;
  reference.name = std::string(key);
  reference.operands = {container, value};
  return add(std::move(reference));
}

RefId ReferenceBuilder::tensor(TensorMemory memory) {
  return once(Reference::Kind::kTensor, kNoFunction, static_cast<std::int32_t>(memory));
}

RefId ReferenceBuilder::host(std::string_view literal) {
  if (literal.empty()) return once(Reference::Kind::kHost, kNoFunction, -1);
  auto it = literals_.find(literal);
  if (it != literals_.end()) return it->second;
  Reference reference;
  reference.kind = Reference::Kind::kHost;
  reference.name = std::string(literal);
  RefId id = add(std::move(reference));
  if (id != kNoRef) literals_.emplace(std::string(literal), id);
  return id;
}

RefId ReferenceBuilder::none() {
  return once(Reference::Kind::kNone, kNoFunction, -1);
}

RefId ReferenceBuilder::operation(std::vector<RefId> operands, bool host_truth) {
  // An operand lowering could not name stays an unknown operand: the result is then a tensor
  // only when another operand is one, never a host value.
  Reference reference;
  reference.kind = Reference::Kind::kOperation;
  reference.index = host_truth ? 1 : 0;
  reference.operands = std::move(operands);
  return add(std::move(reference));
}

RefId ReferenceBuilder::narrowed(RefId value) {
  if (value == kNoRef) return kNoRef;
  Reference reference;
  reference.kind = Reference::Kind::kNarrowed;
  reference.operands.push_back(value);
  return add(std::move(reference));
}

RefId ReferenceBuilder::local(FunctionId function, std::string_view name, RefId value) {
  if (name.empty()) return value;
  auto key = std::make_tuple(function, std::string(name), value);
  auto it = locals_.find(key);
  if (it != locals_.end()) return it->second;
  Reference reference;
  reference.kind = Reference::Kind::kLocal;
  reference.function = function;
  reference.name = std::string(name);
  reference.operands.push_back(value);
  RefId id = add(std::move(reference));
  if (id != kNoRef) locals_.emplace(std::move(key), id);
  return id;
}

}  // namespace graphsafe::python
