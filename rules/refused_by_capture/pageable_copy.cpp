// GS402 pageable-copy: under capture, a copy to the device from pageable (not pinned) host
// memory. The frontend marks such copies kFlagPageableSource: .to("cuda") or .cuda() of a
// tensor known to live in pageable memory, copy_ from one, torch.tensor(data, device="cuda");
// a copy of a tensor it cannot place carries that tensor, for the program model to type.
// Recent PyTorch refuses them during capture; a graph could not replay them anyway.
#include "analyzer/engine/check.h"
#include "rules/frozen_choice/run_once_path.h"

namespace graphsafe {

namespace {

class PageableCopyCheck final : public Check {
 public:
  std::string_view id() const override { return "GS402"; }

  void checkRegionEvent(const RegionContext& context, const Event& event,
                        DiagnosticSink& sink) const override {
    if (event.kind != EventKind::kTensorOp) return;
    // Pageable as this file sees it, or as the program model types the source: an attribute
    // set in __init__ from a CPU factory, a helper returning one.
    if ((event.flags & kFlagPageableSource) == 0 &&
        context.tensorMemory(event.operand) != TensorMemory::kPageableHost) {
      return;
    }
    // A memoized builder or a lazy initialization: the warm-up ran it, the cache answers now.
    if (reachedThroughCache(context)) return;
    std::string source;
    if (event.api.starts_with("torch.Tensor.") && !event.subject.text.empty()) {
      source = event.api == "torch.Tensor.copy_" && !event.args.empty() ? event.args.front().text
                                                                        : event.subject.text;
    }
    const std::string from =
        source.empty() ? std::string("host data") : "`" + source + "`, a tensor";
    sink.report(context, event.range,
                "`" + event.text + "` copies " + from +
                    " in pageable (not pinned) host memory to the device under capture: "
                    "capture refuses such a copy (\"Cannot copy between CPU and CUDA tensors "
                    "during CUDA graph capture unless the CPU tensor is pinned\"), and a graph "
                    "could not replay it from memory the host may move");
  }
};

}  // namespace

std::unique_ptr<Check> makePageableCopyCheck() {
  return std::make_unique<PageableCopyCheck>();
}

}  // namespace graphsafe
