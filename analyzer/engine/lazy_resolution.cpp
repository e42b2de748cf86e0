#include "analyzer/engine/lazy_resolution.h"

#include <algorithm>
#include <unordered_set>

#include "analyzer/engine/definition_index.h"

namespace graphsafe {

namespace {

// Functions visited per round at most: the walk stays linear in the program, never more.
constexpr std::size_t kMaxVisits = 1u << 18;

class ReachWalk {
 public:
  ReachWalk(const DefinitionIndex& index, std::vector<std::string>& missing)
      : index_(index), missing_(missing) {}

  // Every region of the file. The body regions of one function are followed in one pass over
  // its events (the calls under any of them), not one pass per region: a function with
  // thousands of captures stays linear.
  void fromFile(const FileModel& file) {
    std::vector<bool> has_body_region(file.functions.size(), false);
    for (const CaptureRegion& region : file.regions) {
      FunctionRef start;
      if (region.function != kNoFunction && region.function < file.functions.size()) {
        if (!region.whole_function) {
          has_body_region[region.function] = true;
          continue;
        }
        start = {&file, &file.functions[region.function]};
      } else if (!region.target_qualified.empty()) {
        start = index_.resolve(region.target_qualified, &missing_);
      }
      if (start) enqueue(start);
    }
    for (std::size_t f = 0; f < file.functions.size(); ++f) {
      if (has_body_region[f]) follow({&file, &file.functions[f]}, true);
    }
    drain();
  }

 private:
  void enqueue(FunctionRef function) {
    if (visited_.size() >= kMaxVisits || !visited_.insert(function.function).second) return;
    pending_.push_back(function);
  }

  void drain() {
    while (!pending_.empty()) {
      FunctionRef next = pending_.back();
      pending_.pop_back();
      follow(next, false);
    }
  }

  // The calls of `function` (only those under a capture region of its body when `in_regions`).
  void follow(FunctionRef function, bool in_regions) {
    for (const Event& event : function.function->events) {
      if (event.kind != EventKind::kCall) continue;
      if (in_regions && event.region < 0) continue;
      if (event.callee != kNoFunction && event.callee < function.file->functions.size()) {
        enqueue({function.file, &function.file->functions[event.callee]});
      } else if (!event.callee_qualified.empty()) {
        FunctionRef callee = index_.resolve(event.callee_qualified, &missing_);
        if (callee) enqueue(callee);
      }
    }
  }

  const DefinitionIndex& index_;
  std::vector<std::string>& missing_;
  std::unordered_set<const FunctionModel*> visited_;
  std::vector<FunctionRef> pending_;
};

}  // namespace

std::vector<std::string> modulesReachedFromRegions(const std::vector<FileModel>& models,
                                                   const std::vector<bool>& lowered) {
  DefinitionIndex index;
  for (std::size_t i = 0; i < models.size(); ++i) {
    if (lowered[i]) index.add(models[i]);
  }
  std::vector<std::string> missing;
  ReachWalk walk(index, missing);
  for (std::size_t i = 0; i < models.size(); ++i) {
    if (!lowered[i]) continue;
    walk.fromFile(models[i]);
  }
  std::sort(missing.begin(), missing.end());
  missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
  return missing;
}

}  // namespace graphsafe
