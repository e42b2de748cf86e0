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

#include "analyzer/engine/capture_flow.h"
#include "analyzer/engine/check.h"
#include "analyzer/program/program_model.h"

namespace graphsafe {

namespace {

bool isAttributePath(const std::string& name) {
  return name.starts_with("self.");
}

class ReboundStaticInputCheck final : public Check {
 public:
  std::string_view id() const override { return "GS201"; }

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
