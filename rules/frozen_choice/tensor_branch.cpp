// GS101 tensor-branch: Python control flow decided by a tensor's value, under capture.
// Only conditions known to be tensors fire; a branch on a host value is GS102's business.
#include "analyzer/engine/check.h"

namespace graphsafe {

namespace {

class TensorBranchCheck final : public Check {
 public:
  std::string_view id() const override { return "GS101"; }

  void checkRegionEvent(const RegionContext& context, const Event& event,
                        DiagnosticSink& sink) const override {
    if (event.kind != EventKind::kBranch) return;
    if (!context.resolve(event.subject).isTensor()) return;
    const std::string condition = "`" + event.text + "`";
    if (context.traced()) {
      sink.report(context, event.range,
                  "branch on the tensor " + condition +
                      " inside a torch.compile region: Dynamo breaks the graph here to read the "
                      "value on the host");
      return;
    }
    sink.report(context, event.range,
                "branch on the tensor " + condition +
                    ": Python reads its value on the host, an implicit synchronization that fails "
                    "capture, and a graph could only ever replay the branch taken at capture");
  }
};

}  // namespace

std::unique_ptr<Check> makeTensorBranchCheck() { return std::make_unique<TensorBranchCheck>(); }

}  // namespace graphsafe
