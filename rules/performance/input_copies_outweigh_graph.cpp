// GS602 input-copies-outweigh-graph: a graph whose captured work is one or two operations,
// replayed after copies into its static inputs (`static_x.copy_(x)`, `fill_`, a slice
// assignment; in C++ a host-to-device `cudaMemcpyAsync` into a pointer its kernels take). Each
// copy is a kernel or a DMA of its own, so the replay saves no launch and the copies can take
// longer than the graph.
//
// The captured work is counted from the region's events and the functions it reaches; a call the
// walk cannot follow (a module of unknown class, a library function) may do any amount of work,
// and the region is not reported.
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "analyzer/engine/check.h"
#include "analyzer/engine/region_walker.h"
#include "analyzer/program/capture_flow.h"
#include "analyzer/program/program_model.h"

namespace graphsafe {

namespace {

constexpr std::size_t kMaxOps = 2;

struct CapturedWork {
  std::vector<const Event*> ops;  // distinct source ranges, in walk order
  bool unknown = false;           // a call the walk could not follow
};

CapturedWork capturedWork(const ProgramModel& program, const FileModel& file, std::size_t r) {
  CapturedWork work;
  std::set<std::tuple<const FileModel*, std::uint32_t, std::uint32_t>> ranges;
  RegionWalker(program).walk(file, r, [&](const RegionContext& context, const Event& event) {
    if (work.unknown) return;
    if (event.kind == EventKind::kCall) {
      work.unknown = program.callTargets(context.frame, *context.file, event).empty();
      return;
    }
    if (event.kind != EventKind::kTensorOp && event.kind != EventKind::kInPlaceUpdate) return;
    if (ranges.emplace(context.file, event.range.begin, event.range.end).second) {
      work.ops.push_back(&event);
    }
  });
  return work;
}

// The C++ `cudaMemcpyAsync(dst, src, bytes, kind, stream)` from the host: its destination.
std::string hostToDeviceDestination(const Event& event) {
  if (event.kind != EventKind::kTensorOp || event.api != "cudaMemcpyAsync") return "";
  if (event.args.size() < 4) return "";
  const std::string& kind = event.args[3].text;
  if (kind.find("HostToDevice") == std::string::npos && kind.find("Default") == std::string::npos) {
    return "";
  }
  return event.args[0].text;
}

// A copy into one of the region's inputs: the input it fills, or "".
std::string filledInput(const Event& event, const std::vector<RegionName>& inputs) {
  std::string target;
  if (event.kind == EventKind::kInPlaceUpdate &&
      (event.api == "torch.Tensor.copy_" || event.api == "torch.Tensor.fill_" ||
       event.api == "__setitem__")) {
    target = event.target;
  } else {
    target = hostToDeviceDestination(event);
  }
  if (target.empty()) return "";
  for (const RegionName& input : inputs) {
    if (input.name == target) return target;
  }
  return "";
}

std::string operationsText(const CapturedWork& work) {
  std::string out;
  for (std::size_t i = 0; i < work.ops.size(); ++i) {
    if (i > 0) out += " and ";
    out += "`" + work.ops[i]->text + "`";
  }
  return out;
}

// The copy as written, on one line: `static_x.copy_(x)`, `static_x[:] = x`.
std::string copyText(const FileModel& file, const Event& copy) {
  const std::string& text = file.source->text();
  if (copy.range.end <= text.size() && copy.range.end > copy.range.begin) {
    std::string written = text.substr(copy.range.begin, copy.range.end - copy.range.begin);
    if (written.size() <= 80 && written.find('\n') == std::string::npos) return written;
  }
  // Over several lines: the call and where it copies to.
  if (file.language == Language::kCuda && !copy.args.empty()) {
    return copy.api + "(" + copy.args[0].text + ", ...)";
  }
  return copy.text;
}

// Another capture into the same graph object (`self.graph` captured by two methods, two
// captures into one local): a replay of it may run either graph, so neither's size is known.
// Locals of the same name in different functions are different objects.
bool sharesItsGraph(const FileModel& file, std::size_t r) {
  const CaptureRegion& region = file.regions[r];
  if (region.handle.empty()) return false;
  for (std::size_t o = 0; o < file.regions.size(); ++o) {
    const CaptureRegion& other = file.regions[o];
    if (o == r || other.handle != region.handle) continue;
    if (other.function == region.function || region.handle.find('.') != std::string::npos) {
      return true;
    }
  }
  return false;
}

class InputCopiesOutweighGraphCheck final : public Check {
 public:
  std::string_view id() const override { return "GS602"; }

  void checkFile(const FileModel& file, const ProgramModel& program,
                 DiagnosticSink& sink) const override {
    if (file.regions.empty()) return;
    CaptureFlow flow(file);
    for (std::size_t r = 0; r < file.regions.size(); ++r) {
      const CaptureRegion& region = file.regions[r];
      if (region.dynamo_traced || region.whole_function) continue;
      if (flow.replays(r).empty() || flow.inputs(r).empty() || sharesItsGraph(file, r)) continue;
      std::optional<CapturedWork> work;
      for (const CaptureFlow::Site& replay : flow.replays(r)) {
        const Event* copy = firstCopyBefore(flow, r, replay);
        if (copy == nullptr) continue;
        // The walk last: most replays have no copy before them.
        if (!work) work = capturedWork(program, file, r);
        if (work->unknown || work->ops.empty() || work->ops.size() > kMaxOps) break;
        report(file, region, *work, *copy, *replay.event, sink);
      }
    }
  }

 private:
  // The first copy into the region's inputs that runs before this replay each time it does:
  // after the capture, in the same iteration of the replay's loop, with no replay in between.
  static const Event* firstCopyBefore(const CaptureFlow& flow, std::size_t r,
                                      const CaptureFlow::Site& replay) {
    const FunctionModel& function = *replay.function;
    const std::uint32_t at = replay.event->range.begin;
    const SourceRange* loop = CaptureFlow::commonLoop(function, at, at);
    const Event* first = nullptr;
    for (const Event& event : function.events) {
      if (&event == replay.event || event.range.begin >= at) break;
      if (event.kind == EventKind::kReplay) first = nullptr;  // copies for an earlier replay
      if (first != nullptr || filledInput(event, flow.inputs(r)).empty()) continue;
      if (!flow.afterCapture(r, function, event.range.begin)) continue;
      if (loop != nullptr && !CaptureFlow::contains(*loop, event.range.begin)) continue;
      first = &event;
    }
    return first;
  }

  static void report(const FileModel& file, const CaptureRegion& region, const CapturedWork& work,
                     const Event& copy, const Event& replay, DiagnosticSink& sink) {
    const std::size_t ops = work.ops.size();
    const std::string holds = "only " + std::to_string(ops) +
                              (ops == 1 ? " operation (" : " operations (") + operationsText(work) +
                              ")";
    const bool cuda = file.language == Language::kCuda;
    std::string message = "`" + copyText(file, copy) + "` " +
                          (cuda ? "copies from the host into" : "fills") +
                          " the graph's static input before every " + (cuda ? "launch" : "replay") +
                          ", but the graph holds " + holds +
                          ": each copy is a launch of its own, so the replay saves no launch and "
                          "the copies can take longer than the graph";
    std::vector<RelatedLocation> related;
    related.push_back({file.source, region.site, "captured here: the graph holds " + holds});
    related.push_back({file.source, replay.range, "replayed here"});
    sink.reportAt(file.source, copy.range, std::move(message), std::move(related));
  }
};

}  // namespace

std::unique_ptr<Check> makeInputCopiesOutweighGraphCheck() {
  return std::make_unique<InputCopiesOutweighGraphCheck>();
}

}  // namespace graphsafe
