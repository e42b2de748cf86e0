// GS403 no-warmup: a capture whose work was never run eagerly before it. The first run of a
// workload creates library handles, workspaces and optimizer state; inside a capture that fails
// or is recorded as if it were part of every step. A heuristic (a warning), and a conservative
// one. The work that needs a warm-up is what does such setup: library ops that need a handle
// (matrix products, convolutions), calls of torch.nn modules, an optimizer's step, and calls of
// the program's functions that reach one of those. Any of it run before the capture, outside any
// capture (in the capturing function, in a loop around the capture, or inside a function called
// before it), counts as the warm-up, and so does a call that is handed a captured object or
// whose code is not visible. The capture is judged only where no warm-up can hide: module-level
// code, or a function that builds what it captures itself.
#include <cctype>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/engine/check.h"
#include "analyzer/program/capture_flow.h"
#include "analyzer/program/program_model.h"

namespace graphsafe {

namespace {

constexpr int kMaxCallDepth = 3;

// Library ops whose first call creates a cuBLAS or cuDNN handle or runs an autotuner.
bool needsLibraryHandle(std::string_view api) {
  constexpr std::string_view kOps =
      " matmul __matmul__ mm bmm addmm addbmm baddbmm mv linear einsum lstm gru rnn conv1d conv2d"
      " conv3d conv_transpose1d conv_transpose2d conv_transpose3d scaled_dot_product_attention ";
  std::string name = " " + std::string(api.substr(api.rfind('.') + 1)) + " ";
  return kOps.find(name) != std::string_view::npos;
}

// One-time setup an event's first run does, as a key that any eager run of the same kind
// shares; "" for none.
std::string setupKey(const Event& event) {
  // A torch.nn module called (its code is not analyzed): cuBLAS or cuDNN behind its layers.
  if (event.api == "torch.nn.Module.__call__" &&
      (event.kind == EventKind::kTensorOp || event.kind == EventKind::kCall)) {
    return "module call";
  }
  if (event.kind == EventKind::kTensorOp) {
    return needsLibraryHandle(event.api) ? "library op" : "";
  }
  if (event.kind != EventKind::kCall || (event.flags & kFlagRunsOnce) != 0) return "";
  if (event.api == "torch.optim.Optimizer.step") return "step of " + event.target;
  return "";
}

// The function of the program a call runs, keyed by identity however the call spells it.
std::string callKey(const FunctionRef& callee) {
  return "call " + std::to_string(reinterpret_cast<std::uintptr_t>(callee.function));
}

bool isProgramCall(const Event& event) {
  return event.kind == EventKind::kCall && (event.flags & kFlagRunsOnce) == 0 &&
         (event.callee != kNoFunction || !event.callee_qualified.empty());
}

// The setup keys a function's eager code reaches, calls followed a few levels deep.
void collectSetup(const FunctionRef& function, const ProgramModel& program, int depth,
                  std::set<const FunctionModel*>& seen, std::set<std::string>& keys) {
  if (depth > kMaxCallDepth || !seen.insert(function.function).second) return;
  for (const Event& event : function.function->events) {
    if (event.region >= 0) continue;
    if (std::string key = setupKey(event); !key.empty()) keys.insert(std::move(key));
    if (!isProgramCall(event)) continue;
    if (FunctionRef callee = program.resolveCall(*function.file, *function.function, event)) {
      collectSetup(callee, program, depth + 1, seen, keys);
    }
  }
}

// The first name of a call's callee: "model" in "model(x)", "self" in "self.step(x)".
std::string rootOf(const std::string& text) {
  std::size_t end = 0;
  while (end < text.size() &&
         (std::isalnum(static_cast<unsigned char>(text[end])) != 0 || text[end] == '_')) {
    ++end;
  }
  return text.substr(0, end);
}

class NoWarmupCheck final : public Check {
 public:
  std::string_view id() const override { return "GS403"; }

  void checkFile(const FileModel& file, const ProgramModel& program,
                 DiagnosticSink& sink) const override {
    if (file.language != Language::kPython || file.regions.empty()) return;
    CaptureFlow flow(file);
    // Each region's own events, gathered in one pass: a file with many captures stays linear.
    std::vector<std::vector<std::pair<const FunctionModel*, const Event*>>> region_events(
        file.regions.size());
    for (const FunctionModel& function : file.functions) {
      for (const Event& event : function.events) {
        if (event.region >= 0 && static_cast<std::size_t>(event.region) < region_events.size()) {
          region_events[static_cast<std::size_t>(event.region)].emplace_back(&function, &event);
        }
      }
    }
    for (std::size_t r = 0; r < file.regions.size(); ++r) {
      const CaptureRegion& region = file.regions[r];
      if (region.kind != RegionKind::kGraphContext && region.kind != RegionKind::kCaptureBeginEnd) {
        continue;
      }
      const FunctionModel* home = flow.home(r);
      if (home == nullptr || region.dynamo_traced) continue;
      std::set<std::string> wanted;
      std::set<std::string> objects;  // what the captured calls are made on: "model", "opt"
      const Event* first = nullptr;
      bool judged = true;
      for (const auto& [function, in_region] : region_events[r]) {
        if (function != home) continue;
        const Event& event = *in_region;
        // What this work sets up on its first run: its own kind, or what the function it calls
        // reaches (a call of code that is not visible is not judged).
        std::set<std::string> keys;
        if (std::string key = setupKey(event); !key.empty()) {
          keys.insert(std::move(key));
        } else if (isProgramCall(event)) {
          FunctionRef callee = program.resolveCall(file, *home, event);
          if (!callee) continue;
          std::set<const FunctionModel*> seen;
          collectSetup(callee, program, 0, seen, keys);
          if (!keys.empty()) keys.insert(callKey(callee));
        }
        if (keys.empty()) continue;
        // In a function, only work on objects it builds itself: a caller may have run the rest.
        if (!home->is_module_level && !builtBefore(*home, event, flow.span(r).begin)) {
          judged = false;
        }
        if (first == nullptr) first = &event;
        wanted.insert(keys.begin(), keys.end());
        if (std::string root = rootOf(event.text);
            event.kind == EventKind::kCall && !root.empty()) {
          objects.insert(std::move(root));
        }
      }
      if (!judged || wanted.empty()) continue;
      if (warmedUp(file, program, *home, flow.span(r), wanted, objects)) continue;
      report(file, region, *first, sink);
    }
  }

 private:
  // A call on a local that the function bound to a new object before the capture, and that is
  // not one of its parameters.
  static bool builtBefore(const FunctionModel& home, const Event& event, std::uint32_t capture) {
    if (event.kind != EventKind::kCall) return false;
    std::string root = rootOf(event.text);
    if (root.empty() || root == "self") return false;
    for (const Parameter& parameter : home.params) {
      if (parameter.name == root) return false;
    }
    for (const Event& bind : home.events) {
      if (bind.range.begin >= capture) break;
      if (bind.kind == EventKind::kBind && bind.target == root && bind.source.empty()) {
        return true;
      }
    }
    return false;
  }

  // Is any of the wanted work run eagerly before the capture: earlier in `home`, anywhere in a
  // loop of `home` around the capture, or in a function called there? A call whose code is not
  // visible may be the warm-up, and so may a call that is handed one of the captured objects
  // (`run_steps(model, x, 3)`).
  static bool warmedUp(const FileModel& file, const ProgramModel& program,
                       const FunctionModel& home, const SourceRange& span,
                       const std::set<std::string>& wanted, const std::set<std::string>& objects) {
    std::set<const FunctionModel*> seen{&home};
    for (const Event& event : home.events) {
      if (event.region >= 0) continue;
      bool before = event.range.begin < span.begin;
      bool same_loop = false;
      for (const SourceRange& loop : home.loops) {
        same_loop = same_loop || (CaptureFlow::contains(loop, span.begin) &&
                                  CaptureFlow::contains(loop, event.range.begin));
      }
      if (!before && !same_loop) continue;
      if (handsOver(event, objects)) return true;
      if (runsWanted(file, home, program, event, wanted, 0, seen)) return true;
    }
    return false;
  }

  static bool handsOver(const Event& event, const std::set<std::string>& objects) {
    if (event.kind != EventKind::kCall) return false;
    for (const Value& argument : event.args) {
      if (objects.contains(argument.text)) return true;
    }
    for (const KeywordArg& keyword : event.keywords) {
      if (objects.contains(keyword.value.text)) return true;
    }
    return false;
  }

  static bool runsWanted(const FileModel& file, const FunctionModel& caller,
                         const ProgramModel& program, const Event& event,
                         const std::set<std::string>& wanted, int depth,
                         std::set<const FunctionModel*>& seen) {
    if (std::string key = setupKey(event); !key.empty() && wanted.contains(key)) return true;
    if (!isProgramCall(event)) return false;
    FunctionRef callee = program.resolveCall(file, caller, event);
    if (!callee) return true;  // code not visible: it may be the warm-up
    if (wanted.contains(callKey(callee)) || depth >= kMaxCallDepth) return true;
    if (!seen.insert(callee.function).second) return false;
    for (const Event& inner : callee.function->events) {
      if (inner.region >= 0) continue;
      if (runsWanted(*callee.file, *callee.function, program, inner, wanted, depth + 1, seen)) {
        return true;
      }
    }
    return false;
  }

  static void report(const FileModel& file, const CaptureRegion& region, const Event& work,
                     DiagnosticSink& sink) {
    std::string message = "nothing this capture runs was run eagerly before it: `" + work.text +
                          "` (line " + std::to_string(work.range.start.line + 1) +
                          ") runs for the first time under capture, where the one-time setup of "
                          "a first run (library handles, workspaces, optimizer state) fails "
                          "capture or is recorded into every replay";
    std::vector<RelatedLocation> related;
    related.push_back({file.source, work.range, "first run here, under capture"});
    sink.reportAt(file.source, region.site, std::move(message), std::move(related));
  }
};

}  // namespace

std::unique_ptr<Check> makeNoWarmupCheck() {
  return std::make_unique<NoWarmupCheck>();
}

}  // namespace graphsafe
