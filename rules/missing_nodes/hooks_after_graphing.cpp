// GS303 hooks-after-graphing: a forward or backward hook registered on a submodule of a module
// after the module was handed to make_graphed_callables. The graphed forward replays the graph
// instead of calling the submodules, so their hooks never run. A hook on the graphed module
// itself still runs (its __call__ does) and is not reported.
#include <set>
#include <string>
#include <vector>

#include "analyzer/engine/check.h"
#include "analyzer/program/capture_flow.h"

namespace graphsafe {

namespace {

constexpr std::string_view kHookApi = "torch.nn.Module.register_";

// Does the hook event register on a submodule of `module`: `module.layer`, `module.blocks[0]`,
// or a loop variable over `module.modules()`?
bool onSubmoduleOf(const Event& event, const std::string& module) {
  if (event.source == module) return true;
  return event.target.size() > module.size() && event.target.starts_with(module) &&
         event.target[module.size()] == '.';
}

class HooksAfterGraphingCheck final : public Check {
 public:
  std::string_view id() const override { return "GS303"; }

  void checkFile(const FileModel& file, const ProgramModel& /*program*/,
                 DiagnosticSink& sink) const override {
    if (file.regions.empty()) return;
    CaptureFlow flow(file);
    std::set<const Event*> reported;
    for (std::size_t r = 0; r < file.regions.size(); ++r) {
      const CaptureRegion& region = file.regions[r];
      if (region.kind != RegionKind::kGraphedCallable) continue;
      const FunctionModel* home = flow.home(r);
      if (home == nullptr) continue;
      // The module as it was passed, and the name the graphed result was bound to (the same
      // object: make_graphed_callables returns a module it was given, with a new forward).
      std::vector<std::string> names;
      if (!region.callable.empty()) names.push_back(region.callable);
      if (!region.handle.empty() && region.handle != region.callable) {
        names.push_back(region.handle);
      }
      for (const std::string& module : names) {
        for (const Event& event : home->events) {
          if (event.range.begin < region.site.end) continue;
          // Bound to another object: what follows is about that one.
          if (event.kind == EventKind::kBind && flow.target(event) == module) break;
          if (event.kind != EventKind::kCall || !event.api.starts_with(kHookApi)) continue;
          if (!onSubmoduleOf(event, module) || !reported.insert(&event).second) continue;
          report(file, region, module, event, sink);
        }
      }
    }
  }

 private:
  static void report(const FileModel& file, const CaptureRegion& region, const std::string& module,
                     const Event& hook, DiagnosticSink& sink) {
    std::string on = hook.source.empty()
                         ? "`" + hook.target + "`"
                         : "`" + hook.target + "`, a submodule of `" + hook.source + "`,";
    std::string method = hook.api.substr(std::string_view("torch.nn.Module.").size());
    std::string message = "`" + method + "` on " + on + " after `" + module +
                          "` was graphed by make_graphed_callables (line " +
                          std::to_string(region.site.start.line + 1) +
                          "): the graphed forward replays the graph without calling its "
                          "submodules, so this hook never runs";
    std::vector<RelatedLocation> related;
    related.push_back({file.source, region.site, "`" + module + "` is graphed here"});
    sink.reportAt(file.source, hook.range, std::move(message), std::move(related));
  }
};

}  // namespace

std::unique_ptr<Check> makeHooksAfterGraphingCheck() {
  return std::make_unique<HooksAfterGraphingCheck>();
}

}  // namespace graphsafe
