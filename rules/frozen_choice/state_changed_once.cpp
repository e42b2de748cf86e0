// GS107 state-changed-once: a library call whose device work (if any) is recorded but whose
// host-side bookkeeping runs only while capturing. The frontend marks the calls it can name
// (a GradScaler's unscale_, RNG seeding, an optimizer built with its step count on the host,
// the configuration's extra-state-apis) as kStateChange events; for a call on a receiver only
// the program model can type (`self.scaler.unscale_(opt)`, `self.scheduler.step()`), this check
// asks the model which library method the call runs.
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/engine/check.h"
#include "analyzer/program/program_model.h"
#include "rules/frozen_choice/run_once_path.h"

namespace graphsafe {

namespace {

enum class StateKind { kNone, kUnscale, kScheduler, kSeed, kOptimizerStep, kConfigured };

bool endsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

StateKind kindOf(std::string_view api) {
  if (endsWith(api, "GradScaler.unscale_")) return StateKind::kUnscale;
  if (api.starts_with("torch.optim.lr_scheduler.") && endsWith(api, ".step")) {
    return StateKind::kScheduler;
  }
  if (api.starts_with("torch.optim.") && endsWith(api, ".step")) return StateKind::kOptimizerStep;
  if (endsWith(api, "seed") || endsWith(api, "seed_all") || endsWith(api, "rng_state") ||
      endsWith(api, "rng_state_all") || endsWith(api, "setstate") || endsWith(api, "set_state")) {
    return StateKind::kSeed;
  }
  return StateKind::kNone;
}

std::string message(StateKind kind, const Event& event, std::string_view api) {
  const std::string what = "`" + event.text + "`";
  switch (kind) {
    case StateKind::kUnscale:
      return what +
             " runs under capture: the division of the gradients is recorded, but the "
             "GradScaler notes that this optimizer is unscaled only once, at capture, and "
             "every update() clears the note: from the second replay on, `scaler.step` "
             "unscales the gradients again and divides them by the scale twice";
    case StateKind::kScheduler:
      return what +
             " runs under capture: a learning-rate scheduler counts its steps and writes "
             "the new rate into the optimizer's param_groups in Python, once, at capture; "
             "no replay steps it again, so the rate never changes";
    case StateKind::kSeed:
      return what +
             " runs under capture: seeding or restoring a generator is host-side state, "
             "set once at capture and never again by a replay (PyTorch refuses to reseed "
             "a CUDA generator while a capture is under way)";
    case StateKind::kOptimizerStep: {
      std::string_view name = api.substr(0, api.size() - 5);  // drop ".step"
      name = name.substr(name.rfind('.') + 1);
      return what + " steps an optimizer (`" + std::string(name) +
             "`) built without `capturable=True` under capture: its step count is a Python "
             "number, so every replay applies the bias correction of the captured step (recent "
             "PyTorch refuses such a capture with an error)";
    }
    case StateKind::kConfigured:
    case StateKind::kNone:
      break;
  }
  return what +
         " is listed in extra-state-apis as a call whose host-side state changes when "
         "it runs: under capture that happens once, at capture, and replays repeat only "
         "its device work";
}

// Is the call `<receiver>.unscale_(...)` or `<receiver>.step(...)`? Typing the receiver is the
// costly part; most calls are ruled out by their name.
bool callsMethodNamed(const FileModel& file, const Event& call) {
  if (call.call >= file.references.size()) return false;
  const Reference& reference = file.references[call.call];
  if (reference.operands.empty() || reference.operands[0] >= file.references.size()) return false;
  const Reference& callee = file.references[reference.operands[0]];
  return callee.kind == Reference::Kind::kAttribute &&
         (callee.name == "unscale_" || callee.name == "step");
}

class StateChangedOnceCheck final : public Check {
 public:
  std::string_view id() const override { return "GS107"; }

  void checkRegionEvent(const RegionContext& context, const Event& event,
                        DiagnosticSink& sink) const override {
    if (event.kind != EventKind::kStateChange && event.kind != EventKind::kCall) return;
    // Done once by design (a lazy initialization, a memoized builder): the warm-up did it too.
    if (reachedThroughRunOnce(context) || (event.flags & kFlagRunsOnce) != 0) return;
    if (event.kind == EventKind::kStateChange) {
      StateKind kind = kindOf(event.api);
      if (kind == StateKind::kNone) kind = StateKind::kConfigured;
      sink.report(context, event.range, message(kind, event, event.api));
      return;
    }
    // A method of a receiver the frontend could not type.
    if (event.callee != kNoFunction || !event.callee_qualified.empty() ||
        context.program == nullptr || !callsMethodNamed(*context.file, event)) {
      return;
    }
    for (const std::string& api :
         context.program->libraryCallees(context.frame, *context.file, event)) {
      StateKind kind = kindOf(api);
      if (kind != StateKind::kUnscale && kind != StateKind::kScheduler) continue;
      sink.report(context, event.range, message(kind, event, api));
      return;
    }
  }
};

}  // namespace

std::unique_ptr<Check> makeStateChangedOnceCheck() {
  return std::make_unique<StateChangedOnceCheck>();
}

}  // namespace graphsafe
