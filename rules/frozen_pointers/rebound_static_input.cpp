// GS201 rebound-static-input: a name a capture region reads is bound to a new tensor after the
// capture and before a replay, so the graph keeps reading the old address. The question is one
// of order (captured, then rebound, then replayed, possibly in the next iteration of the replay
// loop), answered by CaptureFlow over the whole file. Across calls: a function that captures on
// its first call reading its own parameter by address (a StaticCapture-style wrapper) and
// replays on every later call, called in a loop with a tensor bound anew on each iteration, keeps
// reading the first call's tensor (the program model's replay facts say which functions do this).
#include <algorithm>
#include <cctype>
#include <set>
#include <string>

#include "analyzer/engine/check.h"
#include "analyzer/program/capture_flow.h"
#include "analyzer/program/program_model.h"

namespace graphsafe {

namespace {

bool isAttributePath(const std::string& name) {
  return name.starts_with("self.");
}

// The attribute a tensor operand reads (`self.norm_buf`, `runner.static_x`): its reference, or
// kNoRef when the operand is no attribute.
RefId attributeRead(const FileModel& file, const Value& operand) {
  const RefId ref = throughLocal(file.references, operand.ref);
  if (ref >= file.references.size()) return kNoRef;
  const Reference& reference = file.references[ref];
  return reference.kind == Reference::Kind::kAttribute && !reference.operands.empty() ? ref
                                                                                      : kNoRef;
}

// `self.t = self.t.to(dtype)`: the attribute bound to what it already holds (once the dtype
// matches, the same tensor), not to another buffer.
bool rebindsItself(const FileModel& file, const AttributeWrite& write) {
  RefId value = write.value;
  for (int step = 0; step < 4 && value < file.references.size(); ++step) {
    const Reference& reference = file.references[value];
    if (reference.kind == Reference::Kind::kAttribute) {
      return reference.name == write.name && !reference.operands.empty() &&
             throughLocal(file.references, reference.operands[0]) ==
                 throughLocal(file.references, write.object);
    }
    if (reference.kind != Reference::Kind::kCall || reference.operands.empty()) return false;
    const RefId callee = throughLocal(file.references, reference.operands[0]);
    if (callee >= file.references.size() ||
        file.references[callee].kind != Reference::Kind::kAttribute ||
        file.references[callee].operands.empty()) {
      return false;
    }
    value = file.references[callee].operands[0];  // the receiver of `x.to(...)`
  }
  return false;
}

// `graph, norm = self.graphs[n]`: the tensor unpacked from the same entry as the graph that
// replays next is the one that graph captured with it (a cache of graphs and their buffers).
bool fetchedWithTheGraph(const FileModel& file, const FunctionModel& function, const Event& bind,
                         const std::string& graph, const CaptureFlow& flow) {
  auto entryOf = [&](const Event& event) -> RefId {
    const RefId ref = throughLocal(file.references, event.subject.ref);
    if (ref >= file.references.size()) return kNoRef;
    const Reference& reference = file.references[ref];
    if (reference.kind != Reference::Kind::kElement || reference.operands.empty()) return kNoRef;
    return reference.operands[0];
  };
  const RefId entry = entryOf(bind);
  if (entry == kNoRef || graph.empty()) return false;
  for (const Event& other : function.events) {
    if (other.kind == EventKind::kBind && &other != &bind && flow.target(other) == graph &&
        entryOf(other) == entry) {
      return true;
    }
  }
  return false;
}

class ReboundStaticInputCheck final : public Check {
 public:
  std::string_view id() const override { return "GS201"; }

  // Across calls and files: captured code (the region's or any function it reaches) reads a
  // tensor through an attribute, and code on the region's replay cycle binds that attribute of
  // the same object to another tensor (`self.norm_buf = torch.empty(n)` when the number of
  // gradients changes, `runner.static_x = batch` in the training loop).
  void checkRegionEvent(const RegionContext& context, const Event& event,
                        DiagnosticSink& sink) const override {
    if (context.program == nullptr || context.file->language != Language::kPython ||
        context.traced()) {
      return;
    }
    auto consider = [&](const Value& operand) {
      const RefId read = attributeRead(*context.file, operand);
      if (read == kNoRef || !context.resolve(operand).isTensor()) return;
      const Reference& attribute = context.file->references[read];
      ReadSite site;
      site.region_file = context.region_file;
      site.region = static_cast<std::size_t>(context.region - context.region_file->regions.data());
      site.file = context.file;
      site.function = context.function;
      site.frame = context.frame;
      site.root = context.path.empty();
      site.params = context.param_values;
      for (const program::FieldWrite& write : program::fieldWritesOnCycle(
               *context.program, site, attribute.operands[0], attribute.name, false)) {
        // A method that never replays may rebind for the next capture: only the seen cycle.
        if (write.write == nullptr || write.write->augmented || write.span->self_only) continue;
        const program::FrameId frame = context.program->plainFrame(*write.file, *write.function);
        if (context.program->valueKind(frame, write.write->value) != ValueKind::kTensor) continue;
        if (rebindsItself(*write.file, *write.write)) continue;
        reportRebinding(context, event, operand, write, sink);
        return;
      }
    };
    for (const Value& argument : event.args) consider(argument);
    for (const KeywordArg& keyword : event.keywords) consider(keyword.value);
    if (event.kind == EventKind::kTensorOp || event.kind == EventKind::kInPlaceUpdate) {
      consider(event.subject);
    }
  }

  void checkFile(const FileModel& file, const ProgramModel& program,
                 DiagnosticSink& sink) const override {
    checkLazyArguments(file, program, sink);
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
            if (fetchedWithTheGraph(file, function, bind, region.graph, flow)) continue;
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
  // `step(x)` in a loop that binds `x` anew, where `step` captured on its first call reading
  // the parameter `x` is bound to and replays on every later call.
  static void checkLazyArguments(const FileModel& file, const ProgramModel& program,
                                 DiagnosticSink& sink) {
    const program::ReplayFacts& facts = program.replayFacts();
    if (facts.empty()) return;
    for (const FunctionModel& function : file.functions) {
      if (function.loops.empty()) continue;
      for (const Event& call : function.events) {
        if (call.kind != EventKind::kCall || call.call == kNoRef || call.args.empty()) continue;
        const SourceRange* loop =
            CaptureFlow::commonLoop(function, call.range.begin, call.range.begin);
        if (loop == nullptr) continue;
        // The arguments bound anew in this iteration, before the call.
        std::vector<const Event*> fresh(call.args.size(), nullptr);
        bool any = false;
        for (std::size_t i = 0; i < call.args.size(); ++i) {
          if (call.args[i].isKnownHost()) continue;
          const std::string& text = call.args[i].text;
          fresh[i] = bindingInLoop(function, *loop, call, text);
          // step(batch[0].cuda()) in `for batch in loader`: made from this iteration's object.
          if (fresh[i] == nullptr) fresh[i] = bindingInLoop(function, *loop, call, rootName(text));
          // step(x.cuda()): a tensor made by the argument itself.
          if (fresh[i] == nullptr && call.args[i].isTensor() && isCallText(call.args[i].text)) {
            fresh[i] = &call;
          }
          any |= fresh[i] != nullptr;
        }
        if (!any) continue;
        for (const program::CallTarget& target :
             program.callTargets(program.plainFrame(file, function), file, call)) {
          const program::ReplayingFunction* replaying = facts.find(target.function);
          if (replaying == nullptr || replaying->lazy_reads.empty()) continue;
          FunctionRef callee = program.function(target.function);
          if (!callee) continue;
          const program::LazyParameterRead* read =
              readOfArgument(*callee.function, *replaying, target.offset, fresh);
          if (read == nullptr) continue;
          std::size_t argument = read->param >= target.offset ? read->param - target.offset : 0;
          if (callee.function->params[read->param].variadic) argument = firstFresh(fresh);
          const Event* bind = fresh[argument] == &call ? nullptr : fresh[argument];
          reportLazyArgument(file, call, bind, call.args[argument].text, callee, *replaying, *read,
                             sink);
          break;
        }
      }
    }
  }

  // The binding of `name` to a value not known to be a host value, in `loop` before `call`
  // (the loop's own target included): each iteration passes another object.
  static const Event* bindingInLoop(const FunctionModel& function, const SourceRange& loop,
                                    const Event& call, const std::string& name) {
    if (name.empty()) return nullptr;
    const Event* found = nullptr;
    for (const Event& bind : function.events) {
      if (bind.range.begin >= call.range.begin) break;
      if (bind.kind != EventKind::kBind || bind.range.begin < loop.begin) continue;
      if (bind.target != name) continue;
      // `x = x.cuda()` after `for x in loader`: still this iteration's object. A host value is
      // not an address.
      if (bind.source == name) continue;
      found = bind.subject.isKnownHost() ? nullptr : &bind;
    }
    return found;
  }

  // The name an expression starts from: `batch` of `batch[0].cuda()`.
  static std::string rootName(std::string_view text) {
    std::size_t end = 0;
    while (end < text.size() &&
           (text[end] == '_' || std::isalnum(static_cast<unsigned char>(text[end])) ||
            static_cast<unsigned char>(text[end]) >= 0x80)) {
      ++end;
    }
    if (end == 0 || end == text.size() || std::isdigit(static_cast<unsigned char>(text[0])))
      return {};
    return std::string(text.substr(0, end));
  }

  static bool isCallText(std::string_view text) {
    return !text.empty() && text.back() == ')' && text.find('(') != std::string_view::npos;
  }

  static std::size_t firstFresh(const std::vector<const Event*>& fresh) {
    for (std::size_t i = 0; i < fresh.size(); ++i) {
      if (fresh[i] != nullptr) return i;
    }
    return 0;
  }

  // The lazy read of a parameter an argument bound anew fills: its own, or `*args`.
  static const program::LazyParameterRead* readOfArgument(
      const FunctionModel& callee, const program::ReplayingFunction& replaying, std::size_t offset,
      const std::vector<const Event*>& fresh) {
    for (const program::LazyParameterRead& read : replaying.lazy_reads) {
      const Parameter& param = callee.params[read.param];
      if (param.keywords) continue;
      if (param.variadic) {
        if (read.param >= offset && read.param - offset < fresh.size()) {
          for (std::size_t i = read.param - offset; i < fresh.size(); ++i) {
            if (fresh[i] != nullptr) return &read;
          }
        }
        continue;
      }
      if (read.param < offset) continue;
      std::size_t argument = read.param - offset;
      if (argument < fresh.size() && fresh[argument] != nullptr) return &read;
    }
    return nullptr;
  }

  // `bind` is the binding of the argument in the loop; null when the argument itself makes a
  // new tensor (`step(x.cuda())`).
  static void reportLazyArgument(const FileModel& file, const Event& call, const Event* bind,
                                 const std::string& argument, FunctionRef callee,
                                 const program::ReplayingFunction& replaying,
                                 const program::LazyParameterRead& read, DiagnosticSink& sink) {
    const FileModel& home = *callee.file;
    const CaptureRegion& region = home.regions[read.region];
    const std::string name = "`" + callee.function->qualified_name + "`";
    const Parameter& declared = callee.function->params[read.param];
    const std::string param = declared.variadic ? "arguments (`*" + declared.name + "`)"
                                                : "parameter `" + declared.name + "`";
    const std::string where = home.source == file.source
                                  ? "line " + lineOf(region.site)
                                  : home.source->path() + ":" + lineOf(region.site);
    const std::string passed = bind != nullptr
                                   ? "passes `" + argument +
                                         "`, bound to a new object on each iteration (line " +
                                         lineOf(bind->range) + ")"
                                   : "passes a new tensor on each iteration (`" + argument + "`)";
    std::string message =
        "`" + call.text + "` " + passed + ", but " + name +
        " captured its CUDA graph on its first call (" + where + ") reading its " + param +
        " by address, and every later call replays that graph: from the second "
        "iteration on, the graph reads the first call's tensors, not the ones passed here";
    std::vector<RelatedLocation> related;
    related.push_back(
        {home.source, region.site, "captured on the first call, reading its " + param});
    related.push_back({home.source, read.read->range, "read under capture here"});
    if (replaying.lazy_replay != nullptr) {
      related.push_back({home.source, replaying.lazy_replay->range, "later calls replay it here"});
    }
    if (bind != nullptr) {
      related.push_back({file.source, bind->range, "`" + argument + "` is bound anew here"});
    }
    sink.reportAt(file.source, call.range, std::move(message), std::move(related));
  }

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

  static void reportRebinding(const RegionContext& context, const Event& event,
                              const Value& operand, const program::FieldWrite& write,
                              DiagnosticSink& sink) {
    // The binding's own event spans the whole assignment, as the file-local form reports it.
    SourceRange range = write.write->range;
    for (const Event& bind : write.function->events) {
      if (bind.kind == EventKind::kBind && bind.range.begin == range.begin) range = bind.range;
    }
    const CaptureRegion& region = *context.region;
    const std::string name = "`" + operand.text + "`";
    const std::string read_at = context.file->source == write.file->source
                                    ? "line " + lineOf(event.range)
                                    : context.file->source->path() + ":" + lineOf(event.range);
    std::string message = "`" + write.write->name +
                          "` is bound to another tensor here, between "
                          "replays, but the CUDA graph captured at " +
                          (context.region_file->source == write.file->source
                               ? "line " + lineOf(region.site)
                               : context.region_file->source->path() + ":" + lineOf(region.site)) +
                          " reads " + name + " (" + read_at +
                          ") by address: every later replay keeps using the tensor it held at "
                          "capture, not this one";
    std::vector<RelatedLocation> related;
    related.push_back(
        {context.region_file->source, region.site, "the graph captures the tensor's address here"});
    for (const CallStep& step : context.path) {
      related.push_back(
          {step.file->source, step.call->range, "reached through this call: " + step.call->text});
    }
    related.push_back({context.file->source, event.range, "read under capture here"});
    if (write.span->via != nullptr && write.span->via_function != program::kNoId) {
      if (FunctionRef via = context.program->function(write.span->via_function)) {
        related.push_back({via.file->source, write.span->via->range,
                           write.span->via->kind == EventKind::kReplay
                               ? "replayed here"
                               : "the graph is replayed through this call"});
      }
    }
    sink.reportAt(write.file->source, range, std::move(message), std::move(related));
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
