// GS603 deferred-gradient-hooks: torch.cuda.make_graphed_callables given a module wrapped in
// DistributedDataParallel or FullyShardedDataParallel. The graphed backward replays a capture of
// torch.autograd.grad, which returns the gradients instead of accumulating them: accumulation
// into .grad and the wrapper's allreduce or reduce-scatter hooks run after the whole backward
// graph, one after another, and the overlap of communication with the backward is gone.
// The wrapper is the program model's answer for the callable handed over (a local, an
// attribute set in __init__, a factory's return), in any analyzed file.
#include <optional>
#include <string>
#include <vector>

#include "analyzer/engine/check.h"
#include "analyzer/program/capture_flow.h"
#include "analyzer/program/program_model.h"

namespace graphsafe {

namespace {

// "DistributedDataParallel" or "FullyShardedDataParallel" for a torch class of that name
// (torch.nn.parallel.DistributedDataParallel, torch.distributed.fsdp.FullyShardedDataParallel,
// and the modules that define them); "" otherwise.
std::string_view wrapperOf(std::string_view qualified) {
  if (!qualified.starts_with("torch.")) return {};
  for (std::string_view wrapper : {"DistributedDataParallel", "FullyShardedDataParallel"}) {
    if (qualified.ends_with(wrapper) && qualified[qualified.size() - wrapper.size() - 1] == '.') {
      return wrapper;
    }
  }
  return {};
}

class DeferredGradientHooksCheck final : public Check {
 public:
  std::string_view id() const override { return "GS603"; }

  void checkFile(const FileModel& file, const ProgramModel& program,
                 DiagnosticSink& sink) const override {
    if (file.language != Language::kPython || file.regions.empty()) return;
    std::optional<CaptureFlow> flow;
    for (std::size_t r = 0; r < file.regions.size(); ++r) {
      const CaptureRegion& region = file.regions[r];
      if (region.kind != RegionKind::kGraphedCallable || region.callable_ref == kNoRef) continue;
      if (!flow) flow.emplace(file);
      const FunctionModel* home = flow->home(r);
      if (home == nullptr) continue;
      std::string_view wrapper;
      for (const std::string& made_by :
           program.libraryInstances(program.plainFrame(file, *home), region.callable_ref)) {
        if (wrapper.empty()) wrapper = wrapperOf(made_by);
      }
      if (wrapper.empty()) continue;
      report(file, region, wrapper, sink);
    }
  }

 private:
  static void report(const FileModel& file, const CaptureRegion& region, std::string_view wrapper,
                     DiagnosticSink& sink) {
    const std::string module =
        region.callable.empty() ? std::string("the module") : "`" + region.callable + "`";
    const bool ddp = wrapper == "DistributedDataParallel";
    std::string message =
        module + " is wrapped in " + std::string(wrapper) +
        " and graphed by make_graphed_callables: the graphed backward captures "
        "torch.autograd.grad, which returns the gradients, so their accumulation into .grad "
        "and the " +
        (ddp ? "allreduce" : "reduce-scatter") +
        " hooks run after the whole backward graph, one after another, and communication no "
        "longer overlaps the backward";
    sink.reportAt(file.source, region.site, std::move(message));
  }
};

}  // namespace

std::unique_ptr<Check> makeDeferredGradientHooksCheck() {
  return std::make_unique<DeferredGradientHooksCheck>();
}

}  // namespace graphsafe
