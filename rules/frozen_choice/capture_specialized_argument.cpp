// GS109 capture-specialized-argument: a function that captures its graph on its first call and
// replays it on every later one, whose captured code branches on an optional argument (`if
// attn_mask is not None:`, `if use_lora:`) the graphs are not cached by. The branch is taken once,
// with the first call's value; the program also calls it with another value, and those calls
// replay the capture's branch: their argument is ignored. Reported at the calls that pass a value
// other than the default, the value a capture made by a call that leaves it out sees. GS102
// yields on such a branch (specialized_argument.h).
#include <algorithm>
#include <string>

#include "analyzer/engine/check.h"
#include "analyzer/program/program_model.h"
#include "rules/frozen_choice/specialized_argument.h"

namespace graphsafe {

namespace {

std::string place(const FileModel& at, const FileModel& from, const SourceRange& range) {
  return at.source == from.source ? "line " + lineOf(range)
                                  : at.source->path() + ":" + lineOf(range);
}

class CaptureSpecializedArgumentCheck final : public Check {
 public:
  std::string_view id() const override { return "GS109"; }

  void checkRegionEvent(const RegionContext& context, const Event& event,
                        DiagnosticSink& sink) const override {
    if (event.kind != EventKind::kBranch || event.api == "assert" || event.api == "guard") return;
    std::optional<SpecializedArgument> argument = specializedArgument(context, event);
    if (!argument) return;
    const Parameter& parameter = argument->function->params[argument->param];
    const std::string name = "`" + parameter.name + "`";
    const std::string fallback = parameter.name + "=" + defaultText(*argument);
    for (const ArgumentCall& call : argument->passing) {
      const ArgumentCall& defaulted =
          *std::find_if(argument->defaulted.begin(), argument->defaulted.end(),
                        [&](const ArgumentCall& other) { return sameReceiver(call, other); });
      std::string message =
          "`" + argument->function->qualified_name +
          "` captures its CUDA graph on its first call and replays it on every later one, and "
          "the capture branches on " +
          name + " (`" + event.subject.text + "` at " +
          place(*context.file, *call.file, event.range) +
          ", not a key of the graph cache); "
          "a call that leaves it out (" +
          place(*defaulted.file, *call.file, defaulted.call->range) + ") captures with `" +
          fallback + "`, and this call's " + name + " is then ignored by every replay";
      std::vector<RelatedLocation> related;
      related.push_back({context.region_file->source, context.region->site,
                         "captured here, on the first call only"});
      related.push_back({context.file->source, event.range,
                         "the branch taken at capture, replayed whatever " + name + " is"});
      related.push_back({defaulted.file->source, defaulted.call->range,
                         "this call leaves " + name + " at its default"});
      sink.reportAt(call.file->source, call.call->range, std::move(message), std::move(related));
    }
  }

 private:
  static std::string defaultText(const SpecializedArgument& argument) {
    const Parameter& parameter = argument.function->params[argument.param];
    const RefId ref = parameter.default_value;
    const auto& references = argument.file->references;
    if (ref < references.size() && references[ref].kind == Reference::Kind::kNone) return "None";
    const std::string& key = parameter.default_literal;
    if (key.starts_with("i:")) return key.substr(2);
    if (key.starts_with("s:")) return "\"" + key.substr(2) + "\"";
    return key.empty() ? "its default" : key;
  }
};

}  // namespace

std::unique_ptr<Check> makeCaptureSpecializedArgumentCheck() {
  return std::make_unique<CaptureSpecializedArgumentCheck>();
}

}  // namespace graphsafe
