// GS105 frozen-shape: under capture, a host value that changes between replays sets a shape: a
// slice bound of a tensor, the size given to a factory, the target of view/reshape/expand, the
// length of narrow/split. Launch shapes and allocations are fixed at capture, so every replay
// processes the capture-time number of elements.
#include "analyzer/engine/check.h"
#include "rules/frozen_choice/run_once_path.h"
#include "rules/frozen_choice/varying_value.h"

namespace graphsafe {

namespace {

class FrozenShapeCheck final : public Check {
 public:
  std::string_view id() const override { return "GS105"; }

  void checkRegionEvent(const RegionContext& context, const Event& event,
                        DiagnosticSink& sink) const override {
    if (event.kind != EventKind::kShapeUse) return;
    Value value = context.resolve(event.subject);
    if (!variesBetweenReplays(context, value) || reachedThroughRunOnce(context)) return;
    // A slice or view of something that turns out not to be a tensor on this path (a list).
    if (!event.args.empty() && !context.resolve(event.args.front()).isTensor()) return;
    const std::string what =
        event.subject.text.empty() ? std::string("a host value") : "`" + event.subject.text + "`";
    sink.report(context, event.range,
                what + " sets a shape in `" + event.text + "` at capture, but " +
                    whyItVaries(context, value) +
                    ": the graph's launch sizes and buffers are fixed, so every replay processes "
                    "the capture-time size",
                std::nullopt, std::nullopt, whereItVaries(context, value));
  }
};

}  // namespace

std::unique_ptr<Check> makeFrozenShapeCheck() {
  return std::make_unique<FrozenShapeCheck>();
}

}  // namespace graphsafe
