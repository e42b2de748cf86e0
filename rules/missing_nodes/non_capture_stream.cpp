// GS301 non-capture-stream: work placed on a stream outside the capture, under capture. The
// frontends decide which stream each piece of work goes to and whether that stream is the capture
// stream or forked from it (kStreamUse); this check reports those that run under a region.
#include <algorithm>

#include "analyzer/engine/check.h"
#include "analyzer/program/program_model.h"

namespace graphsafe {

namespace {

// A frontend that names the stream (`subject.text`) decides forks within one function only; a
// caller on the path may have forked it before the call (kStreamFork of the same stream, under
// the same region as the call).
bool forkedByCaller(const RegionContext& context, const std::string& stream) {
  for (const CallStep& step : context.path) {
    const std::vector<Event>& events = step.caller->events;
    for (const Event& event : events) {
      if (&event == step.call) break;
      if (event.kind == EventKind::kStreamFork && event.subject.text == stream &&
          event.region == step.call->region) {
        return true;
      }
    }
  }
  return false;
}

// The names the stream `name` has in the callers on the path: itself, and for a parameter of
// the function the text of the argument that filled it, call by call up the path.
std::vector<std::string> namesOnPath(const RegionContext& context, const std::string& name) {
  std::vector<std::string> names{name};
  const FunctionModel* function = context.function;
  std::string current = name;
  for (auto step = context.path.rbegin(); step != context.path.rend() && function != nullptr;
       ++step) {
    std::size_t index = function->params.size();
    for (std::size_t i = 0; i < function->params.size(); ++i) {
      if (function->params[i].name == current) index = i;
    }
    if (index == function->params.size()) break;
    const Event& call = *step->call;
    std::string passed;
    for (const KeywordArg& keyword : call.keywords) {
      if (keyword.name == current) passed = keyword.value.text;
    }
    const std::size_t offset = (call.flags & kFlagBoundMethod) != 0 ? 1 : 0;
    if (passed.empty() && index >= offset && index - offset < call.args.size()) {
      passed = call.args[index - offset].text;
    }
    if (passed.empty()) break;
    names.push_back(passed);
    current = passed;
    function = step->caller;
  }
  return names;
}

// A stream lowering could not place: what the program model says made it, as the words of a
// finding ("" when it is not known to be outside the capture).
std::string placedByModel(const RegionContext& context, const Event& event) {
  if (context.program == nullptr || event.operand == kNoRef) return {};
  const std::vector<std::string> makers =
      context.program->libraryInstances(context.frame, event.operand);
  if (makers.empty()) return {};
  const std::string& name = event.subject.text;
  auto all = [&](std::string_view maker) {
    return std::all_of(makers.begin(), makers.end(),
                       [&](const std::string& m) { return m == maker; });
  };
  if (all("torch.cuda.default_stream")) {
    return "the default stream (`" + name + "`, made by torch.cuda.default_stream())";
  }
  if (!all("torch.cuda.Stream")) return {};
  for (const std::string& alias : namesOnPath(context, name)) {
    if (forkedByCaller(context, alias)) return {};
  }
  return "side stream `" + name +
         "`, a torch.cuda.Stream() never forked from the capture stream (no `" + name +
         ".wait_stream(torch.cuda.current_stream())` before it, here or in a caller)";
}

// `with torch.cuda.stream(s):` around a capture of its own (`with torch.cuda.graph(child,
// stream=s):`): the stream is used to record a child graph, and the work in it is captured
// there, not escaped.
bool holdsCapture(const RegionContext& context, const Event& event) {
  for (const ContextBlock& block : context.function->contexts) {
    if (block.kind != ContextBlock::Kind::kStream || block.site.begin != event.range.begin)
      continue;
    for (const CaptureRegion& region : context.file->regions) {
      if (region.site.begin > block.site.end && region.site.end <= block.span.end) return true;
    }
  }
  return false;
}

class NonCaptureStreamCheck final : public Check {
 public:
  std::string_view id() const override { return "GS301"; }

  void checkRegionEvent(const RegionContext& context, const Event& event,
                        DiagnosticSink& sink) const override {
    if (event.kind != EventKind::kStreamUse) return;
    // Extension code gets GS304 for the same work, region or not: one finding per line.
    if ((event.flags & kFlagExtensionCode) != 0) return;
    if (!event.subject.text.empty() && forkedByCaller(context, event.subject.text)) return;
    if (holdsCapture(context, event)) return;
    std::string where = event.text;
    if (event.operand != kNoRef && where.empty()) {
      where = placedByModel(context, event);
      if (where.empty()) return;  // not known to be outside the capture
    }
    const std::string what = event.api.empty() ? std::string("this work") : "`" + event.api + "`";
    if (where.empty()) where = "a stream outside the capture";
    sink.report(context, event.range,
                what + " goes to " + where +
                    ", which is not being captured: it runs once, at capture time, and is missing "
                    "from every replay of the graph");
  }
};

}  // namespace

std::unique_ptr<Check> makeNonCaptureStreamCheck() {
  return std::make_unique<NonCaptureStreamCheck>();
}

}  // namespace graphsafe
