// GS601 fragmented-graph: a function compiled with CUDA graphs (torch.compile with
// mode="reduce-overhead" or "max-autotune", triton.cudagraphs, backend="cudagraphs") that cannot
// become one graph per call. Each Dynamo graph break (a tensor's value read on the host, a branch
// on a tensor, an operation whose output size depends on the data) ends one graph and starts the
// next, with a return to Python in between; and Inductor does not capture a graph that holds CPU
// tensors or mutates its inputs. The check walks the compiled function and what it calls, counts
// the breaks, and names the reasons Inductor would give ("skipping cudagraphs due to ...").
// One finding per compiled function, at the compile site; each cause is a related location.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "analyzer/engine/check.h"
#include "analyzer/engine/region_walker.h"
#include "analyzer/program/program_model.h"
#include "rules/frozen_choice/run_once_path.h"
#include "rules/refused_by_capture/device_read.h"

namespace graphsafe {

namespace {

constexpr std::size_t kNamedCauses = 3;

struct Cause {
  const FileModel* file = nullptr;
  const Event* event = nullptr;
  std::string what;  // "`.item()` reads a tensor's value on the host"
};

// `x.add_(y)` rather than `.add_(y)`: method events keep only the call's text.
std::string shown(const Event& event) {
  if (!event.text.starts_with(".")) return event.text;
  if (!event.target.empty()) return event.target + event.text;
  return event.subject.text + event.text;
}

// Dynamo breaks the graph where Python needs a tensor's value: .item()/.tolist(), an implicit
// read (int(t), print(t), an f-string, range(t)), a data-dependent output size, a branch.
bool breaksGraph(const RegionContext& context, const Event& event, std::string& what) {
  if (event.kind == EventKind::kBranch) {
    if (event.api == "assert" || event.api == "guard") return false;
    if (!context.resolve(event.subject).isTensor() || reachedThroughCache(context)) return false;
    what = "the branch on the tensor `" + event.text + "`";
    return true;
  }
  if (event.kind != EventKind::kHostSync || !readsDeviceValue(context, event)) return false;
  if ((event.flags & kFlagDataDependent) != 0) {
    what = "`" + shown(event) + "`, whose output size depends on the data";
    return true;
  }
  if (event.api == "torch.Tensor.item" || event.api == "torch.Tensor.tolist" ||
      (event.flags & kFlagImplicit) != 0) {
    what = "`" + shown(event) + "`, which reads a tensor's value on the host";
    return true;
  }
  return false;
}

// Inductor's capture-eligibility scan refuses a graph with a CPU tensor in it.
bool putsTensorOnCpu(const RegionContext& context, const Event& event, std::string& what) {
  if (reachedThroughCache(context) || (event.flags & kFlagRunsOnce) != 0) return false;
  if (event.kind == EventKind::kTensorOp && (event.flags & kFlagHostFactory) != 0) {
    what = "`" + event.text +
           "` makes a tensor on the CPU (\"skipping cudagraphs due to cpu "
           "device\")";
    return true;
  }
  if (event.kind == EventKind::kHostSync && event.api == "torch.Tensor.cpu" &&
      !context.resolve(event.subject).isKnownHost()) {
    what = "`" + shown(event) +
           "` copies a tensor to the CPU inside the graph (\"skipping "
           "cudagraphs due to cpu device\")";
    return true;
  }
  return false;
}

// The compiled function updates one of its own tensor arguments in place (not a module's
// parameter or buffer, which Inductor treats as static): "skipping cudagraphs due to mutated
// inputs". A parameter the function binds again before the update is a local, not the input.
bool mutatesInput(const RegionContext& context, const Event& event, std::string& what) {
  if (event.kind != EventKind::kInPlaceUpdate || !context.path.empty()) return false;
  const FunctionModel& function = *context.function;
  const std::size_t first = function.has_self ? 1 : 0;
  for (std::size_t i = first; i < function.params.size(); ++i) {
    const Parameter& param = function.params[i];
    if (param.variadic || param.name != event.target) continue;
    for (const Event& earlier : function.events) {
      if (&earlier == &event) break;
      if (earlier.kind == EventKind::kBind && earlier.target == param.name) return false;
    }
    what = "`" + shown(event) + "` updates the input `" + param.name +
           "` in place (\"skipping cudagraphs due to mutated inputs\")";
    return true;
  }
  return false;
}

// `torch._dynamo.mark_static_address(t)` anywhere in the file: a mutated input may be one that
// Inductor was told is static.
bool marksStaticAddresses(const FileModel& file) {
  for (const Reference& reference : file.references) {
    if (reference.kind == Reference::Kind::kGlobal &&
        (reference.name == "torch._dynamo.mark_static_address" ||
         reference.name.ends_with(".mark_static_address"))) {
      return true;
    }
  }
  return false;
}

// Every call on the way from the compiled function reaches one function, in the frame the walk
// made it in (`frames`: each call event's). Behind a call that may run any of several (the
// compiled function handed objects of two classes), a cause may sit in one that never runs there.
bool reachedThroughOneTarget(const ProgramModel& program, const RegionContext& context,
                             const std::map<const Event*, program::FrameId>& frames) {
  for (const CallStep& step : context.path) {
    if (step.file == nullptr || step.caller == nullptr || step.call == nullptr) continue;
    const auto frame = frames.find(step.call);
    const program::FrameId caller =
        frame != frames.end() ? frame->second : program.plainFrame(*step.file, *step.caller);
    if (program.callTargets(caller, *step.file, *step.call).size() > 1) return false;
  }
  return true;
}

std::string listed(const FileModel& home, const std::vector<Cause>& causes) {
  std::string out;
  for (std::size_t i = 0; i < causes.size() && i < kNamedCauses; ++i) {
    if (i > 0) out += i + 1 == causes.size() || i + 1 == kNamedCauses ? " and " : ", ";
    const Cause& cause = causes[i];
    // A cause in another file names it; one in the compiled function's file, its line.
    const bool elsewhere = cause.file != &home;
    out += cause.what + " (" + (elsewhere ? cause.file->source->path() + ":" : "line ") +
           lineOf(cause.event->range) + ")";
  }
  if (causes.size() > kNamedCauses) {
    out += ", and " + std::to_string(causes.size() - kNamedCauses) + " more";
  }
  return out;
}

class FragmentedGraphCheck final : public Check {
 public:
  std::string_view id() const override { return "GS601"; }

  void checkFile(const FileModel& file, const ProgramModel& program,
                 DiagnosticSink& sink) const override {
    if (file.language != Language::kPython) return;
    bool static_marks = false;
    bool static_marks_known = false;
    for (std::size_t r = 0; r < file.regions.size(); ++r) {
      const CaptureRegion& region = file.regions[r];
      if (region.kind != RegionKind::kCompiled || !region.dynamo_traced) continue;
      std::vector<Cause> breaks;
      std::vector<Cause> skips;
      std::set<const Event*> seen;
      std::map<const Event*, program::FrameId> call_frames;
      RegionWalker(program).walk(file, r, [&](const RegionContext& context, const Event& event) {
        if (event.kind == EventKind::kCall) call_frames[&event] = context.frame;
        std::string what;
        if (!reachedThroughOneTarget(program, context, call_frames)) return;
        if (!region.full_graph && breaksGraph(context, event, what)) {
          if (seen.insert(&event).second) breaks.push_back({context.file, &event, what});
        } else if (putsTensorOnCpu(context, event, what) || mutatesInput(context, event, what)) {
          if (seen.insert(&event).second) skips.push_back({context.file, &event, what});
        }
      });
      if (!skips.empty() && !static_marks_known) {
        static_marks = marksStaticAddresses(file);
        static_marks_known = true;
      }
      if (static_marks) {
        std::erase_if(skips, [](const Cause& cause) {
          return cause.event->kind == EventKind::kInPlaceUpdate;
        });
      }
      if (breaks.empty() && skips.empty()) continue;
      report(file, region, breaks, skips, sink);
    }
  }

 private:
  static void report(const FileModel& file, const CaptureRegion& region,
                     const std::vector<Cause>& breaks, const std::vector<Cause>& skips,
                     DiagnosticSink& sink) {
    std::string message;
    if (!breaks.empty()) {
      const std::size_t graphs = breaks.size() + 1;
      message = "this function compiled with CUDA graphs is split into " + std::to_string(graphs) +
                " graphs per call (more where a break repeats in a " +
                "loop): Dynamo breaks it at " + listed(file, breaks) +
                ", and each break returns to Python and launches the next graph after a gap";
    }
    if (!skips.empty() && breaks.empty()) {
      message = "Inductor does not use CUDA graphs for this function compiled with them: " +
                listed(file, skips) + ", so its kernels are launched one by one on every call";
    } else if (!skips.empty()) {
      message += "; and Inductor does not use CUDA graphs where " + listed(file, skips) +
                 ", so those kernels are launched one by one on every call";
    }
    std::vector<RelatedLocation> related;
    for (const std::vector<Cause>* causes : {&breaks, &skips}) {
      for (const Cause& cause : *causes) {
        related.push_back(
            {cause.file->source, cause.event->range,
             (causes == &breaks ? "graph break: " : "CUDA graphs skipped: ") + cause.what});
      }
    }
    sink.reportAt(file.source, region.site, std::move(message), std::move(related));
  }
};

}  // namespace

std::unique_ptr<Check> makeFragmentedGraphCheck() {
  return std::make_unique<FragmentedGraphCheck>();
}

}  // namespace graphsafe
