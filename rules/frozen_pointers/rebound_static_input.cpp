// GS201 rebound-static-input: a name a capture region reads is bound to a new tensor after the
// capture and before a replay, so the graph keeps reading the old address. The question is one
// of order (captured, then rebound, then replayed, possibly in the next iteration of the replay
// loop), answered by CaptureFlow over the whole file.
#include <set>
#include <string>

#include "analyzer/engine/capture_flow.h"
#include "analyzer/engine/check.h"

namespace graphsafe {

namespace {

bool isAttributePath(const std::string& name) {
  return name.starts_with("self.");
}

class ReboundStaticInputCheck final : public Check {
 public:
  std::string_view id() const override { return "GS201"; }

  void checkFile(const FileModel& file, const ProgramModel& /*program*/,
                 DiagnosticSink& sink) const override {
    if (file.regions.empty()) return;
    CaptureFlow flow(file);
    std::set<const Event*> reported;
    for (std::size_t r = 0; r < file.regions.size(); ++r) {
      const CaptureRegion& region = file.regions[r];
      const FunctionModel* reader = flow.reader(r);
      if (reader == nullptr || flow.replays(r).empty()) continue;
      for (const RegionName& input : flow.inputs(r)) {
        if (input.value.isKnownHost()) continue;
        // CUDAGraph Trees copies a compiled function's arguments into its own static inputs on
        // every call; what it keeps by address are the module attributes the function reads.
        if (region.dynamo_traced && !isAttributePath(input.name)) continue;
        bool captured_tensor = input.value.isTensor() || boundToTensorBefore(flow, r, input.name);
        for (const FunctionModel& function : file.functions) {
          if (region.whole_function && &function == reader) continue;  // its own code
          if (!flow.sameScope(*reader, function, input.name)) continue;
          for (const Event& bind : function.events) {
            if (bind.kind != EventKind::kBind || flow.target(bind) != input.name) continue;
            if (reported.contains(&bind) || bind.subject.isKnownHost()) continue;
            if (!captured_tensor && !bind.subject.isTensor()) continue;
            if (bind.source == input.name) continue;  // a view of itself: the same block
            if (!flow.afterCapture(r, function, bind.range.begin)) continue;
            const CaptureFlow::Site* replay = flow.replayAfter(r, function, bind.range.begin);
            if (replay == nullptr) continue;
            reported.insert(&bind);
            report(file, region, input, bind, *replay->event, sink);
          }
        }
      }
    }
  }

 private:
  // Was the name bound to a tensor before the capture: in the capturing function, or (for an
  // attribute) in its class's __init__?
  static bool boundToTensorBefore(const CaptureFlow& flow, std::size_t r, const std::string& name) {
    const FunctionModel* home = flow.home(r);
    const FunctionModel* reader = flow.reader(r);
    for (const FunctionModel& function : flow.file().functions) {
      bool before_in_home = &function == home;
      bool init = isAttributePath(name) && function.name == "__init__" && reader != nullptr &&
                  flow.sameScope(*reader, function, name);
      if (!before_in_home && !init) continue;
      for (const Event& event : function.events) {
        if (before_in_home && !init && event.range.begin >= flow.span(r).begin) break;
        if (event.kind == EventKind::kBind && flow.target(event) == name &&
            event.subject.isTensor()) {
          return true;
        }
      }
    }
    return false;
  }

  static void report(const FileModel& file, const CaptureRegion& region, const RegionName& input,
                     const Event& bind, const Event& replay, DiagnosticSink& sink) {
    std::string name = "`" + input.name + "`";
    std::string replayed = "`" + replay.text + "` (line " + lineOf(replay.range) + ")";
    std::string message;
    if (region.dynamo_traced) {
      message = name + " is read by the function compiled with CUDA graphs at line " +
                lineOf(region.site) +
                ", and CUDAGraph Trees keeps it as a static input by address; binding it to a "
                "new tensor here, before the call " +
                replayed + ", leaves the recorded graph reading the old tensor's memory";
    } else {
      // C++ names a pointer; Python names a tensor.
      const bool cuda = file.language == Language::kCuda;
      message = name + " is read by the CUDA graph captured at line " + lineOf(region.site) +
                (cuda ? " but points at other memory from here, before "
                      : " but is bound to a new tensor here, before ") +
                replayed + ": the graph keeps reading the address it captured, not " +
                (cuda ? "the new one" : "this tensor");
    }
    std::vector<RelatedLocation> related;
    related.push_back(
        {file.source, region.site, "the graph captures `" + input.name + "`'s address here"});
    related.push_back({file.source, input.range, "read under capture here"});
    related.push_back({file.source, replay.range, "replayed here"});
    sink.reportAt(file.source, bind.range, std::move(message), std::move(related));
  }
};

}  // namespace

std::unique_ptr<Check> makeReboundStaticInputCheck() {
  return std::make_unique<ReboundStaticInputCheck>();
}

}  // namespace graphsafe
