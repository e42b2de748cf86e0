// GS302 unjoined-stream: a side stream forked into a capture (kStreamFork) with no later join of
// the capture stream on it (kStreamJoin of the same stream) before the capture ends. Works on the
// events of any frontend: forks and joins are matched by the side stream's text.
#include "analyzer/engine/check.h"

namespace graphsafe {

namespace {

// Is there a join of `stream` after `from` among `events`, in the same region?
bool joinedAfter(const std::vector<Event>& events, const Event* from, const std::string& stream) {
  if (events.empty() || from < events.data() || from >= events.data() + events.size()) {
    return false;
  }
  for (const Event* event = from + 1; event < events.data() + events.size(); ++event) {
    if (event->kind == EventKind::kStreamJoin && event->region == from->region &&
        event->subject.text == stream) {
      return true;
    }
  }
  return false;
}

class UnjoinedStreamCheck final : public Check {
 public:
  std::string_view id() const override { return "GS302"; }

  void checkRegionEvent(const RegionContext& context, const Event& event,
                        DiagnosticSink& sink) const override {
    if (event.kind != EventKind::kStreamFork || event.subject.text.empty()) return;
    const std::string& stream = event.subject.text;
    if (joinedAfter(context.function->events, &event, stream)) return;
    // A helper may fork and leave the join to its caller, after the call returns.
    for (auto step = context.path.rbegin(); step != context.path.rend(); ++step) {
      if (joinedAfter(step->caller->events, step->call, stream)) return;
    }
    sink.report(context, event.range,
                "side stream `" + stream +
                    "` is forked into the capture here but never joined back to the capture "
                    "stream before the capture ends: ending the capture fails "
                    "(cudaErrorStreamCaptureUnjoined) and the graph is lost");
  }
};

}  // namespace

std::unique_ptr<Check> makeUnjoinedStreamCheck() {
  return std::make_unique<UnjoinedStreamCheck>();
}

}  // namespace graphsafe
