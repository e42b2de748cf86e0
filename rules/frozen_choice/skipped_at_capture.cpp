// GS108 skipped-at-capture: captured code that leaves out the parameters without a
// gradient (`if p.grad is None: continue` in an optimizer's or a fused helper's loop, an early
// return on `grad is None`, a torch.optim step, which skips them the same way). The test runs
// once, at capture: a parameter whose gradient appears only later (an expert not routed to yet,
// a layer unused by the first batch, one unfrozen after the capture) is missing from the graph,
// and no replay ever updates it. Quiet where the same graph captures the backward (the set of
// parameters with a gradient is then frozen with it) and where the program gives every
// parameter a gradient outside a capture (`p.grad = torch.zeros_like(p)`,
// `zero_grad(set_to_none=False)`, which keeps the warm-up's buffers).
#include <string>
#include <string_view>

#include "analyzer/engine/check.h"
#include "analyzer/program/capture_flow.h"
#include "analyzer/program/program_model.h"

namespace graphsafe {

namespace {

const Reference* at(const std::vector<Reference>& references, RefId ref) {
  ref = throughLocal(references, ref);
  return ref < references.size() ? &references[ref] : nullptr;
}

bool isGradient(const std::vector<Reference>& references, RefId ref) {
  const Reference* reference = at(references, ref);
  return reference != nullptr && reference->kind == Reference::Kind::kAttribute &&
         reference->name == "grad";
}

bool isNone(const std::vector<Reference>& references, RefId ref) {
  const Reference* reference = at(references, ref);
  return reference != nullptr && reference->kind == Reference::Kind::kNone;
}

// Does the condition test whether a `.grad` is None (`p.grad is None`, `p.grad is not None`,
// `not (...)`, one side of `and`/`or`)? An identity test is a kOperation with index 1.
bool testsGradientPresence(const std::vector<Reference>& references, RefId ref, int depth) {
  const Reference* reference = at(references, ref);
  if (reference == nullptr || depth > 6) return false;
  using Kind = Reference::Kind;
  if (reference->kind == Kind::kOperation && reference->index == 1 &&
      reference->operands.size() == 2) {
    const RefId a = reference->operands[0];
    const RefId b = reference->operands[1];
    if ((isGradient(references, a) && isNone(references, b)) ||
        (isNone(references, a) && isGradient(references, b))) {
      return true;
    }
  }
  if (reference->kind != Kind::kOperation && reference->kind != Kind::kNarrowed &&
      reference->kind != Kind::kJoin) {
    return false;
  }
  for (RefId operand : reference->operands) {
    if (testsGradientPresence(references, operand, depth + 1)) return true;
  }
  return false;
}

bool isBackward(const Event& event) {
  return event.kind == EventKind::kCall &&
         (event.api == "torch.Tensor.backward" || event.api == "torch.autograd.backward");
}

// Does the region's code, or a function it calls (a few calls deep, across files), run a
// backward?
bool runsBackward(const ProgramModel& program, const FileModel& file, const FunctionModel& function,
                  std::int32_t region, int depth) {
  for (const Event& event : function.events) {
    if (region >= 0 && event.region != region) continue;
    if (isBackward(event)) return true;
    if (depth == 0 || event.kind != EventKind::kCall) continue;
    FunctionRef callee = program.resolveCall(file, function, event);
    if (callee && callee.function != &function &&
        runsBackward(program, *callee.file, *callee.function, -1, depth - 1)) {
      return true;
    }
  }
  return false;
}

bool insideRegion(const FileModel& file, const CaptureFlow& flow, std::uint32_t position) {
  for (std::size_t r = 0; r < file.regions.size(); ++r) {
    if (!file.regions[r].whole_function && CaptureFlow::contains(flow.span(r), position)) {
      return true;
    }
  }
  return false;
}

// `opt.zero_grad(set_to_none=False)`, `model.zero_grad(False)`.
bool keepsGradients(const FileModel& file, const Event& call) {
  if (call.kind != EventKind::kCall || call.call >= file.references.size()) return false;
  const Reference& reference = file.references[call.call];
  if (reference.operands.empty()) return false;
  const Reference* callee = at(file.references, reference.operands[0]);
  if (callee == nullptr || callee->kind != Reference::Kind::kAttribute ||
      callee->name != "zero_grad") {
    return false;
  }
  const auto positional = static_cast<std::size_t>(std::max(reference.index, 0));
  for (std::size_t i = 1; i < reference.operands.size(); ++i) {
    const bool keyword = i > positional;
    if (keyword && reference.names[i - 1 - positional] != "set_to_none") continue;
    if (!keyword && i != 1) continue;
    const Reference* value = at(file.references, reference.operands[i]);
    if (value != nullptr && value->kind == Reference::Kind::kHost && value->name == "False") {
      return true;
    }
  }
  return false;
}

// Does code of the program outside any capture give parameters a gradient that stays (a
// `.grad` bound to a tensor, gradients zeroed in place)?
bool materializesGradients(const ProgramModel& program) {
  for (const FileModel& file : program.files()) {
    if (file.language != Language::kPython) continue;
    const CaptureFlow& flow = program.captureFlow(file);
    for (const AttributeWrite& write : file.attribute_writes) {
      if (write.name != "grad" || write.augmented || isNone(file.references, write.value)) {
        continue;
      }
      if (!insideRegion(file, flow, write.range.begin)) return true;
    }
    for (const FunctionModel& function : file.functions) {
      for (const Event& event : function.events) {
        if (event.region < 0 && keepsGradients(file, event)) return true;
      }
    }
  }
  return false;
}

// `if p.grad is None: p.grad = torch.zeros_like(p)`: the function gives the gradient a buffer
// where it finds none, instead of skipping the parameter.
bool givesGradients(const FileModel& file, const FunctionModel& function) {
  for (const AttributeWrite& write : file.attribute_writes) {
    if (write.name == "grad" && !write.augmented && write.function < file.functions.size() &&
        &file.functions[write.function] == &function && !isNone(file.references, write.value)) {
      return true;
    }
  }
  return false;
}

// A torch.optim step: the lowering names it when the file built the optimizer; otherwise the
// program model types the receiver.
bool isLibraryOptimizerStep(const RegionContext& context, const Event& event) {
  if (event.kind != EventKind::kCall) return false;
  if (event.api == "torch.optim.Optimizer.step") return true;
  if (event.callee != kNoFunction || !event.callee_qualified.empty() ||
      event.call >= context.file->references.size()) {
    return false;
  }
  const Reference& call = context.file->references[event.call];
  if (call.operands.empty()) return false;
  const Reference* callee = at(context.file->references, call.operands[0]);
  if (callee == nullptr || callee->kind != Reference::Kind::kAttribute || callee->name != "step") {
    return false;
  }
  for (const std::string& api :
       context.program->libraryCallees(context.frame, *context.file, event)) {
    if (api.starts_with("torch.optim.") && !api.starts_with("torch.optim.lr_scheduler.") &&
        api.ends_with(".step")) {
      return true;
    }
  }
  return false;
}

class SkippedAtCaptureCheck final : public Check {
 public:
  std::string_view id() const override { return "GS108"; }

  void checkRegionEvent(const RegionContext& context, const Event& event,
                        DiagnosticSink& sink) const override {
    if (context.program == nullptr || context.traced() ||
        context.file->language != Language::kPython) {
      return;
    }
    const bool branch = event.kind == EventKind::kBranch && event.api != "assert" &&
                        event.api != "guard" &&
                        testsGradientPresence(context.file->references, event.subject.ref, 0);
    const bool library_step = !branch && isLibraryOptimizerStep(context, event);
    if ((!branch && !library_step) ||
        (branch && givesGradients(*context.file, *context.function))) {
      return;
    }
    const FunctionRef home = context.program->regionFunction(*context.region_file, *context.region);
    if (!home) return;
    const auto region =
        static_cast<std::int32_t>(context.region - context.region_file->regions.data());
    if (runsBackward(*context.program, *home.file, *home.function,
                     context.region->whole_function ? -1 : region, 3) ||
        materializesGradients(*context.program)) {
      return;
    }
    const std::string consequence =
        ": a parameter that has no gradient then (an expert not routed to yet, a layer the "
        "first batches leave unused, one unfrozen later) is left out of every replay and "
        "silently stops learning";
    if (branch) {
      sink.report(context, event.range,
                  "the test `" + event.subject.text +
                      "` is decided once, at capture, for each parameter" + consequence,
                  std::nullopt);
      return;
    }
    sink.report(context, event.range,
                "`" + event.text +
                    "` is captured without the backward that fills the gradients: a torch.optim "
                    "step updates only the parameters whose `.grad` is not None at capture" +
                    consequence);
  }
};

}  // namespace

std::unique_ptr<Check> makeSkippedAtCaptureCheck() {
  return std::make_unique<SkippedAtCaptureCheck>();
}

}  // namespace graphsafe
