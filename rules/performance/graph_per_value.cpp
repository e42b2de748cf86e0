// GS605 graph-per-value: a lazily filled graph cache (`if bs not in self.graphs:` around a
// capture, or around a call of a helper that captures) keyed by a size read straight from the
// data (`bs = x.shape[0]`, `n = len(tokens)`), with no padding to a few bucket sizes and no
// eviction. Every new size captures and keeps
// another graph, each with its own memory pool and the tensors it keeps alive, so memory and
// capture time grow with the number of distinct sizes the requests bring.
//
// Near misses: a key rounded or looked up first (`next_power_of_2(n)`, `sizes[bisect(sizes, n)]`,
// `(n + 63) // 64 * 64`: any binding that is not the raw size), and a cache that loses entries
// somewhere in the file (`pop`, `popitem`, `clear`, `del cache[k]`).
#include <string>
#include <vector>

#include "analyzer/engine/check.h"
#include "analyzer/program/program_model.h"

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

// Does some function of the file take entries out of one of these caches?
bool evicts(const FileModel& file, const std::vector<std::string>& caches) {
  for (const std::string& cache : caches) {
    for (const FunctionModel& function : file.functions) {
      for (const Event& event : function.events) {
        if (removesFrom(file, event, cache)) return true;
      }
    }
  }
  return false;
}

bool inside(const SourceRange& outer, const SourceRange& inner) {
  return outer.begin <= inner.begin && inner.begin < outer.end;
}

// The capture the guarded code makes: a capture region in the guarded block, or one in a
// function of the program that a call in the block reaches. Null when it makes none.
const CaptureRegion* captureUnder(const ProgramModel& program, const FileModel& file,
                                  const FunctionModel& function, const CacheGuard& guard,
                                  const FileModel*& region_file) {
  for (const CaptureRegion& region : file.regions) {
    if (region.whole_function || region.function >= file.functions.size()) continue;
    if (&file.functions[region.function] == &function && inside(guard.body, region.site)) {
      region_file = &file;
      return &region;
    }
  }
  for (const Event& event : function.events) {
    if (event.kind != EventKind::kCall || !inside(guard.body, event.range)) continue;
    FunctionRef callee = program.resolveCall(file, function, event);
    if (!callee) continue;
    for (const CaptureRegion& region : callee.file->regions) {
      if (region.whole_function || region.dynamo_traced) continue;
      if (region.function < callee.file->functions.size() &&
          &callee.file->functions[region.function] == callee.function) {
        region_file = callee.file;
        return &region;
      }
    }
  }
  return nullptr;
}

// Where the guarded code keeps what it made: the containers it stores into (`self.graphs[bs]
// = g`), which is the cache the guard tests.
std::vector<std::string> cachesOf(const FunctionModel& function, const CacheGuard& guard) {
  std::vector<std::string> caches;
  for (const Event& event : function.events) {
    if (event.kind == EventKind::kStore && !event.target.empty() &&
        inside(guard.body, event.range)) {
      caches.push_back(event.target);
    }
  }
  return caches;
}

class GraphPerValueCheck final : public Check {
 public:
  std::string_view id() const override { return "GS605"; }

  void checkFile(const FileModel& file, const ProgramModel& program,
                 DiagnosticSink& sink) const override {
    if (file.language != Language::kPython) return;
    for (const FunctionModel& function : file.functions) {
      for (const CacheGuard& guard : function.cache_guards) {
        for (const std::string& key : guard.keys) {
          const Event* bound = bindingBefore(function, key, guard.body.begin);
          if (bound == nullptr || (bound->flags & kFlagSizeRead) == 0) continue;
          const FileModel* region_file = nullptr;
          const CaptureRegion* region = captureUnder(program, file, function, guard, region_file);
          if (region == nullptr || evicts(file, cachesOf(function, guard))) break;
          report(file, key, *bound, *region_file, *region, sink);
          break;
        }
      }
    }
  }

 private:
  static void report(const FileModel& file, const std::string& key, const Event& bound,
                     const FileModel& region_file, const CaptureRegion& region,
                     DiagnosticSink& sink) {
    const std::string where = &region_file == &file
                                  ? "line " + lineOf(region.site)
                                  : region_file.source->path() + ":" + lineOf(region.site);
    std::string message =
        "`" + key +
        "`, a size read straight from the data here, keys a cache of CUDA graphs "
        "captured on first use (" +
        where +
        "): every new size captures and keeps another graph with its own memory pool, so "
        "memory and capture time grow with the number of distinct sizes";
    std::vector<RelatedLocation> related;
    related.push_back(
        {region_file.source, region.site, "a graph is captured here for each new `" + key + "`"});
    sink.reportAt(file.source, bound.range, std::move(message), std::move(related));
  }
};

}  // namespace

std::unique_ptr<Check> makeGraphPerValueCheck() {
  return std::make_unique<GraphPerValueCheck>();
}

}  // namespace graphsafe
