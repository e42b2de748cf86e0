// GS205 shared-pool-order: graphs captured into one memory pool are replayed in another order
// than they were captured in. A later capture may be given blocks that an earlier one freed at
// its end (its temporaries); replayed before the earlier graph, the later graph's output sits in
// memory the earlier graph's replay then writes its temporaries into.
//
// For each pair of pool-sharing captures (earlier A, later B; analyzer/engine/pool_sharing.h),
// the check looks, in each function that replays both, for a replay of B followed by a replay of
// A with no replay of B in between, and then a read of B's output before B replays again. The
// replay of B is reported: that is where the order breaks.
#include <cstdint>
#include <string>

#include "analyzer/engine/check.h"
#include "analyzer/engine/pool_sharing.h"
#include "analyzer/program/capture_flow.h"

namespace graphsafe {

namespace {

// The expression by which an event reads `region`'s output, or null.
const std::string* outputRead(const CaptureRegion& region, const Event& event) {
  if (event.kind == EventKind::kReplay) return nullptr;
  if (readsOutput(region, event.subject.text)) return &event.subject.text;
  if (!event.source.empty() && readsOutput(region, event.source)) return &event.source;
  for (const Value& argument : event.args) {
    if (readsOutput(region, argument.text)) return &argument.text;
  }
  for (const KeywordArg& keyword : event.keywords) {
    if (readsOutput(region, keyword.value.text)) return &keyword.value.text;
  }
  return nullptr;
}

class SharedPoolOrderCheck final : public Check {
 public:
  std::string_view id() const override { return "GS205"; }

  void checkFile(const FileModel& file, const ProgramModel& /*program*/,
                 DiagnosticSink& sink) const override {
    if (file.regions.size() < 2 || file.language != Language::kPython) return;
    CaptureFlow flow(file);
    for (const PoolGroup& group : sharedPools(flow)) {
      for (std::size_t i = 0; i < group.regions.size(); ++i) {
        for (std::size_t j = i + 1; j < group.regions.size(); ++j) {
          checkPair(flow, group, group.regions[i], group.regions[j], sink);
        }
      }
    }
  }

 private:
  // Is there a replay of `region` in `function` strictly between the two positions?
  static bool replayedBetween(const CaptureFlow& flow, std::size_t region,
                              const FunctionModel& function, std::uint32_t from, std::uint32_t to) {
    for (const CaptureFlow::Site& site : flow.replays(region)) {
      if (site.function != &function) continue;
      std::uint32_t at = site.event->range.begin;
      if (at > from && at < to) return true;
    }
    return false;
  }

  static void checkPair(const CaptureFlow& flow, const PoolGroup& group, std::size_t earlier,
                        std::size_t later, DiagnosticSink& sink) {
    const FileModel& file = flow.file();
    const CaptureRegion& first = file.regions[earlier];
    const CaptureRegion& second = file.regions[later];
    const FunctionModel* home = flow.home(later);
    if (second.outputs.empty() || home == nullptr) return;
    for (const CaptureFlow::Site& b : flow.replays(later)) {
      const FunctionModel& function = *b.function;
      std::uint32_t b_at = b.event->range.begin;
      if (!flow.afterCapture(later, function, b_at)) continue;
      for (const CaptureFlow::Site& a : flow.replays(earlier)) {
        std::uint32_t a_at = a.event->range.begin;
        if (a.function != &function || a_at <= b_at) continue;
        if (replayedBetween(flow, later, function, b_at, a_at)) continue;
        const Event* read = readAfter(flow, later, function, a_at);
        if (read == nullptr) continue;
        std::string name = second.graph.empty() ? second.handle : second.graph;
        std::string other = first.graph.empty() ? first.handle : first.graph;
        std::string message =
            "`" + name + "` was captured into the memory pool `" + group.pool + "` after `" +
            other + "` (line " + lineOf(first.site) + " then line " + lineOf(second.site) +
            ") but is replayed before it here: the replay of `" + other + "` at line " +
            lineOf(a.event->range) + " may write its temporaries into the blocks of `" + name +
            "`'s output, which is read afterwards (line " + lineOf(read->range) + ")";
        std::vector<RelatedLocation> related;
        related.push_back({file.source, first.site, "captured first here"});
        related.push_back({file.source, second.site, "captured second, into the same pool"});
        related.push_back({file.source, a.event->range, "the earlier graph replays after it"});
        related.push_back({file.source, read->range, "the later graph's output is read here"});
        sink.reportAt(file.source, b.event->range, std::move(message), std::move(related));
        break;
      }
    }
  }

  // A read of `region`'s output in `function` after `position`, before the region replays again.
  static const Event* readAfter(const CaptureFlow& flow, std::size_t region,
                                const FunctionModel& function, std::uint32_t position) {
    const CaptureRegion& captured = flow.file().regions[region];
    const FunctionModel* home = flow.home(region);
    std::uint32_t limit = UINT32_MAX;
    for (const CaptureFlow::Site& site : flow.replays(region)) {
      std::uint32_t at = site.event->range.begin;
      if (site.function == &function && at > position && at < limit) limit = at;
    }
    for (const Event& event : function.events) {
      if (event.range.begin <= position) continue;
      if (event.range.begin >= limit) break;
      const std::string* read = outputRead(captured, event);
      if (read == nullptr) continue;
      if (!flow.sameScope(*home, function, *read)) continue;
      return &event;
    }
    return nullptr;
  }
};

}  // namespace

std::unique_ptr<Check> makeSharedPoolOrderCheck() {
  return std::make_unique<SharedPoolOrderCheck>();
}

}  // namespace graphsafe
