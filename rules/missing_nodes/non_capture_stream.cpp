// GS301 non-capture-stream: work placed on a stream outside the capture, under capture. The
// frontends decide which stream each piece of work goes to and whether that stream is the capture
// stream or forked from it (kStreamUse); this check reports those that run under a region.
#include "analyzer/engine/check.h"

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

class NonCaptureStreamCheck final : public Check {
 public:
  std::string_view id() const override { return "GS301"; }

  void checkRegionEvent(const RegionContext& context, const Event& event,
                        DiagnosticSink& sink) const override {
    if (event.kind != EventKind::kStreamUse) return;
    // Extension code gets GS304 for the same work, region or not: one finding per line.
    if ((event.flags & kFlagExtensionCode) != 0) return;
    if (!event.subject.text.empty() && forkedByCaller(context, event.subject.text)) return;
    const std::string what = event.api.empty() ? std::string("this work") : "`" + event.api + "`";
    const std::string where =
        event.text.empty() ? std::string("a stream outside the capture") : event.text;
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
