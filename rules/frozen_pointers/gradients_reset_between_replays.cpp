// GS207 gradients-reset-between-replays: a graph whose capture ran a backward writes the
// gradient buffers the parameters held at capture. Releasing them between replays
// (`opt.zero_grad()`, whose set_to_none defaults to True, or `p.grad = None`) leaves the
// parameters without those buffers: the next replay writes memory no parameter points at, and
// an eager optimizer step after it sees no gradient. The question is one of order, answered by
// CaptureFlow: captured, then released, then replayed, with an eager reader of the gradients
// after the release. A step captured in the same graph reads the captured buffers itself and
// stays silent, as does zeroing in place (`zero_grad(set_to_none=False)`, `p.grad.zero_()`).
#include <string>
#include <string_view>

#include "analyzer/engine/check.h"
#include "analyzer/program/capture_flow.h"
#include "analyzer/program/program_model.h"

namespace graphsafe {

namespace {

// Does the region's own code, or a function of this file it calls, run a backward?
bool runsBackward(const FileModel& file, const FunctionModel& function, std::int32_t region,
                  int depth) {
  for (const Event& event : function.events) {
    if (region >= 0 && event.region != region) continue;
    if (event.kind != EventKind::kCall) continue;
    if (event.api == "torch.Tensor.backward" || event.api == "torch.autograd.backward") {
      return true;
    }
    if (depth > 0 && event.callee != kNoFunction && event.callee < file.functions.size() &&
        &file.functions[event.callee] != &function &&
        runsBackward(file, file.functions[event.callee], -1, depth - 1)) {
      return true;
    }
  }
  return false;
}

bool startsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

class GradientsResetBetweenReplaysCheck final : public Check {
 public:
  std::string_view id() const override { return "GS207"; }

  void checkFile(const FileModel& file, const ProgramModel& program,
                 DiagnosticSink& sink) const override {
    if (file.regions.empty() || file.language != Language::kPython) return;
    const CaptureFlow& flow = program.captureFlow(file);
    for (std::size_t r = 0; r < file.regions.size(); ++r) {
      const CaptureRegion& region = file.regions[r];
      if (region.whole_function || region.dynamo_traced || flow.replays(r).empty()) continue;
      if (region.function >= file.functions.size()) continue;
      if (!runsBackward(file, file.functions[region.function], static_cast<std::int32_t>(r), 2)) {
        continue;
      }
      for (const FunctionModel& function : file.functions) {
        for (const Event& reset : function.events) {
          if (reset.kind != EventKind::kGradReset || reset.region >= 0) continue;
          const std::uint32_t at = reset.range.begin;
          if (!flow.afterCapture(r, function, at) || handleIsNone(flow, r, reset)) continue;
          const CaptureFlow::Site* replay = flow.replayAfter(r, function, at);
          if (replay == nullptr) continue;
          const Event* reader = eagerReader(file, function, *replay->event);
          if (reader == nullptr) continue;
          report(file, region, reset, *replay->event, *reader, sink);
        }
      }
      checkCycle(file, r, program, sink);
    }
  }

 private:
  // An eager read of the gradients after the replay that follows the release: an optimizer
  // step (an optimizer the file built, or `<object>.step()` on a library object: a method of
  // this file's classes named `step` is not one), a GradScaler step, or clipping.
  static const Event* eagerReader(const FileModel& file, const FunctionModel& function,
                                  const Event& replay) {
    for (const Event& event : function.events) {
      if (event.region >= 0 || event.range.begin <= replay.range.begin) continue;
      if (event.api == "torch.optim.Optimizer.step" || event.api == "torch.amp.GradScaler.step" ||
          startsWith(event.api, "torch.nn.utils.clip_grad")) {
        return &event;
      }
      if (event.kind == EventKind::kCall && event.callee == kNoFunction &&
          event.callee_qualified.empty() && callsStep(file, event)) {
        return &event;
      }
    }
    return nullptr;
  }

  // `else:` of `if self.graph is not None:`: no graph exists where the release runs.
  static bool handleIsNone(const CaptureFlow& flow, std::size_t region, const Event& reset) {
    std::string_view paths = reset.source;
    while (!paths.empty()) {
      const std::size_t space = paths.find(' ');
      const std::string_view path = paths.substr(0, space);
      for (const std::string& handle : flow.handles(region)) {
        if (handle == path) return true;
      }
      if (space == std::string_view::npos) break;
      paths.remove_prefix(space + 1);
    }
    return false;
  }

  // Across functions and files: a release on the region's replay cycle (a training loop that
  // calls the graph's wrapper, a step method that replays), with an eager reader of the
  // gradients on the cycle too.
  static void checkCycle(const FileModel& file, std::size_t r, const ProgramModel& program,
                         DiagnosticSink& sink) {
    const program::ReplayCycle& cycle = program.replayCycle(file, r);
    if (cycle.empty()) return;
    const Event* reader = nullptr;
    const FileModel* reader_file = nullptr;
    for (const program::CycleSpan& span : cycle.spans()) {
      if (span.self_only || reader != nullptr) continue;
      FunctionRef function = program.function(span.function);
      if (!function) continue;
      for (const Event& event : function.function->events) {
        if (event.region >= 0 || !CaptureFlow::contains(span.span, event.range.begin)) continue;
        if (isGradientReader(*function.file, event)) {
          reader = &event;
          reader_file = function.file;
          break;
        }
      }
    }
    if (reader == nullptr) return;
    for (const FileModel& other : program.files()) {
      if (other.language != Language::kPython) continue;
      for (const FunctionModel& function : other.functions) {
        for (const Event& reset : function.events) {
          if (reset.kind != EventKind::kGradReset || reset.region >= 0) continue;
          const program::CycleSpan* span =
              cycle.at(program.functionId(other, function), reset.range.begin, false);
          if (span == nullptr || span->self_only) continue;
          if (&other == &file && handleIsNone(program.captureFlow(file), r, reset)) continue;
          reportOnCycle(file, file.regions[r], other, reset, program, *span, *reader_file, *reader,
                        sink);
        }
      }
    }
  }

  static bool isGradientReader(const FileModel& file, const Event& event) {
    return event.api == "torch.optim.Optimizer.step" || event.api == "torch.amp.GradScaler.step" ||
           startsWith(event.api, "torch.nn.utils.clip_grad") ||
           (event.kind == EventKind::kCall && event.callee == kNoFunction &&
            event.callee_qualified.empty() && callsStep(file, event));
  }

  static void reportOnCycle(const FileModel& file, const CaptureRegion& region,
                            const FileModel& reset_file, const Event& reset,
                            const ProgramModel& program, const program::CycleSpan& span,
                            const FileModel& reader_file, const Event& reader,
                            DiagnosticSink& sink) {
    const bool assignment = reset.text.find("zero_grad") == std::string::npos;
    const std::string captured = reset_file.source == file.source
                                     ? "line " + lineOf(region.site)
                                     : file.source->path() + ":" + lineOf(region.site);
    std::string message = "`" + reset.text + "`" +
                          (assignment ? " drops the gradient buffer"
                                      : " releases the gradients (set_to_none defaults to True)") +
                          " between replays of the CUDA graph captured at " + captured +
                          ", whose backward writes the buffers the parameters held at capture: "
                          "each replay writes memory no parameter points at any more, and `" +
                          reader.text +
                          "` sees no gradient, so the model stops learning "
                          "without an error";
    std::vector<RelatedLocation> related;
    related.push_back({file.source, region.site, "the backward is captured here"});
    if (span.via != nullptr && span.via_function != program::kNoId) {
      if (FunctionRef via = program.function(span.via_function)) {
        related.push_back({via.file->source, span.via->range,
                           span.via->kind == EventKind::kReplay
                               ? "replayed here, into the released buffers"
                               : "the graph is replayed through this call"});
      }
    }
    related.push_back({reader_file.source, reader.range, "the gradients are read here"});
    sink.reportAt(reset_file.source, reset.range, std::move(message), std::move(related));
  }

  static bool callsStep(const FileModel& file, const Event& call) {
    if (call.call >= file.references.size()) return false;
    const Reference& reference = file.references[call.call];
    if (reference.operands.empty() || reference.operands[0] >= file.references.size()) {
      return false;
    }
    const Reference& callee = file.references[reference.operands[0]];
    return callee.kind == Reference::Kind::kAttribute && callee.name == "step";
  }

  static void report(const FileModel& file, const CaptureRegion& region, const Event& reset,
                     const Event& replay, const Event& reader, DiagnosticSink& sink) {
    const bool assignment = reset.text.find("zero_grad") == std::string::npos;
    std::string what = "`" + reset.text + "`";
    std::string how = assignment ? " drops the gradient buffer"
                                 : " releases the gradients (set_to_none defaults to True)";
    std::string message =
        what + how + " between replays of the CUDA graph captured at line " + lineOf(region.site) +
        ", whose backward writes the buffers the parameters held at capture: the replay at line " +
        lineOf(replay.range) + " writes memory no parameter points at any more, and `" +
        reader.text + "` (line " + lineOf(reader.range) +
        ") sees no gradient, so the model stops learning without an error";
    std::vector<RelatedLocation> related;
    related.push_back({file.source, region.site, "the backward is captured here"});
    related.push_back({file.source, replay.range, "replayed here, into the released buffers"});
    related.push_back({file.source, reader.range, "the gradients are read here"});
    sink.reportAt(file.source, reset.range, std::move(message), std::move(related));
  }
};

}  // namespace

std::unique_ptr<Check> makeGradientsResetBetweenReplaysCheck() {
  return std::make_unique<GradientsResetBetweenReplaysCheck>();
}

}  // namespace graphsafe
