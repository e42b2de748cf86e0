#include "frontends/python/file_lowering.h"

#include "frontends/python/call_arguments.h"
#include "frontends/python/function_lowering.h"
#include "frontends/python/python_apis.h"
#include "frontends/python/region_finder.h"

namespace graphsafe::python {

FileLowering::FileLowering(TSNode root_node, const SourceText& source_text, CursorPool& cursors,
                           FileIndex& file_index, FileModel& file_model,
                           const AnalysisSettings& analysis_settings)
    : root(root_node),
      text(source_text),
      pool(cursors),
      index(file_index),
      model(file_model),
      settings(analysis_settings),
      g(Grammar::get()) {
  for (const std::string& api : settings.extra_sync_apis) {
    std::string_view name = api;
    if (name.empty()) continue;
    if (name.front() == '.') {
      if (name.size() > 1) extra_sync_methods.push_back(name.substr(1));
    } else {
      extra_sync_functions.push_back(name);
    }
  }
  std::string_view all = text.all();
  default_device_may_change = all.find("set_default_device") != std::string_view::npos ||
                              all.find("set_default_tensor_type") != std::string_view::npos ||
                              all.find("with torch.device") != std::string_view::npos;
}

void FileLowering::run() {
  collectClassFacts();
  addDecoratorRegions();
  final_bindings.resize(model.functions.size());
  // Parents before children (ids follow the source), so closures see their outer bindings.
  // Lambdas declared on the way are appended and lowered in turn.
  for (FunctionId id = 0; id < model.functions.size(); ++id) {
    FunctionLowering(*this, id, FunctionLowering::Mode::kNormal).run();
  }
  addEntryPointRegions();
  finishFlow();
  compactRegions();
  final_bindings.clear();
}

std::int32_t FileLowering::addRegion(CaptureRegion region, std::int32_t parent) {
  auto position = static_cast<std::int32_t>(model.regions.size());
  model.regions.push_back(std::move(region));
  region_parent_.push_back(parent);
  region_dead_.push_back(false);
  return position;
}

FunctionId FileLowering::lambdaFunction(TSNode lambda, FunctionId parent) {
  auto [it, inserted] = lambdas_.try_emplace(lambda.id, kNoFunction);
  if (inserted) it->second = declareLambda(lambda, parent, pool, text, index, model);
  return it->second;
}

TSNode FileLowering::moduleAssignment(std::string_view name) {
  if (!module_assignments_read_) {
    module_assignments_read_ = true;
    for (Children statement(pool, root); statement.valid(); statement.next()) {
      if (!is(statement.node(), g.expression_statement)) continue;
      TSNode assignment = firstNamedChild(pool, statement.node());
      if (!is(assignment, g.assignment)) continue;
      TSNode target = field(assignment, g.f_left);
      TSNode value = field(assignment, g.f_right);
      if (is(target, g.identifier) && !isNull(value) && !is(value, g.assignment)) {
        module_assignments_.emplace(text.of(target), value);
      }
    }
  }
  auto it = module_assignments_.find(name);
  return it == module_assignments_.end() ? TSNode{} : it->second;
}

bool FileLowering::moduleGlobal(std::string_view name, ExprInfo& out) const {
  if (final_bindings.empty()) return false;
  const Bindings& module = final_bindings.front();
  auto it = module.find(name);
  if (it == module.end()) return false;
  out = it->second;
  auto count = index.module_bindings.find(name);
  bool rebound = (count != index.module_bindings.end() && count->second > 1) ||
                 index.globals_written.contains(name);
  if (out.value.kind == ValueKind::kHostVarying) {
    out.value.origin = ValueOrigin::kGlobal;
  } else if (rebound) {
    if (out.value.isKnownHost()) out.value = hostVarying(ValueOrigin::kGlobal);
  } else if (out.value.kind == ValueKind::kHostConstant) {
    out.value.origin = ValueOrigin::kModuleConstant;
  }
  return true;
}

void FileLowering::collectClassFacts() {
  // What each class's methods assign to self.<name>: __init__ first, so that the other
  // methods already see the attributes it creates.
  for (const ClassDecl& decl : index.classes) {
    auto init = decl.methods.find("__init__");
    if (init != decl.methods.end() && index.functions[init->second].writes_self_attributes) {
      FunctionLowering(*this, init->second, FunctionLowering::Mode::kRecordAttributes).run();
    }
  }
  for (std::size_t c = 0; c < index.classes.size(); ++c) {
    for (const auto& [name, method] : index.classes[c].methods) {
      if (name == "__init__" || !index.functions[method].writes_self_attributes) continue;
      FunctionLowering(*this, method, FunctionLowering::Mode::kRecordAttributes).run();
    }
  }
}

void FileLowering::addDecoratorRegions() {
  CallArguments arguments;
  for (FunctionId id = 1; id < index.functions.size(); ++id) {
    TSNode decorated = index.functions[id].decorated;
    if (isNull(decorated)) continue;
    for (Children it(pool, decorated); it.valid(); it.next()) {
      if (!is(it.node(), g.decorator)) continue;
      TSNode expression = unparenthesize(pool, firstNamedChild(pool, it.node()));
      if (!is(expression, g.call)) continue;  // a bare @torch.compile uses the default mode
      std::string callee = importedName(field(expression, g.f_function), pool, text, index.imports,
                                        [](std::string_view) { return false; });
      if (canonicalApiName(callee) != "torch.compile") continue;
      readArguments(pool, text, field(expression, g.f_arguments), arguments);
      if (!compileUsesCudaGraphs(pool, text, arguments)) continue;
      CaptureRegion region;
      region.kind = RegionKind::kCompiled;
      region.site = text.range(it.node());
      region.dynamo_traced = true;
      region.whole_function = true;
      region.function = id;
      region.handle = model.functions[id].qualified_name;  // replayed by calling it
      addRegion(std::move(region), -1);
    }
  }
}

void FileLowering::addEntryPointRegions() {
  if (settings.capture_entry_points.empty()) return;
  for (FunctionId id = 1; id < model.functions.size(); ++id) {
    const FunctionModel& function = model.functions[id];
    if (index.functions[id].is_lambda) continue;
    for (const std::string& entry : settings.capture_entry_points) {
      if (!matchesEntryPoint(entry, model.module_name, function.qualified_name)) continue;
      CaptureRegion region;
      region.kind = RegionKind::kEntryPoint;
      region.site = function.range;
      region.whole_function = true;
      region.function = id;
      addRegion(std::move(region), -1);
      break;
    }
  }
}

void FileLowering::compactRegions() {
  bool any_dead = false;
  for (bool dead : region_dead_) any_dead = any_dead || dead;
  if (!any_dead) return;
  // A dropped region hands its events to the region that was open around it.
  std::vector<std::int32_t> remap(model.regions.size(), -1);
  std::vector<CaptureRegion> kept;
  for (std::size_t i = 0; i < model.regions.size(); ++i) {
    if (region_dead_[i]) {
      std::int32_t parent = region_parent_[i];
      remap[i] = parent >= 0 ? remap[static_cast<std::size_t>(parent)] : -1;
    } else {
      remap[i] = static_cast<std::int32_t>(kept.size());
      kept.push_back(std::move(model.regions[i]));
    }
  }
  model.regions = std::move(kept);
  for (FunctionModel& function : model.functions) {
    for (Event& event : function.events) {
      if (event.region >= 0) event.region = remap[static_cast<std::size_t>(event.region)];
      if (event.output_of >= 0) event.output_of = remap[static_cast<std::size_t>(event.output_of)];
    }
  }
}

}  // namespace graphsafe::python
