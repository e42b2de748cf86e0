#include "analyzer/engine/check.h"

#include <bit>

#include "analyzer/program/program_model.h"

namespace graphsafe {

TensorMemory RegionContext::tensorMemory(RefId ref) const {
  if (program == nullptr || ref == kNoRef) return TensorMemory::kUnknown;
  return program->tensorMemory(frame, ref);
}

Value RegionContext::resolve(const Value& value) const {
  Value resolved = resolveParameters(value);
  if (program == nullptr || value.ref == kNoRef) return resolved;
  // What the program model knows of the expression on this path: its kind, then whether a
  // host value changes between replays (and why).
  if (resolved.kind == ValueKind::kUnknown) {
    const ValueKind kind = program->valueKind(frame, value.ref);
    if (kind != ValueKind::kUnknown) {
      resolved.kind = kind;
      resolved.origin = kind == ValueKind::kTensor ? ValueOrigin::kTensorExpr : ValueOrigin::kNone;
    }
  }
  // A value the program model cannot type may still be a library's host setting (an
  // optimizer's learning rate): its variation says so.
  if ((resolved.kind == ValueKind::kHostConstant || resolved.kind == ValueKind::kUnknown) &&
      resolved.variation == 0) {
    ReadSite site;
    site.region_file = region_file;
    site.region = static_cast<std::size_t>(region - region_file->regions.data());
    site.file = file;
    site.function = function;
    site.frame = frame;
    site.root = path.empty();
    site.params = param_values;
    if (const std::uint32_t found = program->variation(site, value.ref)) {
      const ValueOrigin origin = program->variationAt(found).origin;
      // A value the model cannot type whole is taken as the host value it varies as when what
      // it knows of it is host values only (a field set to 0.5 here and to a request's setting
      // there), or when a library says so (an optimizer's setting).
      if (resolved.kind == ValueKind::kHostConstant || origin == ValueOrigin::kOptimizerSetting ||
          program->mayBeHost(frame, value.ref)) {
        resolved.kind = ValueKind::kHostVarying;
        resolved.origin = origin;
        resolved.variation = found;
      }
    }
  }
  return resolved;
}

Value RegionContext::resolveParameters(const Value& value) const {
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
    resolved.variation = varying->variation;
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
                            std::optional<Fix> fix, std::optional<Severity> severity,
                            std::vector<RelatedLocation> notes) {
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
  for (RelatedLocation& note : notes) related.push_back(std::move(note));
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
