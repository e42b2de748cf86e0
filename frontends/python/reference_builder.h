#pragma once

// Builds a file's references (analyzer/model/reference.h) while it is lowered. Names,
// parameters, functions and classes are made once each; the rest are appended as met.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "analyzer/model/capture_model.h"

namespace graphsafe::python {

class ReferenceBuilder {
 public:
  explicit ReferenceBuilder(std::vector<Reference>& references) : references_(references) {}

  RefId global(std::string_view dotted);
  RefId parameter(FunctionId function, std::size_t index);
  RefId function(FunctionId function, bool as_named);
  RefId classRef(std::int32_t index);
  RefId attribute(RefId object, std::string_view name);
  // An element: a position (`position` >= 0), a literal key (`key` not empty), the one an
  // index expression selects (`index`), or any.
  RefId element(RefId container, std::int32_t position = -1, std::string_view key = {},
                RefId index = kNoRef);
  RefId join(RefId a, RefId b);
  RefId call(RefId callee, std::vector<RefId> positional, std::vector<RefId> keyword_values,
             std::vector<std::string> keyword_names, bool splat);
  RefId container(ContainerKind kind, std::vector<RefId> elements,
                  std::vector<std::string> keys = {});
  RefId superOf(FunctionId function);
  RefId instanceOf(RefId classes);
  // `container` with the literal (typed) key now holding `value`.
  RefId updated(RefId container, std::string_view key, RefId value);
  RefId tensor(TensorMemory memory = TensorMemory::kUnknown);
  // A host value; `literal` is its typed key ("i:3", "s:cuda") when it is a literal.
  RefId host(std::string_view literal = {});
  RefId none();
  // What an operator computes from `operands`; `host_truth`: a truth value on the host (`not`,
  // `is`, `in`) whatever the operands are.
  RefId operation(std::vector<RefId> operands, bool host_truth = false);
  // `value` where a test proves it is no tensor.
  RefId narrowed(RefId value);
  // The local `name` of `function` holding `value`, read inside a capture region.
  RefId local(FunctionId function, std::string_view name, RefId value);

  const Reference& at(RefId id) const { return references_[id]; }

 private:
  RefId add(Reference reference);
  // A reference made of its kind, function and index only, made once.
  RefId once(Reference::Kind kind, std::uint32_t function, std::int32_t index);

  std::vector<Reference>& references_;
  std::map<std::string, RefId, std::less<>> globals_;
  std::map<std::string, RefId, std::less<>> literals_;
  std::map<std::tuple<int, std::uint32_t, std::int32_t>, RefId> simple_;
  std::map<std::pair<RefId, std::string>, RefId, std::less<>> attributes_;
  std::map<std::tuple<FunctionId, std::string, RefId>, RefId, std::less<>> locals_;
};

}  // namespace graphsafe::python
