// GS102 frozen-branch: under capture, a Python branch or loop decided by a host value that
// changes between replays. Python runs once, at capture; the graph holds only the work of the
// branch taken then, or the loop's capture-time number of iterations. Branches on tensors are
// GS101's, on a capture query GS104's, on an optional argument of a lazy capture that the program
// passes both ways GS109's, and asserts and raise-only guards are checks rather than choices of
// work.
#include "analyzer/engine/check.h"
#include "rules/frozen_choice/run_once_path.h"
#include "rules/frozen_choice/specialized_argument.h"
#include "rules/frozen_choice/varying_value.h"

namespace graphsafe {

namespace {

bool contains(const SourceRange& outer, const SourceRange& inner) {
  return outer.begin <= inner.begin && inner.end <= outer.end;
}

// Is there a capture query (is_current_stream_capturing()) in the condition? The events of the
// condition come right before the branch.
bool asksAboutCapture(const std::vector<Event>& events, const Event& branch) {
  const Event* first = events.data();
  const Event* at = &branch;
  if (at < first || at >= first + events.size()) return false;
  for (const Event* event = at; event-- != first;) {
    if (!contains(branch.range, event->range)) break;
    if (event->kind == EventKind::kCaptureQuery) return true;
  }
  return false;
}

class FrozenBranchCheck final : public Check {
 public:
  std::string_view id() const override { return "GS102"; }

  void checkRegionEvent(const RegionContext& context, const Event& event,
                        DiagnosticSink& sink) const override {
    if (event.kind != EventKind::kBranch && event.kind != EventKind::kLoop) return;
    // Asserts and `if ...: raise` guards check a value; they choose no work.
    if (event.kind == EventKind::kBranch &&
        (event.api == "assert" || event.api == "guard" ||
         (event.flags & kFlagCaptureDependent) != 0)) {
      return;
    }
    Value value = context.resolve(event.subject);
    if (!variesBetweenReplays(context, value) || reachedThroughRunOnce(context)) return;
    if (asksAboutCapture(context.function->events, event)) return;
    // A lazy capture's optional argument that the program passes both ways: GS109 reports it,
    // at the calls whose value the replays ignore.
    if (event.kind == EventKind::kBranch && specializedArgument(context, event)) return;
    const std::string what = "`" + event.subject.text + "`";
    if (event.kind == EventKind::kLoop) {
      sink.report(context, event.range,
                  "the loop over " + what +
                      " runs its capture-time number of iterations on every replay, but " +
                      whyItVaries(context, value) +
                      ": the graph holds only the iterations recorded "
                      "at capture",
                  std::nullopt, std::nullopt, whereItVaries(context, value));
      return;
    }
    sink.report(context, event.range,
                "the branch on " + what + " is decided once, at capture, but " +
                    whyItVaries(context, value) +
                    ": every replay repeats the side taken at capture, whatever the value is "
                    "then",
                std::nullopt, std::nullopt, whereItVaries(context, value));
  }
};

}  // namespace

std::unique_ptr<Check> makeFrozenBranchCheck() {
  return std::make_unique<FrozenBranchCheck>();
}

}  // namespace graphsafe
