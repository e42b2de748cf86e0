#include "frontends/python/file_lowering.h"

#include <algorithm>

#include "analyzer/model/entry_points.h"
#include "analyzer/model/region_removal.h"

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
      g(Grammar::get()),
      refs(file_model.references) {
  auto split = [](const std::vector<std::string>& apis, std::vector<std::string_view>& functions,
                  std::vector<std::string_view>& methods) {
    for (const std::string& api : apis) {
      std::string_view name = api;
      if (name.empty()) continue;
      if (name.front() == '.') {
        if (name.size() > 1) methods.push_back(name.substr(1));
      } else {
        functions.push_back(name);
      }
    }
  };
  split(settings.extra_sync_apis, extra_sync_functions, extra_sync_methods);
  split(settings.extra_state_apis, extra_state_functions, extra_state_methods);
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
  collectGlobals();
  compactRegions();
  final_bindings.clear();
}

std::int32_t FileLowering::addRegion(CaptureRegion region, std::int32_t parent) {
  auto position = static_cast<std::int32_t>(model.regions.size());
  region.parent = parent;
  if (region.whole_function &&
      (region.kind == RegionKind::kGraphedCallable || region.kind == RegionKind::kCompiled)) {
    callable_regions_.push_back(model.regions.size());
  }
  model.regions.push_back(std::move(region));
  region_dead_.push_back(false);
  return position;
}

FunctionId FileLowering::lambdaFunction(TSNode lambda, FunctionId parent) {
  auto [it, inserted] = lambdas_.try_emplace(lambda.id, kNoFunction);
  if (inserted) it->second = declareLambda(lambda, parent, pool, text, index, model);
  return it->second;
}

FunctionId FileLowering::functionOfNode(TSNode definition) {
  if (function_nodes_.empty()) {
    for (FunctionId id = 1; id < index.functions.size(); ++id) {
      if (!index.functions[id].is_lambda) function_nodes_.emplace(index.functions[id].node.id, id);
    }
  }
  auto it = function_nodes_.find(definition.id);
  return it == function_nodes_.end() ? kNoFunction : it->second;
}

std::int32_t FileLowering::classOfNode(TSNode definition) {
  if (class_nodes_.empty()) {
    for (std::size_t c = 0; c < index.classes.size(); ++c) {
      class_nodes_.emplace(index.classes[c].node.id, static_cast<std::int32_t>(c));
    }
  }
  auto it = class_nodes_.find(definition.id);
  return it == class_nodes_.end() ? -1 : it->second;
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
  // Whether it changes between replays (a function rebinding it through `global`, module code
  // rebinding it while the module replays a graph) is the program model's answer.
  if (out.value.kind == ValueKind::kHostVarying) {
    out.value.origin = ValueOrigin::kGlobal;
  } else if (out.value.kind == ValueKind::kHostConstant) {
    out.value.origin = ValueOrigin::kModuleConstant;
  }
  return true;
}

void FileLowering::collectConstructionHelpers() {
  // Methods that only construction calls: called as `self.m(` from __init__ (or from such a
  // helper) and from no other method of the class. Read lexically from the methods' text.
  for (const ClassDecl& decl : index.classes) {
    auto init = decl.methods.find("__init__");
    if (init == decl.methods.end()) continue;
    auto calls = [&](FunctionId caller, std::string_view method) {
      const FunctionDecl& function = index.functions[caller];
      if (isNull(function.node) || !function.has_self || function.param_names.empty()) return false;
      std::string needle = std::string(text.of(function.param_names.front())) + "." +
                           std::string(method) + "(";
      return text.of(function.node).find(needle) != std::string_view::npos;
    };
    std::unordered_set<FunctionId> helpers{init->second};
    for (bool grew = true; grew;) {
      grew = false;
      for (const auto& [name, method] : decl.methods) {
        if (helpers.contains(method)) continue;
        bool from_construction = false;
        bool from_elsewhere = false;
        for (const auto& [other_name, other] : decl.methods) {
          if (other == method || !calls(other, name)) continue;
          (helpers.contains(other) ? from_construction : from_elsewhere) = true;
        }
        if (from_construction && !from_elsewhere) {
          helpers.insert(method);
          grew = true;
        }
      }
    }
    helpers.erase(init->second);
    construction_helpers_.insert(helpers.begin(), helpers.end());
  }
}

void FileLowering::collectClassFacts() {
  collectConstructionHelpers();
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
      region.full_graph = compileIsFullGraph(pool, arguments);
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
      if (!pythonEntryPointMatches(entry, model.module_name, function.qualified_name)) continue;
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

void FileLowering::compactRegions() { dropRegions(model, region_dead_); }

}  // namespace graphsafe::python
