// Host values that set a shape (kShapeUse, for GS105): slice bounds of tensors, the sizes given
// to factories, the target shape of view/reshape/expand and the lengths of narrow/split (which
// arguments those are is in shape_arguments.cpp). Only values that may vary are recorded: a
// constant, or a size read from a tensor's own shape, is fixed for the graph anyway. An integer
// index of a tensor by such a value is a scalar baked into the view (a kTensorOp for GS103).
#include "frontends/python/function_lowering.h"
#include "frontends/python/shape_arguments.h"

namespace graphsafe::python {

namespace {

}  // namespace

// A value worth recording: varying, or derived from parameters (decided per call path). With
// the program model deciding values, anything but a literal or a tensor: whether it varies is
// the model's answer, not this file's.
bool FunctionLowering::mayVary(const Value& value) const {
  if (value.isTensor() || value.ref == kNoRef) return false;
  const Reference::Kind kind = file_.refs.at(value.ref).kind;
  return kind != Reference::Kind::kHost && kind != Reference::Kind::kNone;
}

void FunctionLowering::emitShapeUse(TSNode node, const Value& value, std::string_view api,
                                    TSNode call, const ExprInfo* receiver, TSNode receiver_node) {
  if (quiet() || !mayVary(value)) return;
  Event& event = emit(EventKind::kShapeUse, node);
  event.api = std::string(api);
  event.text = file_.text.brief(call);
  event.subject = described(value, node);
  if (receiver != nullptr) event.args.push_back(described(receiver->value, receiver_node));
}

void FunctionLowering::emitShapeArgument(TSNode node, const ExprInfo& info, std::string_view api,
                                         TSNode call, const ExprInfo* receiver,
                                         TSNode receiver_node) {
  TSNode shape = unparenthesize(file_.pool, node);
  if (is(shape, g_.tuple) || is(shape, g_.list)) {
    // (n, hidden): each size on its own, so the message names the one that varies.
    for (Children it(file_.pool, shape); it.valid(); it.next()) {
      emitShapeUse(it.node(), quietEval(it.node()).value, api, call, receiver, receiver_node);
    }
    return;
  }
  emitShapeUse(node, info.value, api, call, receiver, receiver_node);
}

void FunctionLowering::emitShapeUses(const ShapeArguments& shape, std::string_view api, TSNode call,
                                     const Arguments& arguments, const ExprInfo* receiver,
                                     TSNode receiver_node) {
  if (quiet()) return;
  const std::size_t count = arguments.positional.size();
  for (std::size_t i = 0; i < count; ++i) {
    bool listed =
        (shape.from_position >= 0 && i >= static_cast<std::size_t>(shape.from_position)) ||
        (i < 8 && (shape.positions & (1u << i)) != 0) ||
        (shape.last_positional && i + 1 == count && !arguments.syntax.has_splat);
    if (listed) {
      emitShapeArgument(arguments.syntax.positional[i], arguments.positional[i], api, call,
                        receiver, receiver_node);
    }
  }
  for (std::size_t i = 0; i < arguments.keywords.size(); ++i) {
    std::string_view name = arguments.syntax.keywords[i].first;
    for (std::string_view keyword : shape.keywords) {
      if (keyword.empty() || keyword != name) continue;
      emitShapeArgument(arguments.syntax.keywords[i].second, arguments.keywords[i], api, call,
                        receiver, receiver_node);
    }
  }
}

ExprInfo FunctionLowering::lowerSlice(TSNode slice, const ExprInfo& base, TSNode base_node,
                                      TSNode subscript) {
  // A base only the program model can type (a helper's result, a parameter it binds) is sliced
  // as a tensor where the model says it is one (GS105 asks).
  bool tensorish =
      mayBeTensor(base.value) ||
      (!base.value.isKnownHost() && base.object == ObjectKind::kNone && base.ref != kNoRef);
  for (Children it(file_.pool, slice); it.valid(); it.next()) {
    ExprInfo bound = eval(it.node());
    // x[:, :lens[i]]: a slice bound is an integer, so a tensor there is read back (`__index__`).
    if (mayBeTensor(bound.value) && !bound.mask) {
      emitSync(subscript, "slice bound", file_.text.brief(subscript), bound.value, it.node(),
               kFlagImplicit | kFlagNeedsTensor);
    }
    if (tensorish) {
      emitShapeUse(it.node(), bound.value, "torch.Tensor.__getitem__", subscript, &base, base_node);
    }
  }
  return {};
}

void FunctionLowering::emitIndexUse(TSNode index, const ExprInfo& info, const ExprInfo& base,
                                    TSNode base_node, TSNode subscript) {
  // x[step]: the offset of the view is computed on the host, once.
  if (quiet() || info.mask || !mayBeTensor(base.value) || !mayVary(info.value)) {
    return;
  }
  if (is(unparenthesize(file_.pool, index), g_.slice)) return;
  Event& event = emit(EventKind::kTensorOp, subscript);
  event.api = "torch.Tensor.__getitem__";
  event.text = file_.text.brief(subscript);
  event.subject = described(base.value, base_node);
  event.args.push_back(described(info.value, index));
}

}  // namespace graphsafe::python
