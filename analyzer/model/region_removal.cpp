#include "analyzer/model/region_removal.h"

namespace graphsafe {

void dropRegions(FileModel& file, const std::vector<bool>& dead) {
  bool any_dead = false;
  for (std::size_t i = 0; i < dead.size() && i < file.regions.size(); ++i) {
    any_dead = any_dead || dead[i];
  }
  if (!any_dead) return;
  // Parents come before their children (a region is added when it opens), so one pass in order
  // knows every parent's new index before it is needed.
  std::vector<std::int32_t> remap(file.regions.size(), -1);
  std::vector<CaptureRegion> kept;
  for (std::size_t i = 0; i < file.regions.size(); ++i) {
    const std::int32_t parent = file.regions[i].parent;
    const std::int32_t parent_index =
        parent >= 0 && static_cast<std::size_t>(parent) < i ? remap[static_cast<std::size_t>(parent)]
                                                            : -1;
    if (i < dead.size() && dead[i]) {
      remap[i] = parent_index;
    } else {
      remap[i] = static_cast<std::int32_t>(kept.size());
      kept.push_back(std::move(file.regions[i]));
      kept.back().parent = parent_index;
    }
  }
  file.regions = std::move(kept);
  for (FunctionModel& function : file.functions) {
    if (function.yield_region >= 0) {
      function.yield_region = remap[static_cast<std::size_t>(function.yield_region)];
    }
    if (function.returned_output >= 0) {
      function.returned_output = remap[static_cast<std::size_t>(function.returned_output)];
    }
    for (Event& event : function.events) {
      if (event.region >= 0) event.region = remap[static_cast<std::size_t>(event.region)];
      if (event.output_of >= 0) event.output_of = remap[static_cast<std::size_t>(event.output_of)];
    }
  }
}

}  // namespace graphsafe
