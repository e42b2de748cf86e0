// GS208 graph-shared-across-instances: a graph captured from one object's state (a method that
// reads `self`, a decorator's wrapper around a method, which passes the instance on) kept in a
// cache that every object shares: a module-level dict, a class attribute, a decorator's closure,
// keyed by something that does not tell the objects apart (a batch size, `fn.__name__`). The
// graph holds the addresses of the first object's buffers; a second object that finds it under
// the same key replays it, reading and writing the first object's memory. Quiet when the cache
// is the object's own (`self._graphs` made in __init__), when the key holds the object (`self`,
// `id(self)`, `args[0]`), and when the class is built once, at module level.
#include <string>
#include <string_view>

#include "analyzer/engine/check.h"
#include "analyzer/program/call_sites.h"
#include "analyzer/program/capture_flow.h"
#include "analyzer/program/program_model.h"

namespace graphsafe {

namespace {

const Reference* at(const FileModel& file, RefId ref) {
  ref = throughLocal(file.references, ref);
  return ref < file.references.size() ? &file.references[ref] : nullptr;
}

bool isSelf(const FileModel& file, const FunctionModel& function, RefId ref) {
  const Reference* reference = at(file, ref);
  return function.has_self && reference != nullptr &&
         reference->kind == Reference::Kind::kParameter && reference->index == 0 &&
         reference->function < file.functions.size() &&
         &file.functions[reference->function] == &function;
}

// A CUDA graph, or a tuple, list or dict holding one (`(g, static_out)`).
bool holdsGraph(const FileModel& file, RefId ref, int depth) {
  const Reference* reference = at(file, ref);
  if (reference == nullptr || depth > 4) return false;
  using Kind = Reference::Kind;
  if (reference->kind == Kind::kCall && !reference->operands.empty()) {
    const Reference* callee = at(file, reference->operands[0]);
    return callee != nullptr && callee->kind == Kind::kGlobal &&
           (callee->name == "torch.cuda.CUDAGraph" ||
            callee->name == "torch.cuda.graphs.CUDAGraph");
  }
  if (reference->kind != Kind::kContainer && reference->kind != Kind::kJoin) return false;
  for (RefId operand : reference->operands) {
    if (holdsGraph(file, operand, depth + 1)) return true;
  }
  return false;
}

// The text of a range, for names in messages.
std::string textOf(const FileModel& file, const SourceRange& range) {
  std::string_view all = file.source->text();
  if (range.end > all.size() || range.begin >= range.end) return {};
  return std::string(all.substr(range.begin, range.end - range.begin));
}

// Is the attribute written the container of an item store (`self._graphs[bs] = g` records the
// attribute as updated), rather than bound (`self._graphs = {}`)?
bool isItemStore(const FileModel& file, const SourceRange& range) {
  std::string_view all = file.source->text();
  std::size_t next = range.end;
  while (next < all.size() && (all[next] == ' ' || all[next] == '\t')) ++next;
  return next < all.size() && all[next] == '[';
}

// Does a method of the class assign the attribute on an instance (`self._graphs = {}`)?
bool assignedOnInstance(const FileModel& file, std::int32_t class_index, std::string_view name) {
  for (const AttributeWrite& write : file.attribute_writes) {
    if (write.name != name || write.function >= file.functions.size() ||
        isItemStore(file, write.range)) {
      continue;
    }
    const FunctionModel& writer = file.functions[write.function];
    if (writer.class_index == class_index && isSelf(file, writer, write.object)) return true;
  }
  return false;
}

bool declaredInClassBody(const FileModel& file, std::int32_t class_index, std::string_view name) {
  if (class_index < 0 || static_cast<std::size_t>(class_index) >= file.classes.size()) return false;
  for (const auto& [member, value] : file.classes[static_cast<std::size_t>(class_index)].members) {
    if (member == name) return true;
  }
  return false;
}

// Does the dotted name denote a class of this file (`pkg.runner.Runner`, as a method reads its
// own class by name)?
bool namesOwnClass(const FileModel& file, std::string_view dotted) {
  if (file.module_name.empty() || !dotted.starts_with(file.module_name + ".")) return false;
  const std::string_view name = dotted.substr(file.module_name.size() + 1);
  for (const ClassModel& model : file.classes) {
    if (model.qualified_name == name) return true;
  }
  return false;
}

// Is `object` the class rather than an instance: the class by its name, `type(self)`,
// `self.__class__`?
bool namesClass(const FileModel& file, const FunctionModel& function, RefId object) {
  const Reference* reference = at(file, object);
  if (reference == nullptr) return false;
  using Kind = Reference::Kind;
  if (reference->kind == Kind::kClass) return true;
  if (reference->kind == Kind::kGlobal) return namesOwnClass(file, reference->name);
  if (reference->kind == Kind::kAttribute && reference->name == "__class__" &&
      !reference->operands.empty()) {
    return isSelf(file, function, reference->operands[0]);
  }
  if (reference->kind == Kind::kCall && reference->operands.size() == 2) {
    const Reference* callee = at(file, reference->operands[0]);
    return callee != nullptr && callee->kind == Kind::kGlobal && callee->name == "builtins.type" &&
           isSelf(file, function, reference->operands[1]);
  }
  return false;
}

// Where a cache written by `function` lives when every object shares it, in words ("" when it
// is the object's own, or not known): a module global, a class attribute, a decorator's closure.
std::string sharedCache(const FileModel& file, const FunctionModel& function, RefId container,
                        const SourceRange& target) {
  const Reference* reference = at(file, container);
  if (reference == nullptr) return {};
  using Kind = Reference::Kind;
  std::string text = textOf(file, target);
  const std::size_t bracket = text.find('[');
  if (bracket != std::string::npos) text.resize(bracket);
  const std::string shown = "`" + text + "`";
  if (reference->kind == Kind::kGlobal) return shown + ", a module-level name";
  const std::string self_prefix =
      function.has_self && !function.params.empty() ? function.params[0].name + "." : "";
  if (!self_prefix.empty() &&
      (text.starts_with("type(" + self_prefix.substr(0, self_prefix.size() - 1) + ").") ||
       text.starts_with(self_prefix + "__class__."))) {
    return shown + ", a class attribute";
  }
  if (reference->kind == Kind::kAttribute && !reference->operands.empty()) {
    const RefId object = reference->operands[0];
    if (namesClass(file, function, object)) return shown + ", a class attribute";
    const Reference* base = at(file, object);
    if (base != nullptr && base->kind == Kind::kGlobal) {
      return shown + ", an attribute of a module-level object";
    }
  }
  // `self._graphs` where the class body declares `_graphs = {}` and no method sets it on an
  // instance: every instance reads the class's dict.
  if (!self_prefix.empty() && text.starts_with(self_prefix) &&
      text.find('.', self_prefix.size()) == std::string::npos) {
    const std::string name = text.substr(self_prefix.size());
    if (declaredInClassBody(file, function.class_index, name) &&
        !assignedOnInstance(file, function.class_index, name)) {
      return shown + ", a class attribute (declared in the class body, never set on an instance)";
    }
    return {};
  }
  if (reference->kind == Kind::kAttribute) return {};
  // A dict made by an enclosing function (a decorator) that this one does not bind itself.
  if (reference->kind == Kind::kContainer && function.parent != kNoFunction &&
      function.parent != 0 && !text.empty() && !CaptureFlow::bindsLocally(function, text)) {
    return shown + ", a dict of the enclosing function's closure";
  }
  return {};
}

// Does the key hold the object itself (`self`, `id(self)`, `(name, self)`, `args[0]` of a
// wrapper)? An attribute of the object counts too (`self.layer_number`): it names the object.
bool keyIdentifiesInstance(const FileModel& file, const FunctionModel& function, RefId key,
                           int depth) {
  const Reference* reference = at(file, key);
  if (reference == nullptr || depth > 6) return false;
  using Kind = Reference::Kind;
  if (isSelf(file, function, key)) return true;
  if (reference->kind == Kind::kParameter && reference->index >= 0 &&
      reference->function < file.functions.size() &&
      &file.functions[reference->function] == &function &&
      static_cast<std::size_t>(reference->index) < function.params.size() &&
      function.params[static_cast<std::size_t>(reference->index)].variadic) {
    return true;  // `args`, or an element of it
  }
  for (RefId operand : reference->operands) {
    if (keyIdentifiesInstance(file, function, operand, depth + 1)) return true;
  }
  return false;
}

// Does the reference start from the method's `self` (`self.step_fn`, `self.layers[0].w`)?
bool rootedInSelf(const FileModel& file, const FunctionModel& function, RefId ref) {
  for (int step = 0; step < 8; ++step) {
    if (isSelf(file, function, ref)) return true;
    const Reference* reference = at(file, ref);
    if (reference == nullptr || reference->operands.empty() ||
        (reference->kind != Reference::Kind::kAttribute &&
         reference->kind != Reference::Kind::kElement &&
         reference->kind != Reference::Kind::kCall)) {
      return false;
    }
    ref = reference->operands[0];
  }
  return false;
}

// The region reads the capturing object's state: a method whose capture reads `self`, or a
// wrapper nested in a decorator that passes its positional arguments (the instance, when it
// wraps a method) to the captured call.
std::string instanceRead(const FileModel& file, std::int32_t index, const CaptureRegion& region,
                         const FunctionModel& function) {
  for (const Event& event : function.events) {
    if (event.region != index || !function.has_self) continue;
    if (rootedInSelf(file, function, event.call) ||
        rootedInSelf(file, function, event.subject.ref)) {
      return "reads this instance's state (`" + event.text + "`)";
    }
  }
  for (const RegionName& input : region.inputs) {
    if (function.has_self && !function.params.empty() &&
        (input.name == function.params[0].name ||
         input.name.starts_with(function.params[0].name + "."))) {
      return "reads this instance's state (`" + input.name + "`)";
    }
  }
  if (function.parent == kNoFunction || function.parent == 0) return {};
  for (const RegionName& input : region.inputs) {
    for (const Parameter& parameter : function.params) {
      if (parameter.variadic && !parameter.keywords && input.name == parameter.name) {
        return "is called with the wrapper's `" + parameter.name +
               "`, which holds the instance when it wraps a method";
      }
    }
  }
  return {};
}

// Is the function that defines `wrapper` applied as a decorator to a method of the program?
bool decoratesMethod(const ProgramModel& program, const FileModel& file,
                     const FunctionModel& wrapper) {
  if (wrapper.parent == kNoFunction || wrapper.parent == 0 ||
      wrapper.parent >= file.functions.size()) {
    return false;
  }
  const std::uint32_t decorator = program.functionId(file, file.functions[wrapper.parent]);
  for (const FileModel& other : program.files()) {
    if (other.language != Language::kPython) continue;
    for (const FunctionModel& method : other.functions) {
      if (!method.has_self || method.decorators.empty()) continue;
      const program::FrameId frame = program.plainFrame(other, method);
      for (RefId applied : method.decorators) {
        for (std::uint32_t callee : program.calledFunctions(frame, applied)) {
          if (callee == decorator) return true;
        }
      }
    }
  }
  return false;
}

// The class is built once, at module level (a singleton), and nowhere else.
bool builtOnce(const ProgramModel& program, const FileModel& file, std::int32_t class_index) {
  if (class_index < 0 || static_cast<std::size_t>(class_index) >= file.classes.size()) return false;
  const std::string& name = file.classes[static_cast<std::size_t>(class_index)].name;
  std::size_t module_level = 0;
  for (const program::CallSite& site : program.callSitesNamed(name)) {
    const FileModel& caller_file = program.files()[site.file];
    const FunctionModel& caller = caller_file.functions[site.function];
    if (!caller.is_module_level || !caller.loops.empty()) return false;
    ++module_level;
  }
  return module_level == 1;
}

class GraphSharedAcrossInstancesCheck final : public Check {
 public:
  std::string_view id() const override { return "GS208"; }

  void checkFile(const FileModel& file, const ProgramModel& program,
                 DiagnosticSink& sink) const override {
    if (file.language != Language::kPython || file.regions.empty()) return;
    for (const CaptureRegion& region : file.regions) {
      const auto index = static_cast<std::int32_t>(&region - file.regions.data());
      if (region.whole_function || region.dynamo_traced ||
          region.function >= file.functions.size()) {
        continue;
      }
      const FunctionModel& function = file.functions[region.function];
      const std::string reads = instanceRead(file, index, region, function);
      if (reads.empty() || builtOnce(program, file, function.class_index)) continue;
      if (!function.has_self && !decoratesMethod(program, file, function)) continue;
      for (const ElementWrite& write : file.element_writes) {
        if (write.function != region.function || write.augmented ||
            !holdsGraph(file, write.value, 0)) {
          continue;
        }
        const std::string cache = sharedCache(file, function, write.container, write.range);
        if (cache.empty()) continue;
        if (write.key_ref == kNoRef && write.key.empty()) continue;  // a key not known
        if (keyIdentifiesInstance(file, function, write.key_ref, 0)) continue;
        const std::string key = textOf(file, write.range);
        const std::size_t bracket = key.find('[');
        const std::string shown_key = bracket == std::string::npos
                                          ? std::string()
                                          : key.substr(bracket + 1, key.size() - bracket - 2);
        report(file, region, write.range, reads,
               "is stored in " + cache + ", which every instance shares, under a key (`" +
                   shown_key + "`) that does not identify the instance",
               sink);
      }
      for (const AttributeWrite& write : file.attribute_writes) {
        if (write.function != region.function || write.augmented ||
            isItemStore(file, write.range) || !holdsGraph(file, write.value, 0) ||
            !namesClass(file, function, write.object)) {
          continue;
        }
        report(file, region, write.range, reads,
               "is kept in `" + textOf(file, write.range) +
                   "`, a class attribute: one graph for every instance",
               sink);
      }
    }
  }

 private:
  static void report(const FileModel& file, const CaptureRegion& region, const SourceRange& range,
                     const std::string& reads, const std::string& where, DiagnosticSink& sink) {
    std::string message = "the CUDA graph captured at line " + lineOf(region.site) + " " + reads +
                          ", but it " + where +
                          ": another instance replays this graph, reading and writing the "
                          "buffers of the instance that captured it";
    sink.reportAt(file.source, range, std::move(message),
                  {{file.source, region.site, "captured here, from one instance's buffers"}});
  }
};

}  // namespace

std::unique_ptr<Check> makeGraphSharedAcrossInstancesCheck() {
  return std::make_unique<GraphSharedAcrossInstancesCheck>();
}

}  // namespace graphsafe
