// GS605 graph-per-value: a lazily captured graph cache (`if bs not in self.graphs:` around the
// capture) keyed by a size read straight from the data (`bs = x.shape[0]`, `n = len(tokens)`),
// with no padding to a few bucket sizes and no eviction. Every new size captures and keeps
// another graph, each with its own memory pool and the tensors it keeps alive, so memory and
// capture time grow with the number of distinct sizes the requests bring.
//
// Near misses: a key rounded or looked up first (`next_power_of_2(n)`, `sizes[bisect(sizes, n)]`,
// `(n + 63) // 64 * 64`: any binding that is not the raw size), and a cache that loses entries
// somewhere in the file (`pop`, `popitem`, `clear`, `del cache[k]`).
#include <string>
#include <vector>

#include "analyzer/engine/capture_flow.h"
#include "analyzer/engine/check.h"

namespace graphsafe {

namespace {

// The binding of `name` in `function` that the code at `position` sees: the last one before it.
const Event* bindingBefore(const FunctionModel& function, const std::string& name,
                           std::uint32_t position) {
  const Event* last = nullptr;
  for (const Event& event : function.events) {
    if (event.range.begin >= position) break;
    if (event.kind == EventKind::kBind && event.target == name) last = &event;
  }
  return last;
}

// `del cache[key]`, or a call `cache.pop(...)`, `cache.popitem()`, `cache.clear()` (the call's
// reference names the method; its text, the object it is called on).
bool removesFrom(const FileModel& file, const Event& event, const std::string& cache) {
  if (event.kind == EventKind::kFree) return event.target == cache;
  if (event.kind != EventKind::kCall || event.call >= file.references.size()) return false;
  const Reference& call = file.references[event.call];
  if (call.kind != Reference::Kind::kCall || call.operands.empty() ||
      call.operands[0] >= file.references.size()) {
    return false;
  }
  const Reference& callee = file.references[call.operands[0]];
  if (callee.kind != Reference::Kind::kAttribute ||
      (callee.name != "pop" && callee.name != "popitem" && callee.name != "clear")) {
    return false;
  }
  return event.text.starts_with(cache + "." + callee.name + "(");
}

// Does some function of the file take graphs out of the cache the region's graph is kept in?
bool evicts(const FileModel& file, const CaptureFlow& flow, std::size_t r) {
  for (const std::string& cache : flow.handles(r)) {
    for (const FunctionModel& function : file.functions) {
      for (const Event& event : function.events) {
        if (removesFrom(file, event, cache)) return true;
      }
    }
  }
  return false;
}

class GraphPerValueCheck final : public Check {
 public:
  std::string_view id() const override { return "GS605"; }

  void checkFile(const FileModel& file, const ProgramModel& /*program*/,
                 DiagnosticSink& sink) const override {
    if (file.language != Language::kPython || file.regions.empty()) return;
    CaptureFlow flow(file);
    for (std::size_t r = 0; r < file.regions.size(); ++r) {
      const CaptureRegion& region = file.regions[r];
      if (!region.lazy || region.whole_function || region.cache_keys.empty()) continue;
      const FunctionModel* home = flow.home(r);
      if (home == nullptr) continue;
      for (const std::string& key : region.cache_keys) {
        const Event* bound = bindingBefore(*home, key, region.site.begin);
        if (bound == nullptr || (bound->flags & kFlagSizeRead) == 0) continue;
        if (evicts(file, flow, r)) break;
        report(file, region, key, *bound, sink);
        break;
      }
    }
  }

 private:
  static void report(const FileModel& file, const CaptureRegion& region, const std::string& key,
                     const Event& bound, DiagnosticSink& sink) {
    std::string message =
        "`" + key + "`, a size read straight from the data here, keys a cache of CUDA graphs "
        "captured on first use (line " + lineOf(region.site) +
        "): every new size captures and keeps another graph with its own memory pool, so "
        "memory and capture time grow with the number of distinct sizes";
    std::vector<RelatedLocation> related;
    related.push_back({file.source, region.site, "a graph is captured here for each new `" + key +
                                                     "`"});
    sink.reportAt(file.source, bound.range, std::move(message), std::move(related));
  }
};

}  // namespace

std::unique_ptr<Check> makeGraphPerValueCheck() { return std::make_unique<GraphPerValueCheck>(); }

}  // namespace graphsafe
