// GS202 freed-static-input: a tensor a capture region reads loses its last reference while the
// graph lives on. Three shapes: a helper's local that the helper does not return or store with
// the graph, `del x` before a replay, and `x = None` (any non-tensor) before a replay. Only
// tensors allocated right where the name is bound count (a factory or an arithmetic result),
// and only names that never go anywhere else: another reference keeps the block alive.
#include <algorithm>
#include <string>

#include "analyzer/engine/capture_flow.h"
#include "analyzer/engine/check.h"
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
    for (std::size_t r = 0; r < file.regions.size(); ++r) {
      const CaptureRegion& region = file.regions[r];
      const FunctionModel* home = flow.home(r);
      if (region.dynamo_traced || region.whole_function || home == nullptr) continue;
      if (file.language == Language::kCuda) {
        // cudaFree frees whatever else refers to the block: no lifetime question to ask.
        for (const RegionName& input : flow.inputs(r)) checkRelease(flow, r, *home, input, sink);
        continue;
      }
      for (const RegionName& input : flow.inputs(r)) {
        if (input.name.find('.') != std::string::npos || input.value.isKnownHost()) continue;
        if (isParameter(*home, input.name)) continue;
        if (!freshBeforeCapture(*home, flow.span(r), input.name)) continue;
        if (escapes(program, file, *home, input.name)) continue;
        if (!home->is_module_level) checkHelperReturn(flow, r, *home, input, sink);
        checkRelease(flow, r, *home, input, sink);
      }
    }
  }

 private:
  // The name's last binding before the capture allocated a new tensor.
  static bool freshBeforeCapture(const FunctionModel& home, const SourceRange& capture,
                                 const std::string& name) {
    const Event* last = nullptr;
    for (const Event& event : home.events) {
      if (event.range.begin >= capture.begin) break;
      if (event.kind == EventKind::kBind && event.target == name) last = &event;
    }
    return last != nullptr && (last->flags & kFlagFreshTensor) != 0;
  }

  // Could another reference to the tensor exist: the name stored, returned, yielded, aliased,
  // bound to an attribute, or passed to a function of the program (which may keep it)?
  static bool escapes(const ProgramModel& program, const FileModel& file,
                      const FunctionModel& home, const std::string& name) {
    for (const Event& event : home.events) {
      switch (event.kind) {
        case EventKind::kStore:
          if (event.source == name) return true;
          break;
        case EventKind::kBind:
          if (event.source == name && event.target != name) return true;
          break;
        case EventKind::kCall:
          // A call that reaches no code of the program (a library module, a callable the
          // model cannot type) is not taken to keep it, unless it builds a container of its
          // arguments (`dict(input_ids=input_ids)`).
          if (event.callee == kNoFunction && event.callee_qualified.empty() &&
              !program.resolveCall(file, home, event) && !buildsContainer(file, event)) {
            break;
          }
          for (const Value& argument : event.args) {
            if (argument.text == name) return true;
          }
          for (const KeywordArg& keyword : event.keywords) {
            if (keyword.value.text == name) return true;
          }
          break;
        default:
          break;
      }
    }
    return false;
  }

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
    std::vector<RelatedLocation> related;
    related.push_back(
        {file.source, region.site, "the graph captures `" + input.name + "`'s address here"});
    related.push_back({file.source, input.range, "read under capture here"});
    sink.reportAt(file.source, at, std::move(message), std::move(related));
  }

  // `del x` or `x = None` while the graph is still replayed afterwards.
  static void checkRelease(const CaptureFlow& flow, std::size_t r, const FunctionModel& home,
                           const RegionName& input, DiagnosticSink& sink) {
    const FileModel& file = flow.file();
    const CaptureRegion& region = file.regions[r];
    for (const Event& event : home.events) {
      bool freed = event.kind == EventKind::kFree && flow.target(event) == input.name;
      bool released = event.kind == EventKind::kBind && flow.target(event) == input.name &&
                      event.subject.isKnownHost() && file.language == Language::kPython;
      if (!freed && !released) continue;
      if (!flow.afterCapture(r, home, event.range.begin)) continue;
      const CaptureFlow::Site* replay = flow.replayAfter(r, home, event.range.begin);
      if (replay == nullptr) continue;
      std::string what =
          event.text.empty() ? "freeing `" + input.name + "`" : "`" + event.text + "`";
      std::string drops = file.language == Language::kCuda
                              ? " frees `" + input.name + "`"
                              : " drops the last reference to `" + input.name + "`";
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
