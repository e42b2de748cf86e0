// GS106 host-side-effect: under capture, Python state changed (a counter, a container, an
// attribute, a global) or output printed or logged. Replay re-issues device work only: these run
// once, while the graph is recorded. A print of a tensor is a host synchronization, reported by
// GS401 alone; logging is reported as a warning (it loses messages, not results), and in other
// modules than the capture's only when it shows a value that varies between replays.
#include "analyzer/engine/check.h"
#include "rules/frozen_choice/run_once_path.h"
#include "rules/frozen_choice/varying_value.h"

namespace graphsafe {

namespace {

bool contains(const SourceRange& outer, const SourceRange& inner) {
  return outer.begin <= inner.begin && inner.end <= outer.end;
}

// Does GS401 report a synchronization inside this call (print(t), print(f"{t}"), x.item())?
// Those events come right before the call's own event.
bool synchronizesInside(const RegionContext& context, const Event& call) {
  const std::vector<Event>& events = context.function->events;
  const Event* first = events.data();
  const Event* at = &call;
  if (at < first || at >= first + events.size()) return false;
  for (const Event* event = at; event-- != first;) {
    if (!contains(call.range, event->range)) break;
    if (event->kind != EventKind::kHostSync) continue;
    Value subject = context.resolve(event->subject);
    if ((event->flags & kFlagNeedsTensor) != 0 && !subject.isTensor()) continue;
    if ((event->flags & kFlagNotKnownHost) != 0 && subject.isKnownHost()) continue;
    return true;
  }
  return false;
}

// Is the value a literal of the source (`True`, `0`, `"ready"`, `None`)?
bool isLiteral(const FileModel& file, const Value& value) {
  if (value.ref < file.references.size()) {
    const Reference::Kind kind = file.references[value.ref].kind;
    return kind == Reference::Kind::kHost || kind == Reference::Kind::kNone;
  }
  return value.kind == ValueKind::kHostConstant && value.param_deps == 0 &&
         value.origin == ValueOrigin::kLiteral;
}

// Does a log call show a value that changes between replays (an argument the model knows
// varies)?
bool showsVaryingValue(const RegionContext& context, const Event& call) {
  for (const Value& argument : call.args) {
    if (variesBetweenReplays(context, context.resolve(argument))) return true;
  }
  return false;
}

class HostSideEffectCheck final : public Check {
 public:
  std::string_view id() const override { return "GS106"; }

  void checkRegionEvent(const RegionContext& context, const Event& event,
                        DiagnosticSink& sink) const override {
    if (event.kind != EventKind::kHostSideEffect || reachedThroughRunOnce(context)) return;
    const bool logging = (event.flags & kFlagLogging) != 0;
    const bool output = logging || event.api == "builtins.print";
    const std::string what = "`" + event.text + "`";
    // A closure changing a local of a function that itself runs under this capture: state that
    // lives and dies within the captured call. (The region's own function binds its locals
    // before the capture, unless the whole function is what is captured.)
    if (event.callee != kNoFunction && event.callee < context.file->functions.size()) {
      const FunctionModel* owner = &context.file->functions[event.callee];
      for (std::size_t i = context.region->whole_function ? 0 : 1; i < context.path.size(); ++i) {
        if (context.path[i].file == context.file && context.path[i].caller == owner) return;
      }
    }
    // On an object other than the capturing one, a constant assigned to an attribute (a flag
    // set, a cache reset) leaves the state a replay would leave: only other code changing it
    // between replays would tell, and that is not known. An update (`+=`), a value computed
    // from the state (`s[0] = s[0] + 1`) and a varying value are reported.
    const Value subject = context.resolve(event.subject);
    if (!onCapturingObject(context) && event.api == "attribute assignment" &&
        isLiteral(*context.file, event.subject)) {
      return;
    }
    if (output) {
      if (synchronizesInside(context, event)) return;
      // A log in another module the capture reaches (a library's configuration notes) is
      // reported only when it shows a value that changes between replays: a constant message
      // logged once at capture says what it would say on every replay.
      if (logging && context.file != context.region_file && !showsVaryingValue(context, event)) {
        return;
      }
      sink.report(context, event.range,
                  what + (logging ? " logs" : " prints") +
                      " once, while the graph is recorded: replays run only the recorded device "
                      "work, so nothing is " +
                      (logging ? "logged" : "printed") +
                      " for them and any values shown are the capture's",
                  std::nullopt, logging ? std::optional(Severity::kWarning) : std::nullopt);
      return;
    }
    if (!subject.isKnownHost()) return;
    sink.report(context, event.range,
                what +
                    " changes Python state under capture: it runs once, when the graph is "
                    "recorded, never on replay, so code that reads it afterwards sees the "
                    "capture-time state");
  }
};

}  // namespace

std::unique_ptr<Check> makeHostSideEffectCheck() {
  return std::make_unique<HostSideEffectCheck>();
}

}  // namespace graphsafe
