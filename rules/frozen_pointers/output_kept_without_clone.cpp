// GS203 output-kept-without-clone: a graph's output is kept (appended, stored, yielded) between
// replays of that graph. Every replay writes the same buffer, so everything kept shows the last
// replay. The frontend marks values that are a region's output (bound in its body, or returned
// by a graphed or compiled callable); this check asks whether the graph is replayed both before
// and after the store, in order or around a loop. Keeping the static output once, right after
// the capture, is how graphs are meant to be used and stays silent. Across calls: a function
// that replays a graph and returns its output (`runner.run(x)`) hands every caller the same
// buffer, so a caller keeping the results in a loop that calls it again keeps one buffer many
// times (the program model's replay facts say which functions do this).
#include <algorithm>
#include <optional>
#include <string>

#include "analyzer/engine/check.h"
#include "analyzer/program/capture_flow.h"
#include "analyzer/program/program_model.h"

namespace graphsafe {

namespace {

std::string keptHow(const Event& store) {
  std::string target = store.target.empty() ? std::string() : " `" + store.target + "`";
  if (store.api == "yield") return "yielded";
  if (store.api.ends_with(" comprehension")) {
    return "collected by a " + store.api.substr(0, store.api.size() - 14) + " comprehension";
  }
  if (store.api == "setattr") return "stored in" + target;
  if (store.api == "__setitem__") return "stored in" + (target.empty() ? " a container" : target);
  if (store.api == "add" || store.api == "put" || store.api == "put_nowait") {
    return "added to" + (target.empty() ? " a container" : target);
  }
  return "appended to" + (target.empty() ? " a list" : target);
}

// Does the expression need parentheses before `.clone()`? Anything with an operator, a space,
// a lambda or a starred form at the top level does.
bool needsParentheses(std::string_view text) {
  int depth = 0;
  for (char c : text) {
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
    } else if (depth == 0) {
      bool plain = c == '_' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                   (c >= '0' && c <= '9') || static_cast<unsigned char>(c) >= 0x80;
      if (!plain) return true;
    }
  }
  return text.empty() || (text.front() >= '0' && text.front() <= '9');
}

SourceRange pointRange(const SourceFile& source, std::uint32_t offset) {
  SourceRange range;
  range.begin = offset;
  range.end = offset;
  range.start = source.pointAt(offset);
  range.stop = range.start;
  return range;
}

Fix cloneFix(const SourceFile& source, const SourceRange& value) {
  Fix fix;
  fix.description = "clone the output before keeping it";
  std::string_view text =
      std::string_view(source.text())
          .substr(value.begin, value.end >= value.begin ? value.end - value.begin : 0);
  if (needsParentheses(text)) {
    fix.edits.push_back({pointRange(source, value.begin), "("});
    fix.edits.push_back({pointRange(source, value.end), ").clone()"});
  } else {
    fix.edits.push_back({pointRange(source, value.end), ".clone()"});
  }
  return fix;
}

// `.clone()` is a tensor's method: the fix is offered only for a value the model knows is a
// tensor (a tuple, list or dict output, or one of unknown type, would raise AttributeError).
std::optional<Fix> cloneFixIfTensor(const FileModel& file, const FunctionModel& function,
                                    const Event& store, const ProgramModel& program) {
  // The program model's type of the value kept decides; where it knows nothing, the frontend's
  // value class (a tensor op's result). A tuple that holds a tensor is of the tensor's class
  // there, but the model knows it is a tuple, with no clone().
  using Tensorness = ProgramModel::Tensorness;
  const Tensorness known = program.tensorness(program.plainFrame(file, function), store.value);
  if (known == Tensorness::kNo || (known == Tensorness::kUnknown && !store.subject.isTensor())) {
    return std::nullopt;
  }
  return cloneFix(*file.source, store.range);
}

class OutputKeptWithoutCloneCheck final : public Check {
 public:
  std::string_view id() const override { return "GS203"; }

  void checkFile(const FileModel& file, const ProgramModel& program,
                 DiagnosticSink& sink) const override {
    checkKeptCallResults(file, program, sink);
    if (file.regions.empty()) return;
    CaptureFlow flow(file);
    for (const FunctionModel& function : file.functions) {
      for (const Event& store : function.events) {
        if (store.kind != EventKind::kStore || store.api == "return") continue;
        if (store.output_of < 0 || static_cast<std::size_t>(store.output_of) >= file.regions.size())
          continue;
        auto r = static_cast<std::size_t>(store.output_of);
        const CaptureRegion& region = file.regions[r];
        if (store.subject.isKnownHost() || flow.replays(r).empty()) continue;
        std::uint32_t at = store.range.begin;
        if (!flow.afterCapture(r, function, at)) continue;
        // Kept between two replays: one that wrote it (a callable's output is its own call's)
        // and one that writes over it.
        const CaptureFlow::Site* next = flow.replayAfter(r, function, at);
        if (next == nullptr) continue;
        if (!region.whole_function && flow.replayBefore(r, function, at) == nullptr) continue;
        report(file, region, store, *next->event, cloneFixIfTensor(file, function, store, program),
               sink);
      }
    }
  }

 private:
  // `outs.append(runner.run(x))` in a loop, where `run` replays a graph and returns its output.
  static void checkKeptCallResults(const FileModel& file, const ProgramModel& program,
                                   DiagnosticSink& sink) {
    const program::ReplayFacts& facts = program.replayFacts();
    if (facts.empty()) return;
    for (const FunctionModel& function : file.functions) {
      for (const Event& store : function.events) {
        if (store.kind != EventKind::kStore || store.api == "return" || store.output_of >= 0) {
          continue;
        }
        if (store.value >= file.references.size() || store.subject.isKnownHost()) continue;
        if (file.references[store.value].kind != Reference::Kind::kCall) continue;
        const Event* call = callEventOf(function, store.value);
        if (call == nullptr) continue;
        // The call runs again after the store: a loop holds both.
        const SourceRange* loop =
            CaptureFlow::commonLoop(function, call->range.begin, store.range.begin);
        if (loop == nullptr) continue;
        for (const program::CallTarget& target :
             program.callTargets(program.plainFrame(file, function), file, *call)) {
          const program::ReplayingFunction* replaying = facts.find(target.function);
          if (replaying == nullptr || replaying->output_region < 0) continue;
          FunctionRef callee = program.function(target.function);
          if (!callee) continue;
          reportKeptCallResult(file, store, *call, callee, *replaying,
                               cloneFixIfTensor(file, function, store, program), sink);
          break;
        }
      }
    }
  }

  static std::string returnedText(const SourceFile& source, const SourceRange& range) {
    std::string_view text = source.text();
    if (range.begin > range.end || range.end > text.size()) return {};
    std::string_view returned = text.substr(range.begin, range.end - range.begin);
    return std::string(returned.substr(0, returned.find('\n')));
  }

  static const Event* callEventOf(const FunctionModel& function, RefId call) {
    for (const Event& event : function.events) {
      if (event.kind == EventKind::kCall && event.call == call) return &event;
    }
    return nullptr;
  }

  static void reportKeptCallResult(const FileModel& file, const Event& store, const Event& call,
                                   FunctionRef callee, const program::ReplayingFunction& replaying,
                                   std::optional<Fix> fix, DiagnosticSink& sink) {
    const FileModel& home = *callee.file;
    const CaptureRegion& region = home.regions[static_cast<std::size_t>(replaying.output_region)];
    const std::string name = "`" + callee.function->qualified_name + "`";
    const std::string where = home.source == file.source
                                  ? "line " + lineOf(region.site)
                                  : home.source->path() + ":" + lineOf(region.site);
    std::string message =
        "`" + store.text + "` is the output buffer of the CUDA graph captured at " + where + " (" +
        name + " replays it and returns `" +
        returnedText(*home.source, callee.function->returned_output_at) + "`), and it is " +
        keptHow(store) + " without a copy while this loop calls " + name +
        " again: every call rewrites the same buffer, so every kept "
        "reference shows the last call's values";
    std::vector<RelatedLocation> related;
    related.push_back({home.source, region.site, "the graph's output buffer is allocated here"});
    if (replaying.replay != nullptr) {
      related.push_back({home.source, replaying.replay->range, "each call replays the graph here"});
    }
    related.push_back(
        {home.source, callee.function->returned_output_at, "and returns the same buffer here"});
    related.push_back({file.source, call.range, "called again on the next iteration"});
    sink.reportAt(file.source, store.range, std::move(message), std::move(related), std::move(fix));
  }

  static void report(const FileModel& file, const CaptureRegion& region, const Event& store,
                     const Event& next, std::optional<Fix> fix, DiagnosticSink& sink) {
    std::string value = "`" + store.text + "`";
    std::string message;
    if (region.whole_function) {
      std::string how = region.dynamo_traced ? "compiled with CUDA graphs" : "graphed";
      message = value + ", returned by the " + how + " callable from line " + lineOf(region.site) +
                ", is " + keptHow(store) + " without a copy, and the callable runs again (line " +
                lineOf(next.range) +
                "): its output lives in the graph's memory pool and the next replay overwrites "
                "it, so every kept reference shows the last call's values";
    } else {
      message = value + ", an output of the CUDA graph captured at line " + lineOf(region.site) +
                ", is " + keptHow(store) + " without a copy, and the graph is replayed again " +
                "(line " + lineOf(next.range) +
                "): every replay rewrites the same buffer, so every kept reference shows the "
                "last replay's values";
    }
    std::vector<RelatedLocation> related;
    related.push_back({file.source, region.site, "the graph's output buffer is allocated here"});
    related.push_back({file.source, next.range, "replayed again here, overwriting it"});
    sink.reportAt(file.source, store.range, std::move(message), std::move(related), std::move(fix));
  }
};

}  // namespace

std::unique_ptr<Check> makeOutputKeptWithoutCloneCheck() {
  return std::make_unique<OutputKeptWithoutCloneCheck>();
}

}  // namespace graphsafe
