#pragma once

// Lowers a parsed, indexed file into the capture model: every function's events, the capture
// regions, and the class facts the value classification relies on.

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analyzer/engine/analysis_settings.h"
#include "analyzer/model/capture_model.h"
#include "frontends/python/declarations.h"
#include "frontends/python/flow_state.h"
#include "frontends/python/reference_builder.h"
#include "frontends/python/syntax.h"
#include "frontends/python/value_classifier.h"

namespace graphsafe::python {

using Bindings = std::unordered_map<std::string_view, ExprInfo>;

class FileLowering {
 public:
  FileLowering(TSNode root, const SourceText& text, CursorPool& pool, FileIndex& index,
               FileModel& model, const AnalysisSettings& settings);

  // Everything after the declaration pass, in order: class facts, decorator regions, each
  // function's events (lambdas found on the way included), entry points, region cleanup.
  void run();

  // ---- shared state, used by FunctionLowering ----
  TSNode root;
  const SourceText& text;
  CursorPool& pool;
  FileIndex& index;
  FileModel& model;
  const AnalysisSettings& settings;
  const Grammar& g;
  // The references of model.references, made as expressions are lowered.
  ReferenceBuilder refs;

  // Extra synchronizing APIs from the configuration, split by form.
  std::vector<std::string_view> extra_sync_functions;  // "pkg.mod.func"
  std::vector<std::string_view> extra_sync_methods;    // ".method", without the dot
  std::vector<std::string_view> extra_state_functions;  // the same for extra-state-apis
  std::vector<std::string_view> extra_state_methods;

  // The file may change the default device (torch.set_default_device, `with torch.device(...)`):
  // a factory given no device is then not known to allocate host memory.
  bool default_device_may_change = false;

  // Facts about one function's own body that each call of it asks again (a helper called from
  // every other function): found once per function, not once per call.
  std::unordered_map<FunctionId, bool> raises_under_capture;
  std::unordered_map<FunctionId, bool> returns_capture_query;

  // The first line (0-based) of code nested past the analysis's bound, which is not analyzed;
  // -1 when none is.
  std::int32_t nesting_cut_line = -1;

  // Final bindings of each function, for closures and module globals.
  std::vector<Bindings> final_bindings;

  // Flow between capture and replay: region inputs of callable regions, handles, containers.
  FileFlow flow;

  // Adds a region. `parent` is the body region around it (-1 when none) so that a region that
  // turns out not to be one can hand its events back.
  std::int32_t addRegion(CaptureRegion region, std::int32_t parent);
  void dropRegion(std::int32_t region) { region_dead_[static_cast<std::size_t>(region)] = true; }
  // A method only construction calls (`self._init_values()` from __init__, and from nowhere
  // else in the class): what it assigns is part of construction, not state changed later.
  bool isConstructionHelper(FunctionId method) const {
    return construction_helpers_.contains(method);
  }
  // The whole-function regions replayed by calling something (graphed callables, compiled
  // functions), in order: every call is matched against these, not against every region.
  const std::vector<std::size_t>& callableRegions() const { return callable_regions_; }

  // The value of the top-level `name = value` assignment that binds `name` (null when none).
  TSNode moduleAssignment(std::string_view name);

  // The function of a lambda used as a callable, created on first use.
  FunctionId lambdaFunction(TSNode lambda, FunctionId parent);

  // The function a def node declares, the class a class node declares (kNoFunction / -1 when
  // the declaration pass skipped it).
  FunctionId functionOfNode(TSNode definition);
  std::int32_t classOfNode(TSNode definition);

  // The value of a module-level name read from a function: constants bound once stay
  // constants; names rebound anywhere become varying globals.
  bool moduleGlobal(std::string_view name, ExprInfo& out) const;

 private:
  void collectConstructionHelpers();
  void collectClassFacts();
  void addDecoratorRegions();
  void addEntryPointRegions();
  void finishFlow();  // flow_lowering.cpp
  void compactRegions();
  void collectGlobals();  // reference_lowering.cpp

  std::vector<bool> region_dead_;
  std::vector<std::size_t> callable_regions_;
  std::unordered_set<FunctionId> construction_helpers_;
  std::unordered_map<const void*, FunctionId> lambdas_;
  std::unordered_map<const void*, FunctionId> function_nodes_;
  std::unordered_map<const void*, std::int32_t> class_nodes_;
  std::unordered_map<std::string_view, TSNode> module_assignments_;
  bool module_assignments_read_ = false;
};

}  // namespace graphsafe::python
