// GS204 autocast-cache: a capture inside an autocast context that was entered before it with its
// cast cache on. Autocast caches the low-precision copy of every leaf that requires grad for as
// long as the context is open; a captured op that reads a weight then reads the cached copy and
// records no cast, so later updates of the weight never reach the graph.
//
// The frontend records autocast blocks (with whether their cache is on) and marks the ops autocast
// casts that read a weight (kFlagReadsWeights: `x @ w` with w requiring grad, F.linear(x,
// self.weight), a call of a torch.nn module with weights). The check walks each capture region,
// and its callees, for such an op, then looks for a caching autocast block around the capture:
// in the function that captures, or around a call of that function (up to a few callers up, in
// any analyzed file). An autocast block entered inside the capture is not around it.
#include <string>
#include <vector>

#include "analyzer/engine/check.h"
#include "analyzer/engine/region_walker.h"
#include "analyzer/program/capture_flow.h"
#include "analyzer/program/program_model.h"

namespace graphsafe {

namespace {

constexpr int kMaxCallerDepth = 3;
constexpr std::size_t kMaxCallers = 64;

const ContextBlock* autocastAround(const FunctionModel& function, std::uint32_t position) {
  return CaptureFlow::blockAround(function, ContextBlock::Kind::kAutocast, position);
}

struct Found {
  const FileModel* file = nullptr;
  const ContextBlock* block = nullptr;
  const FileModel* call_file = nullptr;  // the call of the capturing function it encloses
  const Event* call = nullptr;
};

class AutocastCacheCheck final : public Check {
 public:
  std::string_view id() const override { return "GS204"; }

  void checkFile(const FileModel& file, const ProgramModel& program,
                 DiagnosticSink& sink) const override {
    if (file.regions.empty() || file.language != Language::kPython) return;
    // No autocast block anywhere: nothing to find, and no region needs its walk.
    if (!program.hasContext(ContextBlock::Kind::kAutocast)) return;
    CaptureFlow flow(file);
    for (std::size_t r = 0; r < file.regions.size(); ++r) {
      const CaptureRegion& region = file.regions[r];
      // Dynamo traces autocast into the graph it compiles; only eager captures are asked about.
      if (region.dynamo_traced || region.kind == RegionKind::kCompiled) continue;
      const FunctionModel* home = flow.home(r);
      if (home == nullptr) continue;
      // The walk first: looking for autocast in the callers reads the whole program.
      Read read = weightRead(program, file, r);
      if (read.event == nullptr) continue;
      Found found = enclosing(program, file, *home, region.site.begin);
      if (found.block == nullptr || !found.block->caches) continue;
      report(file, region, found, read, sink);
    }
  }

 private:
  struct Read {
    const FileModel* file = nullptr;
    const Event* event = nullptr;
  };

  // The first op under the region (its body or a callee) that reads a weight autocast casts.
  static Read weightRead(const ProgramModel& program, const FileModel& file, std::size_t r) {
    Read read;
    RegionWalker(program).walk(file, r, [&](const RegionContext& context, const Event& event) {
      if (read.event == nullptr && (event.flags & kFlagReadsWeights) != 0 &&
          (event.kind == EventKind::kTensorOp || event.kind == EventKind::kCall)) {
        read = {context.file, &event};
      }
    });
    return read;
  }

  // The innermost autocast block around `position` in `function`; when there is none, the one
  // around a call of `function` in its callers (breadth first, a few levels up).
  static Found enclosing(const ProgramModel& program, const FileModel& file,
                         const FunctionModel& function, std::uint32_t position) {
    if (const ContextBlock* block = autocastAround(function, position)) {
      return {&file, block, nullptr, nullptr};
    }
    std::vector<std::pair<const FileModel*, const FunctionModel*>> level = {{&file, &function}};
    std::vector<const FunctionModel*> seen = {&function};
    for (int depth = 0; depth < kMaxCallerDepth && !level.empty(); ++depth) {
      std::vector<std::pair<const FileModel*, const FunctionModel*>> next;
      for (const FileModel& caller_file : program.files()) {
        for (const FunctionModel& caller : caller_file.functions) {
          for (const Event& event : caller.events) {
            if (event.kind != EventKind::kCall) continue;
            if (event.callee == kNoFunction && event.callee_qualified.empty()) continue;
            FunctionRef callee = program.resolveCall(caller_file, caller, event);
            bool calls = false;
            for (const auto& [callee_file, target] : level) {
              calls = calls || callee.function == target;
            }
            if (!calls) continue;
            if (const ContextBlock* block = autocastAround(caller, event.range.begin)) {
              return {&caller_file, block, &caller_file, &event};
            }
            bool known = false;
            for (const FunctionModel* visited : seen) known = known || visited == &caller;
            if (!known && seen.size() < kMaxCallers) {
              seen.push_back(&caller);
              next.emplace_back(&caller_file, &caller);
            }
          }
        }
      }
      level = std::move(next);
    }
    return {};
  }

  static void report(const FileModel& file, const CaptureRegion& region, const Found& found,
                     const Read& read, DiagnosticSink& sink) {
    std::string where =
        found.call == nullptr
            ? "inside `" + found.block->subject + "` (line " + lineOf(found.block->site) + ")"
            : "inside `" + found.block->subject + "`, entered around the call `" +
                  found.call->text + "` (" + found.call_file->source->path() + ":" +
                  lineOf(found.call->range) + ")";
    std::string message =
        "this capture runs " + where +
        ", which was entered before it with its cast cache on: the captured `" + read.event->text +
        "` reads the cached low-precision copy of a weight and records no cast, so updates of "
        "the weight after the capture never reach the replays";
    std::vector<RelatedLocation> related;
    related.push_back({found.file->source, found.block->site,
                       "autocast entered here, with cache_enabled left on"});
    if (found.call != nullptr) {
      related.push_back({found.call_file->source, found.call->range,
                         "the capturing function is called here, inside it"});
    }
    related.push_back({read.file->source, read.event->range, "reads a weight under capture here"});
    sink.reportAt(file.source, region.site, std::move(message), std::move(related));
  }
};

}  // namespace

std::unique_ptr<Check> makeAutocastCacheCheck() {
  return std::make_unique<AutocastCacheCheck>();
}

}  // namespace graphsafe
