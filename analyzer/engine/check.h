#pragma once

// The interface every rule's check implements. A check asks the capture model two questions,
// "which capture region is this code in, and how did it get there?" and "what is this value?",
// and reports on a precise range. The engine walks regions and call paths; checks stay short.

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/catalog/rule_catalog.h"
#include "analyzer/diagnostics/diagnostic.h"
#include "analyzer/model/capture_model.h"

namespace graphsafe {

// The 1-based line of a range's start, as messages cite it ("captured at line 12").
inline std::string lineOf(const SourceRange& range) {
  return std::to_string(range.start.line + 1);
}

class ProgramModel;

// One call on the way from a capture region to the code being checked.
struct CallStep {
  const FileModel* file = nullptr;
  const FunctionModel* caller = nullptr;
  const Event* call = nullptr;
  // When what the call runs was handed in (a parameter holding a function, an attribute set
  // from a constructor's argument): the call that passed it, and the attribute write it went
  // through. Notes only: neither is on the path itself.
  const FileModel* supplier_file = nullptr;
  const Event* supplier = nullptr;
  const FileModel* write_file = nullptr;
  const AttributeWrite* write = nullptr;
};

// Where an event runs: the region that captures it, the call path from the region to the event's
// function, and the values the function's parameters have on that path.
struct RegionContext {
  const FileModel* region_file = nullptr;
  const CaptureRegion* region = nullptr;
  const FileModel* file = nullptr;          // the file of the event being checked
  const FunctionModel* function = nullptr;  // the function of the event being checked
  std::span<const CallStep> path;           // empty when the event is in the region's own body
  std::span<const Value> param_values;      // indexed like function->params
  // The program model's frame of `function` on this path: its parameters' types.
  std::uint32_t frame = 0;
  const ProgramModel* program = nullptr;

  bool traced() const { return region->dynamo_traced; }
  // The value in this context: an unknown value derived from parameters takes what the
  // parameters hold on this path (a tensor argument makes it a tensor; a varying host argument
  // makes it varying, with that argument's origin; only known host constants keep it constant).
  Value resolve(const Value& value) const;
  // The parameter part of resolve(): an unknown value derived from parameters takes what they
  // hold on this path.
  Value resolveParameters(const Value& value) const;
  // Where the tensor `ref` (a reference of `file`) lives on this path, as the program model
  // types it: kUnknown without a model or when it cannot say.
  TensorMemory tensorMemory(RefId ref) const;
};

// Collects one check's findings. Severity and help come from the rule's catalog entry;
// the related locations (capture site, then each call) from the context.
class DiagnosticSink {
 public:
  DiagnosticSink(const RuleInfo& rule, std::vector<Diagnostic>& out) : rule_(rule), out_(out) {}

  // `severity` overrides the rule's for one form of a hazard that is milder than the rest (a
  // check that reports a heuristic form as a warning); the configuration's overrides still win.
  // `notes` follow the capture site and the call path (where a value changes, say).
  void report(const RegionContext& context, SourceRange range, std::string message,
              std::optional<Fix> fix = std::nullopt,
              std::optional<Severity> severity = std::nullopt,
              std::vector<RelatedLocation> notes = {});
  // For checks over a whole file (flow between capture and replay): related locations are given.
  void reportAt(const SourceFilePtr& file, SourceRange range, std::string message,
                std::vector<RelatedLocation> related = {}, std::optional<Fix> fix = std::nullopt,
                std::optional<Severity> severity = std::nullopt);
  const RuleInfo& rule() const { return rule_; }

 private:
  const RuleInfo& rule_;
  std::vector<Diagnostic>& out_;
};

class Check {
 public:
  virtual ~Check() = default;
  Check() = default;
  Check(const Check&) = delete;
  Check& operator=(const Check&) = delete;

  virtual std::string_view id() const = 0;
  // Called for every event that runs under a capture region (its body, and every function
  // reached from it by calls). Regions traced by Dynamo reach only rules marked (T).
  virtual void checkRegionEvent(const RegionContext& /*context*/, const Event& /*event*/,
                                DiagnosticSink& /*sink*/) const {}
  // Called once per analyzed file, for rules about what happens around a capture.
  virtual void checkFile(const FileModel& /*file*/, const ProgramModel& /*program*/,
                         DiagnosticSink& /*sink*/) const {}
};

// Every check of this build, in catalog order (rules/registry.cpp).
std::vector<std::unique_ptr<Check>> makeAllChecks();

}  // namespace graphsafe
