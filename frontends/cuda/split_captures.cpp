#include "frontends/cuda/split_captures.h"

namespace graphsafe::cuda {

namespace {

bool callsAny(const Event& event, const std::vector<CaptureSplit>& splits, bool opens) {
  if (event.kind != EventKind::kCall || event.callee >= splits.size()) return false;
  const CaptureSplit& split = splits[event.callee];
  return opens ? split.opens : split.closes;
}

}  // namespace

void joinCapturesSplitAcrossCalls(FileModel& model, const std::vector<CaptureSplit>& splits) {
  bool any = false;
  for (const CaptureSplit& split : splits) any = any || split.opens;
  if (!any) return;
  for (FunctionId f = 0; f < model.functions.size(); ++f) {
    std::vector<Event>& events = model.functions[f].events;
    for (std::size_t i = 0; i < events.size(); ++i) {
      if (events[i].region >= 0 || events[i].callee == f || !callsAny(events[i], splits, true)) {
        continue;
      }
      const SourceRange site = events[i].range;
      std::size_t end = i + 1;
      while (end < events.size() && !callsAny(events[end], splits, false)) ++end;
      CaptureRegion region;
      region.kind = RegionKind::kStreamCapture;
      region.site = site;
      region.function = f;
      region.span = model.source->rangeOf(
          site.begin, end < events.size() ? events[end].range.end : model.functions[f].body.end);
      const auto index = static_cast<std::int32_t>(model.regions.size());
      for (std::size_t k = i + 1; k < end; ++k) {
        if (events[k].region < 0) events[k].region = index;
      }
      model.regions.push_back(std::move(region));
      i = end;
    }
  }
}

}  // namespace graphsafe::cuda
