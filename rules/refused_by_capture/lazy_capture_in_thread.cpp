// GS404 lazy-capture-in-thread: a capture that runs while other threads use CUDA. Two forms:
//   - a callable compiled with a CUDA-graph mode records its graphs lazily, on its first calls;
//     when a function handed to a thread (threading.Thread(target=f), executor.submit(f, ...),
//     executor.map(f, ...)) calls it, and no call on the starting thread came before the thread
//     started, the recording happens in the worker thread, racing the program's other threads.
//     The call in the thread is reported.
//   - a capture made after starting a thread whose function launches CUDA work (it moves data to
//     the GPU, synchronizes the device, replays a graph), with no join in between. The capture
//     site is reported.
// Threads are the frontend's kThread context entries; what a thread runs is its function and the
// functions of this file it calls, a few calls deep.
#include <algorithm>
#include <string>
#include <vector>

#include "analyzer/engine/check.h"
#include "analyzer/program/capture_flow.h"

namespace graphsafe {

namespace {

constexpr int kMaxCallDepth = 3;
constexpr std::size_t kMaxReached = 64;

// The functions of this file that `start` runs: itself and what it calls, a few calls deep.
std::vector<const FunctionModel*> reachedFrom(const FileModel& file, FunctionId start) {
  std::vector<const FunctionModel*> reached;
  if (start >= file.functions.size()) return reached;
  reached.push_back(&file.functions[start]);
  std::size_t level_begin = 0;
  for (int depth = 0; depth < kMaxCallDepth; ++depth) {
    std::size_t level_end = reached.size();
    for (std::size_t i = level_begin; i < level_end; ++i) {
      for (const Event& event : reached[i]->events) {
        if (event.kind != EventKind::kCall || event.callee >= file.functions.size()) continue;
        const FunctionModel* callee = &file.functions[event.callee];
        if (std::find(reached.begin(), reached.end(), callee) != reached.end()) continue;
        if (reached.size() >= kMaxReached) return reached;
        reached.push_back(callee);
      }
    }
    level_begin = level_end;
  }
  return reached;
}

bool contains(const std::vector<const FunctionModel*>& functions, const FunctionModel* function) {
  return std::find(functions.begin(), functions.end(), function) != functions.end();
}

// Evidence that a function uses CUDA: a device synchronization, a replay, a stream, or an op
// that names the GPU (`device="cuda"`, `.cuda()`, `.to("cuda")`).
const Event* cudaWork(const FunctionModel& function) {
  for (const Event& event : function.events) {
    switch (event.kind) {
      case EventKind::kHostSync:
        if (event.api.starts_with("torch.cuda.")) return &event;
        break;
      case EventKind::kReplay:
      case EventKind::kStreamUse:
        return &event;
      case EventKind::kTensorOp:
      case EventKind::kShapeUse:
        if (event.text.find("cuda") != std::string::npos) return &event;
        break;
      default:
        break;
    }
  }
  return nullptr;
}

struct Thread {
  const FunctionModel* starter = nullptr;  // the function that starts it
  const ContextBlock* block = nullptr;
  std::vector<const FunctionModel*> runs;
};

class LazyCaptureInThreadCheck final : public Check {
 public:
  std::string_view id() const override { return "GS404"; }

  void checkFile(const FileModel& file, const ProgramModel& /*program*/,
                 DiagnosticSink& sink) const override {
    if (file.regions.empty() || file.language != Language::kPython) return;
    std::vector<Thread> threads;
    for (const FunctionModel& function : file.functions) {
      for (const ContextBlock& block : function.contexts) {
        if (block.kind != ContextBlock::Kind::kThread) continue;
        threads.push_back({&function, &block, reachedFrom(file, block.function)});
      }
    }
    if (threads.empty()) return;
    CaptureFlow flow(file);
    for (std::size_t r = 0; r < file.regions.size(); ++r) {
      const CaptureRegion& region = file.regions[r];
      if (region.kind == RegionKind::kCompiled) {
        checkLazyCapture(flow, r, threads, sink);
      } else if (!region.whole_function) {
        checkConcurrentCapture(flow, r, threads, sink);
      }
    }
  }

 private:
  static void checkLazyCapture(const CaptureFlow& flow, std::size_t r,
                               const std::vector<Thread>& threads, DiagnosticSink& sink) {
    const FileModel& file = flow.file();
    const CaptureRegion& region = file.regions[r];
    std::vector<const FunctionModel*> in_threads;
    for (const Thread& thread : threads) {
      for (const FunctionModel* function : thread.runs) {
        if (!contains(in_threads, function)) in_threads.push_back(function);
      }
    }
    for (const Thread& thread : threads) {
      // A call on the starting thread before this thread starts records the graph there; a
      // call in any function that no thread runs may well come first too.
      bool warmed = false;
      for (const CaptureFlow::Site& site : flow.replays(r)) {
        if (site.function == thread.starter) {
          warmed = warmed || site.event->range.begin < thread.block->site.begin;
        } else if (!contains(in_threads, site.function)) {
          warmed = true;
        }
      }
      if (warmed) continue;
      for (const CaptureFlow::Site& site : flow.replays(r)) {
        if (!contains(thread.runs, site.function)) continue;
        std::string message =
            "`" + site.event->text + "` may be the first call of `" + region.handle +
            "`, compiled to use CUDA graphs (line " + lineOf(region.site) +
            "), and it runs in a thread started at line " + lineOf(thread.block->site) +
            ": the graph is recorded lazily in that thread while the program's other threads "
            "may be using CUDA, which breaks or corrupts the capture";
        std::vector<RelatedLocation> related;
        related.push_back({file.source, region.site, "compiled here"});
        related.push_back(
            {file.source, thread.block->site, "`" + thread.block->subject + "` runs in a thread"});
        sink.reportAt(file.source, site.event->range, std::move(message), std::move(related));
      }
    }
  }

  static bool joinedBetween(const FunctionModel& function, std::uint32_t from, std::uint32_t to) {
    for (const ContextBlock& block : function.contexts) {
      if (block.kind == ContextBlock::Kind::kThreadJoin && block.site.begin > from &&
          block.site.begin < to) {
        return true;
      }
    }
    return false;
  }

  static void checkConcurrentCapture(const CaptureFlow& flow, std::size_t r,
                                     const std::vector<Thread>& threads, DiagnosticSink& sink) {
    const FileModel& file = flow.file();
    const CaptureRegion& region = file.regions[r];
    const FunctionModel* home = flow.home(r);
    if (home == nullptr || region.dynamo_traced) return;
    for (const Thread& thread : threads) {
      if (thread.starter != home) continue;
      std::uint32_t started = thread.block->site.begin;
      if (started >= region.site.begin || joinedBetween(*home, started, region.site.begin)) {
        continue;
      }
      // The capture in the thread's own code is the first form's question, not this one's.
      if (contains(thread.runs, home)) continue;
      const Event* work = nullptr;
      for (const FunctionModel* function : thread.runs) {
        if (work == nullptr) work = cudaWork(*function);
      }
      if (work == nullptr) continue;
      std::string message =
          "this capture starts while the thread started at line " + lineOf(thread.block->site) +
          " (running `" + thread.block->subject +
          "`) may be launching CUDA work: in the default global capture mode its allocations "
          "and synchronizations invalidate the capture, or land in the graph's memory pool";
      std::vector<RelatedLocation> related;
      related.push_back({file.source, thread.block->site, "the thread starts here"});
      related.push_back({file.source, work->range, "it uses CUDA here"});
      sink.reportAt(file.source, region.site, std::move(message), std::move(related));
      return;
    }
  }
};

}  // namespace

std::unique_ptr<Check> makeLazyCaptureInThreadCheck() {
  return std::make_unique<LazyCaptureInThreadCheck>();
}

}  // namespace graphsafe
