// GS103 frozen-scalar: under capture, a host scalar that changes between replays passed to a
// tensor operation or a kernel launch. Its capture-time value is copied into the kernel node's
// arguments; a tensor would be read through its address at replay time. A size or a slice bound
// is GS105's (the frontends record those as kShapeUse right before the operation); a copy from
// pageable memory fails capture outright and is GS402's.
#include "analyzer/engine/check.h"
#include "rules/frozen_choice/run_once_path.h"
#include "rules/frozen_choice/varying_value.h"

namespace graphsafe {

namespace {

bool contains(const SourceRange& outer, const SourceRange& inner) {
  return outer.begin <= inner.begin && inner.end <= outer.end;
}

// The shape arguments recorded for this operation: the kShapeUse events just before it, inside
// its range.
std::vector<const Event*> shapeUsesOf(const std::vector<Event>& events, const Event& op) {
  std::vector<const Event*> shapes;
  const Event* first = events.data();
  const Event* at = &op;
  if (at < first || at >= first + events.size()) return shapes;
  for (const Event* event = at; event-- != first;) {
    if (!contains(op.range, event->range)) break;
    if (event->kind == EventKind::kShapeUse) shapes.push_back(event);
  }
  return shapes;
}

bool isShapeArgument(const std::vector<const Event*>& shapes, const Value& argument) {
  for (const Event* shape : shapes) {
    const std::string& text = shape->subject.text;
    if (!text.empty() && argument.text.find(text) != std::string::npos) return true;
  }
  return false;
}

// Python: does the operation run on the device? A torch function or custom operator does; a
// method or an operator does when its receiver or an operand is a tensor in this context.
bool isDeviceWork(const RegionContext& context, const Event& event) {
  if (event.api.starts_with("torch.Tensor.")) return context.resolve(event.subject).isTensor();
  if (event.api.starts_with("operator.")) {
    for (const Value& argument : event.args) {
      if (context.resolve(argument).isTensor()) return true;
    }
    return false;
  }
  return true;
}

class FrozenScalarCheck final : public Check {
 public:
  std::string_view id() const override { return "GS103"; }

  void checkRegionEvent(const RegionContext& context, const Event& event,
                        DiagnosticSink& sink) const override {
    if (event.kind != EventKind::kTensorOp || (event.flags & kFlagPageableSource) != 0) return;
    const bool python = context.file->language == Language::kPython;
    if (python && (!isDeviceWork(context, event) || reachedThroughRunOnce(context))) return;
    std::vector<const Event*> shapes;
    if (python) shapes = shapeUsesOf(context.function->events, event);
    auto frozen = [&](const Value& argument) {
      Value value = context.resolve(argument);
      if (!variesBetweenReplays(context, value)) return false;
      if (isShapeArgument(shapes, argument)) return false;
      const std::string op = event.text.empty() ? event.api : event.text;
      const std::string name = argument.text.empty() ? std::string("a host scalar")
                                                     : "the host value `" + argument.text + "`";
      sink.report(context, event.range,
                  name + " is copied into the captured `" + op + "` as a constant, but " +
                      whyItVaries(context, value) +
                      ": every replay computes with its capture-time value",
                  std::nullopt, std::nullopt, whereItVaries(context, value));
      return true;
    };
    for (const Value& argument : event.args) {
      if (frozen(argument)) return;
    }
    for (const KeywordArg& keyword : event.keywords) {
      if (frozen(keyword.value)) return;
    }
  }
};

}  // namespace

std::unique_ptr<Check> makeFrozenScalarCheck() {
  return std::make_unique<FrozenScalarCheck>();
}

}  // namespace graphsafe
