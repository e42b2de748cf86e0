// GS502 concurrent-pool-replay: graphs that share a memory pool are replayed on different streams
// with nothing ordering them. Their captures were given the same scratch blocks on the
// assumption that they run one at a time; on two unordered streams they may run at once.
//
// For each pair of pool-sharing captures (analyzer/engine/pool_sharing.h), the check looks, in
// each function that replays both, for a replay followed by a replay of the other graph under a
// different `with torch.cuda.stream(...)` block (or one under a stream block and one outside
// any), with no wait between them: no `wait_stream` / `wait_event` of any stream, no host
// synchronization, no call of a function that may synchronize. The second replay is reported.
#include <string>

#include "analyzer/engine/check.h"
#include "analyzer/engine/pool_sharing.h"
#include "analyzer/program/capture_flow.h"

namespace graphsafe {

namespace {

// The innermost stream block of `function` around `position`; null outside any, and for a block
// of the current stream.
const ContextBlock* streamAround(const FunctionModel& function, std::uint32_t position) {
  const ContextBlock* block =
      CaptureFlow::blockAround(function, ContextBlock::Kind::kStream, position);
  if (block != nullptr && block->subject.find("current_stream(") != std::string::npos) {
    return nullptr;
  }
  return block;
}

// Is the stream one the analysis can place: not empty, not a parameter of the function (which
// may be the caller's current stream)?
bool placed(const FunctionModel& function, const ContextBlock* block) {
  if (block == nullptr) return true;
  if (block->subject.empty()) return false;
  std::string_view root = std::string_view(block->subject).substr(0, block->subject.find('.'));
  for (const Parameter& parameter : function.params) {
    if (parameter.name == root && root != "self") return false;
  }
  return true;
}

class ConcurrentPoolReplayCheck final : public Check {
 public:
  std::string_view id() const override { return "GS502"; }

  void checkFile(const FileModel& file, const ProgramModel& /*program*/,
                 DiagnosticSink& sink) const override {
    if (file.regions.size() < 2 || file.language != Language::kPython) return;
    CaptureFlow flow(file);
    for (const PoolGroup& group : sharedPools(flow)) {
      for (std::size_t first : group.regions) {
        for (std::size_t second : group.regions) {
          if (first != second) checkPair(flow, group, first, second, sink);
        }
      }
    }
  }

 private:
  // A replay of `first` followed by a replay of `second` on another stream, unordered.
  static void checkPair(const CaptureFlow& flow, const PoolGroup& group, std::size_t first,
                        std::size_t second, DiagnosticSink& sink) {
    const FileModel& file = flow.file();
    for (const CaptureFlow::Site& b : flow.replays(second)) {
      const FunctionModel& function = *b.function;
      std::uint32_t b_at = b.event->range.begin;
      if (!flow.afterCapture(second, function, b_at)) continue;
      const ContextBlock* b_stream = streamAround(function, b_at);
      // The latest replay of `first` before it, with no replay of `second` in between.
      const CaptureFlow::Site* a = nullptr;
      for (const CaptureFlow::Site& site : flow.replays(first)) {
        std::uint32_t at = site.event->range.begin;
        if (site.function != &function || at >= b_at) continue;
        if (!flow.afterCapture(first, function, at)) continue;
        if (a == nullptr || at > a->event->range.begin) a = &site;
      }
      if (a == nullptr) continue;
      std::uint32_t a_at = a->event->range.begin;
      const ContextBlock* a_stream = streamAround(function, a_at);
      if (a_stream == b_stream) continue;  // the same block, or both on the current stream
      if (a_stream != nullptr && b_stream != nullptr && a_stream->subject == b_stream->subject) {
        continue;
      }
      if (!placed(function, a_stream) || !placed(function, b_stream)) continue;
      if (flow.waitsBetween(function, a_at, b_at, true)) continue;
      report(file, group, file.regions[first], file.regions[second], *a, a_stream, b, b_stream,
             sink);
    }
  }

  static std::string streamName(const ContextBlock* block) {
    return block == nullptr ? std::string("the current stream") : "`" + block->subject + "`";
  }

  static void report(const FileModel& file, const PoolGroup& group, const CaptureRegion& first,
                     const CaptureRegion& second, const CaptureFlow::Site& a,
                     const ContextBlock* a_stream, const CaptureFlow::Site& b,
                     const ContextBlock* b_stream, DiagnosticSink& sink) {
    std::string name = second.graph.empty() ? second.handle : second.graph;
    std::string other = first.graph.empty() ? first.handle : first.graph;
    std::string message = "`" + name + "` is replayed on " + streamName(b_stream) + " while `" +
                          other + "`, which shares its memory pool `" + group.pool +
                          "`, was just replayed on " + streamName(a_stream) + " (line " +
                          lineOf(a.event->range) +
                          ") and nothing orders the two streams: the graphs may run at the same "
                          "time and write each other's temporaries and outputs";
    std::vector<RelatedLocation> related;
    related.push_back({file.source, a.event->range, "the other graph is replayed here"});
    related.push_back({file.source, first.site, "captured here"});
    related.push_back({file.source, second.site, "captured here, into the same pool"});
    sink.reportAt(file.source, b.event->range, std::move(message), std::move(related));
  }
};

}  // namespace

std::unique_ptr<Check> makeConcurrentPoolReplayCheck() {
  return std::make_unique<ConcurrentPoolReplayCheck>();
}

}  // namespace graphsafe
