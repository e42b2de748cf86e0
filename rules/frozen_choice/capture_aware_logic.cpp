// GS104 capture-aware-logic: under capture, a branch on "is this stream capturing?" whose sides
// enqueue different work. The frontends mark such branches (kFlagCaptureDependent) and whether
// their sides compute differently (kFlagSidesDiffer); a branch that only changes how the host
// waits is not a hazard.
#include "analyzer/engine/check.h"

namespace graphsafe {

namespace {

class CaptureAwareLogicCheck final : public Check {
 public:
  std::string_view id() const override { return "GS104"; }

  void checkRegionEvent(const RegionContext& context, const Event& event,
                        DiagnosticSink& sink) const override {
    if (event.kind != EventKind::kBranch) return;
    constexpr std::uint32_t kNeeded = kFlagCaptureDependent | kFlagSidesDiffer;
    if ((event.flags & kNeeded) != kNeeded) return;
    sink.report(context, event.range,
                "the branch on `" + event.text +
                    "` asks whether the stream is being captured and computes something else "
                    "when it is: the graph records the capture-time side, and every replay "
                    "repeats it");
  }
};

}  // namespace

std::unique_ptr<Check> makeCaptureAwareLogicCheck() {
  return std::make_unique<CaptureAwareLogicCheck>();
}

}  // namespace graphsafe
