#include "analyzer/program/replay_cycle.h"

#include <algorithm>

#include "analyzer/program/capture_flow.h"
#include "analyzer/program/program_model.h"
#include "analyzer/program/replay_reach.h"

namespace graphsafe::program {

namespace {

// Calls deep that the code a cycle span calls is on the cycle too, and functions at most.
constexpr int kMaxClosureDepth = 3;
constexpr std::size_t kMaxCycleFunctions = 512;
// Calls deep from the region's body that count as code the capture runs.
constexpr int kMaxCaptureDepth = 6;

bool isConstructorName(std::string_view name) {
  return name == "__init__" || name == "__new__" || name == "__post_init__" ||
         name == "__init_subclass__" || name == "__set_name__";
}

class CycleBuilder {
 public:
  CycleBuilder(const ProgramModel& program, ReplayReach& reach, const FileModel& file,
               std::size_t region)
      : program_(program),
        reach_(reach),
        file_(file),
        file_index_(program.index().fileIndex(file)),
        region_index_(region),
        region_(file.regions[region]),
        flow_(program.captureFlow(file)) {}

  ReplayCycle build() {
    const FunctionModel* home = flow_.home(region_index_);
    if (home == nullptr || file_.language != Language::kPython) return {};
    home_ = program_.functionId(file_, *home);
    if (!region_.whole_function) excluded_.emplace_back(home_, flow_.span(region_index_));
    const RegionKey key = regionKey(file_index_, region_index_);

    // Loops whose bodies replay the region, unless they capture it anew on every iteration.
    for (const ReplayingLoop& loop : reach_.loopsReplaying(key)) {
      if (recapturesEachIteration(loop)) continue;
      addSpan(loop.function, loop.loop, false, loop.via, loop.function);
    }
    // Functions that replay on each call (and the capturing function after its first call).
    for (const CaptureFlow::Site& site : flow_.replays(region_index_)) {
      const std::uint32_t function = program_.functionId(file_, *site.function);
      if (site.function == home && !region_.lazy) {
        // Captured and replayed in one call: between the capture's end and the replay.
        SourceRange between = site.function->body;
        between.begin = flow_.span(region_index_).end;
        between.end = site.event->range.begin;
        if (between.end > between.begin) addSpan(function, between, false, site.event, function);
        continue;
      }
      addWhole(function, site.event, function);
    }
    if (region_.lazy && !region_.whole_function) addWhole(home_, nullptr, home_);
    // What the spans call runs between replays too.
    for (std::size_t i = 0; i < spans_.size() && spans_.size() < kMaxCycleFunctions; ++i) {
      if (spans_[i].self_only) continue;
      const CycleSpan span = spans_[i];  // addCalls adds spans
      addCalls(span, depthOf(i));
    }
    // The capturing object's methods, which callers the analysis cannot see may call between
    // replays: their writes through `self` only.
    if (home->class_index >= 0 && home->has_self) addClassMethods(*home);
    return ReplayCycle(std::move(spans_), std::move(excluded_), capturedFunctions(*home));
  }

 private:
  // Does every iteration of the loop capture the region anew (so no replay sees an older
  // capture)? The capture itself in the loop, made unconditionally, or a call of the
  // (non-lazy) capturing function at the loop's top level.
  bool recapturesEachIteration(const ReplayingLoop& loop) const {
    if (loop.function == home_ && flow_.capturesEveryIteration(region_index_, loop.loop)) {
      return true;
    }
    if (region_.lazy) return false;
    FunctionRef function = program_.function(loop.function);
    if (!function) return false;
    const program::FrameId frame = program_.plainFrame(*function.file, *function.function);
    for (const Event& event : function.function->events) {
      if (event.kind != EventKind::kCall || !CaptureFlow::contains(loop.loop, event.range.begin)) {
        continue;
      }
      if ((event.flags & kFlagRunsOnce) != 0 || underBranch(*function.function, loop.loop, event)) {
        continue;
      }
      for (const CallTarget& target : program_.callTargets(frame, *function.file, event)) {
        if (target.function == home_) return true;
      }
    }
    return false;
  }

  // Is the event under a conditional inside the loop (a capture made on some iterations only)?
  static bool underBranch(const FunctionModel& function, const SourceRange& loop,
                          const Event& event) {
    for (const auto* blocks : {&function.once_blocks, &function.branches}) {
      for (const SourceRange& block : *blocks) {
        if (CaptureFlow::contains(loop, block.begin) &&
            CaptureFlow::contains(block, event.range.begin)) {
          return true;
        }
      }
    }
    return false;
  }

  void addSpan(std::uint32_t function, SourceRange span, bool self_only, const Event* via,
               std::uint32_t via_function, int depth = 0) {
    for (CycleSpan& existing : spans_) {
      if (existing.function != function) continue;
      // A span that holds this one already (a loop around the loop): keep the wider one.
      if (existing.span.begin <= span.begin && span.end <= existing.span.end) {
        existing.self_only = existing.self_only && self_only;
        return;
      }
      if (span.begin <= existing.span.begin && existing.span.end <= span.end) {
        existing.span = span;
        existing.self_only = existing.self_only && self_only;
        return;
      }
    }
    if (spans_.size() >= kMaxCycleFunctions) return;
    CycleSpan added;
    added.function = function;
    added.span = span;
    added.self_only = self_only;
    added.via = via;
    added.via_function = via_function;
    added.depth = static_cast<std::uint8_t>(depth);
    spans_.push_back(added);
    FunctionRef ref = program_.function(function);
    if (!ref) return;
    for (const SourceRange& once : ref.function->once_blocks)
      excluded_.emplace_back(function, once);
  }

  void addWhole(std::uint32_t function, const Event* via, std::uint32_t via_function,
                bool self_only = false, int depth = 0) {
    FunctionRef ref = program_.function(function);
    if (!ref) return;
    addSpan(function, ref.function->body, self_only, via, via_function, depth);
  }

  int depthOf(std::size_t span) const { return spans_[span].depth; }

  void addCalls(const CycleSpan& span, int depth) {
    if (depth >= kMaxClosureDepth) return;
    FunctionRef ref = program_.function(span.function);
    if (!ref) return;
    const program::FrameId frame = program_.plainFrame(*ref.file, *ref.function);
    const std::uint32_t caller = span.function;
    const SourceRange range = span.span;
    for (const Event& event : ref.function->events) {
      if (event.kind != EventKind::kCall || !CaptureFlow::contains(range, event.range.begin)) {
        continue;
      }
      if (event.region >= 0 || excluded(caller, event.range.begin)) continue;
      for (const CallTarget& target : program_.callTargets(frame, *ref.file, event)) {
        addWhole(target.function, &event, caller, false, depth + 1);
      }
    }
  }

  void addClassMethods(const FunctionModel& home) {
    const auto& classes = file_.classes;
    if (static_cast<std::size_t>(home.class_index) >= classes.size()) return;
    for (const auto& [name, method] : classes[static_cast<std::size_t>(home.class_index)].methods) {
      if (isConstructorName(name) || method >= file_.functions.size()) continue;
      addWhole(program_.index().functionId(file_index_, method), nullptr, kNoId, true);
    }
  }

  // The functions the region's own calls run, kMaxCaptureDepth calls deep (bounded).
  std::vector<std::uint32_t> capturedFunctions(const FunctionModel& home) const {
    std::vector<std::uint32_t> found;
    std::vector<std::pair<std::uint32_t, int>> work;
    auto visit = [&](FunctionRef ref, std::uint32_t id, int depth, bool whole) {
      const program::FrameId frame = program_.plainFrame(*ref.file, *ref.function);
      for (const Event& event : ref.function->events) {
        if (event.kind != EventKind::kCall) continue;
        if (!whole && event.region != static_cast<std::int32_t>(region_index_)) continue;
        for (const CallTarget& target : program_.callTargets(frame, *ref.file, event)) {
          if (target.function == id || found.size() >= kMaxCycleFunctions) continue;
          if (std::find(found.begin(), found.end(), target.function) != found.end()) continue;
          found.push_back(target.function);
          work.emplace_back(target.function, depth + 1);
        }
      }
    };
    visit(FunctionRef{&file_, &home}, home_, 0, region_.whole_function);
    for (std::size_t i = 0; i < work.size(); ++i) {
      if (work[i].second >= kMaxCaptureDepth) continue;
      if (FunctionRef ref = program_.function(work[i].first)) {
        visit(ref, work[i].first, work[i].second, true);
      }
    }
    std::sort(found.begin(), found.end());
    return found;
  }

  bool excluded(std::uint32_t function, std::uint32_t position) const {
    return std::any_of(excluded_.begin(), excluded_.end(), [&](const auto& entry) {
      return entry.first == function && CaptureFlow::contains(entry.second, position);
    });
  }

  const ProgramModel& program_;
  ReplayReach& reach_;
  const FileModel& file_;
  std::uint32_t file_index_;
  std::size_t region_index_;
  const CaptureRegion& region_;
  const CaptureFlow& flow_;
  std::uint32_t home_ = kNoId;
  std::vector<CycleSpan> spans_;
  std::vector<std::pair<std::uint32_t, SourceRange>> excluded_;
};

}  // namespace

const CycleSpan* ReplayCycle::at(std::uint32_t function, std::uint32_t position,
                                 bool self_write) const {
  for (const auto& [excluded_function, range] : excluded_) {
    if (excluded_function == function && CaptureFlow::contains(range, position)) return nullptr;
  }
  const CycleSpan* found = nullptr;
  for (const CycleSpan& span : spans_) {
    if (span.function != function || !CaptureFlow::contains(span.span, position)) continue;
    if (span.self_only && !self_write) continue;
    // A span seen on the cycle says more than one assumed for the object's methods.
    if (found == nullptr || (found->self_only && !span.self_only)) found = &span;
  }
  return found;
}

ReplayCycle buildReplayCycle(const ProgramModel& program, ReplayReach& reach, const FileModel& file,
                             std::size_t region) {
  return CycleBuilder(program, reach, file, region).build();
}

}  // namespace graphsafe::program
