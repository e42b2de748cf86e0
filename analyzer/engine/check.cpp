#include "analyzer/engine/check.h"

#include <bit>

#include "analyzer/program/program_model.h"

namespace graphsafe {

TensorMemory RegionContext::tensorMemory(RefId ref) const {
  if (program == nullptr || ref == kNoRef) return TensorMemory::kUnknown;
  return program->tensorMemory(frame, ref);
}

Value RegionContext::resolve(const Value& value) const {
  if (value.kind != ValueKind::kUnknown || value.param_deps == 0) return value;
  Value resolved = value;
  const Value* varying = nullptr;
  bool all_constant = true;
  for (std::uint64_t deps = value.param_deps; deps != 0; deps &= deps - 1) {
    auto index = static_cast<std::size_t>(std::countr_zero(deps));
    if (index >= param_values.size()) {
      all_constant = false;
      continue;
    }
    const Value& argument = param_values[index];
    if (argument.kind == ValueKind::kTensor) {
      resolved.kind = ValueKind::kTensor;
      resolved.origin = ValueOrigin::kTensorExpr;
      return resolved;
    }
    if (argument.kind == ValueKind::kHostVarying && varying == nullptr) varying = &argument;
    all_constant = all_constant && argument.kind == ValueKind::kHostConstant;
  }
  if (varying != nullptr) {
    resolved.kind = ValueKind::kHostVarying;
    // Why the argument varies is why the value does (a loop variable passed down a call).
    resolved.origin =
        varying->origin == ValueOrigin::kNone ? ValueOrigin::kParameter : varying->origin;
  } else if (all_constant) {
    resolved.kind = ValueKind::kHostConstant;
  }
  return resolved;
}

namespace {

std::string siteMessage(const CaptureRegion& region) {
  switch (region.kind) {
    case RegionKind::kGraphContext:
      return "capture region starts here";
    case RegionKind::kCaptureBeginEnd:
      return "capture starts here";
    case RegionKind::kGraphedCallable:
      return "captured into a CUDA graph by make_graphed_callables here";
    case RegionKind::kCompiled:
      return "compiled here with CUDA graphs (traced by Dynamo)";
    case RegionKind::kEntryPoint:
      return "declared as a capture entry point in the configuration";
    case RegionKind::kStreamCapture:
      return "stream capture begins here";
  }
  return "capture region starts here";
}

}  // namespace

void DiagnosticSink::report(const RegionContext& context, SourceRange range, std::string message,
                            std::optional<Fix> fix, std::optional<Severity> severity) {
  std::vector<RelatedLocation> related;
  related.push_back(
      {context.region_file->source, context.region->site, siteMessage(*context.region)});
  for (const CallStep& step : context.path) {
    if (step.supplier != nullptr && step.write == nullptr) {
      related.push_back({step.supplier_file->source, step.supplier->range,
                         "the callable is passed in here: " + step.supplier->text});
    } else if (step.supplier != nullptr) {
      related.push_back(
          {step.supplier_file->source, step.supplier->range,
           "`" + step.write->name + "` is given its value here: " + step.supplier->text});
      related.push_back({step.write_file->source, step.write->range,
                         "and stored in `" + step.write->name + "` here"});
    }
    related.push_back(
        {step.file->source, step.call->range, "reached through this call: " + step.call->text});
  }
  reportAt(context.file->source, range, std::move(message), std::move(related), std::move(fix),
           severity);
}

void DiagnosticSink::reportAt(const SourceFilePtr& file, SourceRange range, std::string message,
                              std::vector<RelatedLocation> related, std::optional<Fix> fix,
                              std::optional<Severity> severity) {
  Diagnostic diagnostic;
  diagnostic.rule_id = rule_.id;
  diagnostic.rule_name = rule_.name;
  diagnostic.severity = severity.value_or(rule_.severity);
  diagnostic.file = file;
  diagnostic.range = range;
  diagnostic.message = std::move(message);
  diagnostic.help = rule_.fix;
  diagnostic.related = std::move(related);
  diagnostic.fix = std::move(fix);
  out_.push_back(std::move(diagnostic));
}

}  // namespace graphsafe
