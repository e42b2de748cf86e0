#include "analyzer/program/replay_facts.h"

#include <algorithm>
#include <string_view>

#include "analyzer/program/capture_flow.h"
#include "analyzer/program/program_index.h"

namespace graphsafe::program {

namespace {

bool isBodyRegion(const CaptureRegion& region) {
  return !region.whole_function &&
         (region.kind == RegionKind::kGraphContext || region.kind == RegionKind::kCaptureBeginEnd);
}

// The parameter `name` is, when it is one (not the instance or class parameter).
std::int32_t parameterNamed(const FunctionModel& function, std::string_view name) {
  const std::size_t first = function.has_self || function.is_classmethod ? 1 : 0;
  for (std::size_t i = first; i < function.params.size(); ++i) {
    if (function.params[i].name == name) return static_cast<std::int32_t>(i);
  }
  return -1;
}

bool isCacheKey(const CaptureRegion& region, std::string_view name) {
  return std::find(region.cache_keys.begin(), region.cache_keys.end(), name) !=
         region.cache_keys.end();
}

}  // namespace

ReplayFacts::ReplayFacts(const std::vector<FileModel>& files, const ProgramIndex& index) {
  for (std::size_t f = 0; f < files.size(); ++f) {
    const FileModel& file = files[f];
    if (file.regions.empty() || file.language != Language::kPython) continue;
    bool any = false;
    for (const FunctionModel& function : file.functions) any |= function.returned_output >= 0;
    for (const CaptureRegion& region : file.regions) any |= region.lazy && isBodyRegion(region);
    if (!any) continue;
    CaptureFlow flow(file);
    auto entry = [&](const FunctionModel& function) -> ReplayingFunction& {
      const auto local = static_cast<FunctionId>(&function - file.functions.data());
      return functions_[index.functionId(static_cast<std::uint32_t>(f), local)];
    };
    for (const FunctionModel& function : file.functions) {
      if (function.returned_output < 0) continue;
      const auto r = static_cast<std::size_t>(function.returned_output);
      if (r >= file.regions.size()) continue;
      // Returned right after its own capture, with no replay before: the capture's result.
      const CaptureFlow::Site* replay =
          flow.replayBefore(r, function, function.returned_output_at.end);
      if (replay == nullptr || replay->function != &function) continue;
      ReplayingFunction& facts = entry(function);
      facts.output_region = function.returned_output;
      facts.replay = replay->event;
    }
    for (std::size_t r = 0; r < file.regions.size(); ++r) {
      const CaptureRegion& region = file.regions[r];
      if (!region.lazy || !isBodyRegion(region) || region.function >= file.functions.size()) {
        continue;
      }
      const FunctionModel& function = file.functions[region.function];
      const CaptureFlow::Site* replay = flow.replayAfter(r, function, flow.span(r).end);
      if (replay == nullptr || replay->function != &function) continue;
      std::vector<LazyParameterRead> reads;
      for (const RegionName& input : region.inputs) {
        // Host scalars are frozen values, GS103's; a cache key selects its own graph.
        if (input.value.isKnownHost() || isCacheKey(region, input.name)) continue;
        std::int32_t param = parameterNamed(function, input.name);
        if (param < 0) continue;
        reads.push_back({r, static_cast<std::uint32_t>(param), &input});
      }
      if (reads.empty()) continue;
      ReplayingFunction& facts = entry(function);
      facts.lazy_reads.insert(facts.lazy_reads.end(), reads.begin(), reads.end());
      if (facts.lazy_replay == nullptr) facts.lazy_replay = replay->event;
    }
  }
}

}  // namespace graphsafe::program
