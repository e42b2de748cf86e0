// GS202 freed-static-input: a tensor a capture region reads loses its last reference while the
// graph lives on. Three shapes: a helper's local that the helper does not return or store with
// the graph, `del x` before a replay, and `x = None` (any non-tensor) before a replay. Only
// tensors allocated right where the name is bound count (a factory or an arithmetic result),
// and only names that never go anywhere else: another reference keeps the block alive.
#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analyzer/engine/check.h"
#include "analyzer/program/capture_flow.h"
#include "analyzer/program/program_model.h"

namespace graphsafe {

namespace {

bool isParameter(const FunctionModel& function, const std::string& name) {
  for (const Parameter& parameter : function.params) {
    if (parameter.name == name) return true;
  }
  return false;
}

// Is the root of `path` a variable the function assigns (not a parameter, not a global)?
bool isLocalVariable(const FunctionModel& function, const std::string& path) {
  std::string root = path.substr(0, path.find('.'));
  if (root == "self" || isParameter(function, root)) return false;
  for (const Event& event : function.events) {
    if (event.kind == EventKind::kBind && event.target == root) return true;
  }
  return false;
}

class FreedStaticInputCheck final : public Check {
 public:
  std::string_view id() const override { return "GS202"; }

  void checkFile(const FileModel& file, const ProgramModel& program,
                 DiagnosticSink& sink) const override {
    if (file.regions.empty()) return;
    CaptureFlow flow(file);
    // Each region's inputs, then each home function's events once for all of them: a module
    // with thousands of regions is read once, not once per region.
    std::unordered_map<const FunctionModel*, HomeFacts> facts;
    std::vector<std::vector<const RegionName*>> candidates(file.regions.size());
    for (std::size_t r = 0; r < file.regions.size(); ++r) {
      const CaptureRegion& region = file.regions[r];
      const FunctionModel* home = flow.home(r);
      if (region.dynamo_traced || region.whole_function || home == nullptr) continue;
      for (const RegionName& input : flow.inputs(r)) {
        if (file.language == Language::kPython) {
          if (input.name.find('.') != std::string::npos || input.value.isKnownHost()) continue;
          if (isParameter(*home, input.name)) continue;
        }
        candidates[r].push_back(&input);
        facts[home].names.insert(input.name);
      }
    }
    for (auto& [home, home_facts] : facts) home_facts.read(program, flow, *home);
    for (std::size_t r = 0; r < file.regions.size(); ++r) {
      if (candidates[r].empty()) continue;
      const FunctionModel& home = *flow.home(r);
      const HomeFacts& known = facts.at(&home);
      for (const RegionName* input : candidates[r]) {
        // cudaFree frees whatever else refers to the block: no lifetime question to ask.
        if (file.language == Language::kPython) {
          if (!known.freshBefore(flow.span(r).begin, input->name)) continue;
          if (known.escaping.contains(input->name)) continue;
          if (!home.is_module_level) checkHelperReturn(flow, r, home, *input, sink);
        }
        checkRelease(flow, r, home, known, *input, sink);
      }
    }
    if (file.language == Language::kCuda) checkTemporaries(flow, sink);
  }

 private:
  // What one function's events say about the names its regions read.
  struct HomeFacts {
    std::unordered_set<std::string> names;  // the regions' inputs
    // Binds of each name, in order (event.target): which allocation it holds at a capture.
    std::unordered_map<std::string, std::vector<const Event*>> binds;
    // Frees and binds of each name as the flow names their target: what may release it.
    std::unordered_map<std::string, std::vector<const Event*>> releases;
    // Names another reference may hold: stored, returned, yielded, aliased, bound to an
    // attribute, or passed to a function of the program (which may keep it).
    std::unordered_set<std::string> escaping;

    void read(const ProgramModel& program, const CaptureFlow& flow, const FunctionModel& home) {
      const FileModel& file = flow.file();
      for (const Event& event : home.events) {
        if (event.kind == EventKind::kBind || event.kind == EventKind::kFree) {
          std::string released(flow.target(event));
          if (names.contains(released)) releases[released].push_back(&event);
        }
        switch (event.kind) {
          case EventKind::kStore:
            if (names.contains(event.source)) escaping.insert(event.source);
            break;
          case EventKind::kBind:
            if (names.contains(event.target)) binds[event.target].push_back(&event);
            if (event.source != event.target && names.contains(event.source)) {
              escaping.insert(event.source);
            }
            break;
          case EventKind::kCall:
            noteCallArguments(program, file, home, event);
            break;
          default:
            break;
        }
      }
    }

    // A call that reaches no code of the program (a library module, a callable the model
    // cannot type) is not taken to keep its arguments, unless it builds a container of them
    // (`dict(input_ids=input_ids)`). The call is resolved only when it passes a region input.
    void noteCallArguments(const ProgramModel& program, const FileModel& file,
                           const FunctionModel& home, const Event& event) {
      std::vector<const std::string*> passed;
      for (const Value& argument : event.args) {
        if (names.contains(argument.text) && !escaping.contains(argument.text)) {
          passed.push_back(&argument.text);
        }
      }
      for (const KeywordArg& keyword : event.keywords) {
        if (names.contains(keyword.value.text) && !escaping.contains(keyword.value.text)) {
          passed.push_back(&keyword.value.text);
        }
      }
      if (passed.empty()) return;
      if (event.callee == kNoFunction && event.callee_qualified.empty() &&
          !program.resolveCall(file, home, event) && !buildsContainer(file, event)) {
        return;
      }
      for (const std::string* name : passed) escaping.insert(*name);
    }

    // Did the name's last binding before `offset` allocate a new tensor?
    bool freshBefore(std::uint32_t offset, const std::string& name) const {
      auto it = binds.find(name);
      if (it == binds.end()) return false;
      const Event* last = nullptr;
      for (const Event* event : it->second) {
        if (event->range.begin >= offset) break;
        last = event;
      }
      return last != nullptr && (last->flags & kFlagFreshTensor) != 0;
    }
  };

  static bool buildsContainer(const FileModel& file, const Event& event) {
    if (event.call == kNoRef || event.call >= file.references.size()) return false;
    const Reference& call = file.references[event.call];
    if (call.operands.empty() || call.operands[0] >= file.references.size()) return false;
    const Reference& callee = file.references[call.operands[0]];
    if (callee.kind != Reference::Kind::kGlobal) return false;
    static constexpr std::string_view kContainers[] = {
        "builtins.dict", "builtins.list", "builtins.tuple", "builtins.set", "builtins.frozenset",
        "collections.OrderedDict", "collections.deque", "collections.namedtuple",
        "types.SimpleNamespace"};
    return std::find(std::begin(kContainers), std::end(kContainers), callee.name) !=
           std::end(kContainers);
  }

  // Where the graph leaves the helper: returned, or stored in an attribute, a global or a
  // container that outlives the call. Null when it does not (then both die together).
  static const Event* graphKept(const CaptureFlow& flow, std::size_t r, const FunctionModel& home) {
    const auto& handles = flow.handles(r);
    auto isHandle = [&](const std::string& path) {
      return std::find(handles.begin(), handles.end(), path) != handles.end();
    };
    for (const Event& event : home.events) {
      if (event.range.begin < flow.span(r).end) continue;
      if (event.source.empty() || !isHandle(event.source)) continue;
      if (event.kind == EventKind::kStore) return &event;
      // Bound to an attribute of `self`, of a parameter or of a global: it outlives the call.
      if (event.kind == EventKind::kBind && !isLocalVariable(home, event.target)) return &event;
    }
    return nullptr;
  }

  // Where the graph took the input's address and where the captured work reads it.
  static std::vector<RelatedLocation> addressCapturedHere(const FileModel& file,
                                                          const CaptureRegion& region,
                                                          const RegionName& input) {
    return {{file.source, region.site, "the graph captures `" + input.name + "`'s address here"},
            {file.source, input.range, "read under capture here"}};
  }

  static void checkHelperReturn(const CaptureFlow& flow, std::size_t r, const FunctionModel& home,
                                const RegionName& input, DiagnosticSink& sink) {
    const CaptureRegion& region = flow.file().regions[r];
    const Event* kept = graphKept(flow, r, home);
    SourceRange at = region.site;
    std::string where;
    if (kept != nullptr) {
      at = kept->range;
      where = kept->api == "return" ? "the graph is returned here without it"
                                    : "the graph is kept here without it";
    } else if (region.handle.starts_with("self.")) {
      where = "the graph lives on in `" + region.handle + "` without it";
    } else {
      return;  // the graph dies with the function
    }
    const FileModel& file = flow.file();
    std::string message = "`" + input.name + "` is read by the CUDA graph captured at line " +
                          lineOf(region.site) + ", but it is a tensor local to `" + home.name +
                          "` and " + where + ": when `" + home.name +
                          "` returns, its memory goes back to the allocator and every replay "
                          "reads whatever is allocated there next";
    std::vector<RelatedLocation> related = addressCapturedHere(file, region, input);
    sink.reportAt(file.source, at, std::move(message), std::move(related));
  }

  // C++: a local that owns the host memory a captured copy reads goes out of scope at the end
  // of the function, while the executable graph is kept (a member, an out parameter, returned).
  static void checkKeptPastScope(const CaptureFlow& flow, std::size_t r, const FunctionModel& home,
                                 const RegionName& input, DiagnosticSink& sink) {
    const Event* kept = graphKept(flow, r, home);
    if (kept == nullptr) return;
    const FileModel& file = flow.file();
    const CaptureRegion& region = file.regions[r];
    std::string where = kept->api == "return" ? "the executable graph is returned here"
                                              : "the executable graph is kept here";
    std::string message = "`" + input.name + "` is read by the CUDA graph captured at line " +
                          lineOf(region.site) + ", but it is a local of `" + home.name +
                          "` that owns its host memory, and " + where + ": when `" + home.name +
                          "` returns, the memory is freed and every launch copies from whatever "
                          "is allocated there next";
    std::vector<RelatedLocation> related = addressCapturedHere(file, region, input);
    sink.reportAt(file.source, kept->range, std::move(message), std::move(related));
  }

  // C++: a temporary container passed to a function of the file that captures a copy from the
  // parameter's memory into a graph it keeps (`r.capture(std::vector<float>(16))`): the
  // temporary is freed at the end of the statement, the graph copies from its memory at every
  // launch.
  static void checkTemporaries(const CaptureFlow& flow, DiagnosticSink& sink) {
    const FileModel& file = flow.file();
    for (const FunctionModel& caller : file.functions) {
      for (std::size_t e = 0; e < caller.events.size(); ++e) {
        const Event& freed = caller.events[e];
        if (freed.kind != EventKind::kFree || (freed.flags & kFlagScopeExit) == 0 ||
            freed.api != "temporary") {
          continue;
        }
        // The call it is an argument of: the latest one before it whose range holds it.
        for (std::size_t c = e; c-- > 0;) {
          const Event& call = caller.events[c];
          if (call.kind != EventKind::kCall || call.range.begin > freed.range.begin ||
              freed.range.end > call.range.end) {
            continue;
          }
          reportTemporary(flow, call, freed, sink);
          break;
        }
      }
    }
  }

  static void reportTemporary(const CaptureFlow& flow, const Event& call, const Event& freed,
                              DiagnosticSink& sink) {
    const FileModel& file = flow.file();
    if (call.callee == kNoFunction || call.callee >= file.functions.size()) return;
    const FunctionModel& callee = file.functions[call.callee];
    std::size_t index = 0;
    while (index < call.args.size() && call.args[index].text != freed.text) ++index;
    if (index >= call.args.size() || index >= callee.params.size()) return;
    const std::string& param = callee.params[index].name;
    for (std::size_t r = 0; r < file.regions.size(); ++r) {
      if (flow.home(r) != &callee) continue;
      const RegionName* input = nullptr;
      for (const RegionName& name : flow.inputs(r)) {
        if (name.name == param) input = &name;
      }
      const Event* kept = input != nullptr ? graphKept(flow, r, callee) : nullptr;
      if (kept == nullptr) continue;
      const CaptureRegion& region = file.regions[r];
      std::string message = "the temporary `" + freed.text + "` is freed at the end of this " +
                            "statement, but `" + callee.name + "` captures a copy from its " +
                            "memory (parameter `" + param + "`) into a CUDA graph it keeps " +
                            "(line " + lineOf(kept->range) +
                            "): every launch copies from whatever is allocated there next";
      std::vector<RelatedLocation> related;
      related.push_back(
          {file.source, region.site, "the graph captures `" + param + "`'s address here"});
      related.push_back({file.source, input->range, "read under capture here"});
      related.push_back({file.source, kept->range, "the executable graph is kept here"});
      sink.reportAt(file.source, freed.range, std::move(message), std::move(related));
      return;
    }
  }

  // `del x` or `x = None` while the graph is still replayed afterwards.
  static void checkRelease(const CaptureFlow& flow, std::size_t r, const FunctionModel& home,
                           const HomeFacts& known, const RegionName& input, DiagnosticSink& sink) {
    const FileModel& file = flow.file();
    const CaptureRegion& region = file.regions[r];
    auto found = known.releases.find(input.name);
    if (found == known.releases.end()) return;
    for (const Event* releasing : found->second) {
      const Event& event = *releasing;
      bool freed = event.kind == EventKind::kFree;
      bool released = event.kind == EventKind::kBind && event.subject.isKnownHost() &&
                      file.language == Language::kPython;
      if (!freed && !released) continue;
      if (!flow.afterCapture(r, home, event.range.begin)) continue;
      const bool scope_exit = (event.flags & kFlagScopeExit) != 0;
      const CaptureFlow::Site* replay = flow.replayAfter(r, home, event.range.begin);
      if (replay == nullptr) {
        if (scope_exit) checkKeptPastScope(flow, r, home, input, sink);
        continue;
      }
      std::string what =
          event.text.empty() ? "freeing `" + input.name + "`" : "`" + event.text + "`";
      std::string drops = file.language == Language::kCuda
                              ? " frees `" + input.name + "`"
                              : " drops the last reference to `" + input.name + "`";
      if (scope_exit) {
        what = "the end of `" + input.name + "`'s block";
        drops = " frees the host memory of `" + input.name + "`";
      } else if (event.api.starts_with("std::")) {
        drops = " moves `" + input.name + "`'s elements to a new block and frees the old one";
      }
      std::string message = what + drops + ", which the CUDA graph captured at line " +
                            lineOf(region.site) + " reads, and the graph is replayed after it " +
                            "(line " + lineOf(replay->event->range) +
                            "): its memory goes back to the allocator and the replay reads "
                            "whatever is allocated there next";
      std::vector<RelatedLocation> related;
      related.push_back(
          {file.source, region.site, "the graph captures `" + input.name + "`'s address here"});
      related.push_back({file.source, replay->event->range, "replayed here"});
      sink.reportAt(file.source, event.range, std::move(message), std::move(related));
    }
  }
};

}  // namespace

std::unique_ptr<Check> makeFreedStaticInputCheck() {
  return std::make_unique<FreedStaticInputCheck>();
}

}  // namespace graphsafe
