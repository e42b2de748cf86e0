#include "analyzer/program/replay_reach.h"

#include <algorithm>

#include "analyzer/program/capture_flow.h"
#include "analyzer/program/program_model.h"

namespace graphsafe::program {

namespace {

bool inside(const std::vector<SourceRange>& ranges, std::uint32_t position) {
  return std::any_of(ranges.begin(), ranges.end(), [&](const SourceRange& range) {
    return CaptureFlow::contains(range, position);
  });
}

void addSorted(std::vector<RegionKey>& keys, RegionKey key) {
  auto it = std::lower_bound(keys.begin(), keys.end(), key);
  if (it == keys.end() || *it != key) keys.insert(it, key);
}

// A call that runs on every call of its function: not under capture (what a capture records is
// not run again), not in a block that runs once, not in code that runs only when no capture is
// under way... which is still run between replays, so it counts.
bool runsEachCall(const FunctionModel& function, const Event& event) {
  return event.region < 0 && (event.flags & kFlagRunsOnce) == 0 &&
         !inside(function.once_blocks, event.range.begin);
}

}  // namespace

ReplayReach::ReplayReach(const ProgramModel& program) : program_(program) {
  const auto& files = program.files();
  for (std::uint32_t f = 0; f < files.size(); ++f) {
    const FileModel& file = files[f];
    if (file.regions.empty() || file.language != Language::kPython) continue;
    any_regions_ = true;
    const CaptureFlow& flow = program.captureFlow(file);
    for (std::size_t r = 0; r < file.regions.size(); ++r) {
      const FunctionModel* home = flow.home(r);
      const RegionKey key = regionKey(f, r);
      // The capturing function replays a graph of an earlier call only when it captures lazily;
      // otherwise each call captures anew.
      if (home != nullptr && file.regions[r].lazy) {
        addSorted(direct_[program.functionId(file, *home)], key);
      }
      for (const CaptureFlow::Site& site : flow.replays(r)) {
        if (site.function == home && !file.regions[r].lazy) continue;
        addSorted(direct_[program.functionId(file, *site.function)], key);
      }
    }
  }
}

const std::vector<RegionKey>& ReplayReach::direct(std::uint32_t function) const {
  auto it = direct_.find(function);
  return it == direct_.end() ? none_ : it->second;
}

const std::vector<RegionKey>& ReplayReach::replayedBy(std::uint32_t function) {
  auto it = memo_.find(function);
  if (it != memo_.end()) return it->second;
  std::vector<RegionKey> keys = compute(function, 0);
  return memo_.emplace(function, std::move(keys)).first->second;
}

std::vector<RegionKey> ReplayReach::compute(std::uint32_t function, int depth) {
  std::vector<RegionKey> keys = direct(function);
  if (direct_.empty() || depth >= kMaxDepth || !active_.insert(function).second) return keys;
  FunctionRef ref = program_.function(function);
  if (ref && ref.file->language == Language::kPython) {
    const program::FrameId frame = program_.plainFrame(*ref.file, *ref.function);
    for (const Event& event : ref.function->events) {
      if (event.kind != EventKind::kCall || !runsEachCall(*ref.function, event)) continue;
      for (const CallTarget& target : program_.callTargets(frame, *ref.file, event)) {
        if (target.function == function) continue;
        auto known = memo_.find(target.function);
        const std::vector<RegionKey> inner =
            known != memo_.end() ? known->second : compute(target.function, depth + 1);
        for (RegionKey key : inner) addSorted(keys, key);
      }
    }
  }
  active_.erase(function);
  return keys;
}

const std::vector<ReplayingLoop>& ReplayReach::loopsReplaying(RegionKey region) {
  if (!loops_collected_) collectLoops();
  auto it = loops_.find(region);
  return it == loops_.end() ? no_loops_ : it->second;
}

void ReplayReach::collectLoops() {
  loops_collected_ = true;
  if (!any_regions_) return;
  const auto& files = program_.files();
  for (std::uint32_t f = 0; f < files.size(); ++f) {
    const FileModel& file = files[f];
    if (file.language != Language::kPython) continue;
    // The replays this file's functions make, by event: a loop in the capturing function that
    // replays what it captured once is a cycle too.
    std::unordered_map<const Event*, std::vector<RegionKey>> replays;
    if (!file.regions.empty()) {
      const CaptureFlow& flow = program_.captureFlow(file);
      for (std::size_t r = 0; r < file.regions.size(); ++r) {
        for (const CaptureFlow::Site& site : flow.replays(r)) {
          addSorted(replays[site.event], regionKey(f, r));
        }
      }
    }
    for (const FunctionModel& function : file.functions) {
      if (function.loops.empty()) continue;
      const std::uint32_t id = program_.functionId(file, function);
      const program::FrameId frame = program_.plainFrame(file, function);
      for (const Event& event : function.events) {
        if (event.region >= 0 || inside(function.once_blocks, event.range.begin)) continue;
        std::vector<RegionKey> keys;
        if (event.kind == EventKind::kReplay) {
          auto found = replays.find(&event);
          if (found != replays.end()) keys = found->second;
        } else if (event.kind == EventKind::kCall && (event.flags & kFlagRunsOnce) == 0) {
          for (const CallTarget& target : program_.callTargets(frame, file, event)) {
            for (RegionKey key : replayedBy(target.function)) addSorted(keys, key);
          }
        }
        if (keys.empty()) continue;
        for (const SourceRange& loop : function.loops) {
          if (!CaptureFlow::contains(loop, event.range.begin)) continue;
          for (RegionKey key : keys) loops_[key].push_back({id, loop, &event});
        }
      }
    }
  }
}

}  // namespace graphsafe::program
