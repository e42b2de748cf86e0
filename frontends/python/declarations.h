#pragma once

// The first pass over a file: every def and class with its scope, the imports, and what the
// module level binds. Calls are resolved against this index, so a call may name a function
// defined later in the file.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analyzer/model/capture_model.h"
#include "frontends/python/import_table.h"
#include "frontends/python/module_name.h"
#include "frontends/python/syntax.h"
#include "frontends/python/value_classifier.h"

namespace graphsafe::python {

struct FunctionDecl {
  TSNode node{};                    // function_definition or lambda; null for the module
  TSNode decorated{};               // the decorated_definition around it, when decorated
  FunctionId parent = kNoFunction;  // the enclosing function (0 = module level)
  std::int32_t class_index = -1;    // the class whose body holds this def (a method)
  bool is_lambda = false;
  bool has_self = false;  // a method with an instance parameter (not static/class)
  bool writes_self_attributes = false;
  // Per parameter: its name node, its annotation (null when none), whether it is *args/**kw.
  std::vector<TSNode> param_names;
  std::vector<TSNode> param_types;
  std::vector<TSNode> param_defaults;  // null when there is none
  std::vector<bool> param_splat;
  // Functions and classes defined directly in this scope.
  std::unordered_map<std::string_view, FunctionId> defs;
  std::unordered_map<std::string_view, std::int32_t> classes;
};

// What the methods of a class assign to `self.<name>` (and the class body binds).
struct AttributeFacts {
  ExprInfo info;  // the first non-None assignment (object kind, function)
  bool seen = false;
  bool only_none = true;          // every assignment so far was `None`
  bool tensor_everywhere = true;  // every non-None assignment was a tensor
  bool any_tensor = false;
  bool constant_everywhere = true;
  bool plain_everywhere = true;  // no assignment was an object (module, graph, stream, ...)
  bool written_after_init = false;
};

struct ClassDecl {
  std::string_view name;
  std::string qualified;
  TSNode node{};
  FunctionId scope = 0;  // the function (0 = module level) whose body defines the class
  std::vector<TSNode> bases;
  std::unordered_map<std::string_view, FunctionId> methods;
  std::unordered_map<std::string_view, AttributeFacts> attributes;
  // Resolved after the pass.
  std::vector<std::int32_t> base_classes;  // bases defined in this file
  bool derives_module = false;             // from torch.nn.Module, here or through a base
};

struct FileIndex {
  ModuleName module;
  ImportTable imports;
  std::vector<FunctionDecl> functions;  // parallel to FileModel::functions
  std::vector<ClassDecl> classes;
  // Module-level names: how many statements bind each, and which functions declare `global`.
  std::unordered_map<std::string_view, std::uint32_t> module_bindings;
  std::unordered_set<std::string_view> globals_written;
};

// Fills `index` and the function shells of `model` (names, ranges, parameters; no events).
// functions[0] is the synthetic module-level function.
void collectDeclarations(TSNode root, CursorPool& pool, const SourceText& text, FileIndex& index,
                         FileModel& model);

// Adds a function for a lambda (used as a graphed or compiled callable) and returns its id.
FunctionId declareLambda(TSNode lambda, FunctionId parent, CursorPool& pool, const SourceText& text,
                         FileIndex& index, FileModel& model);

// Resolves base classes and whether each class is an nn.Module.
void resolveClassBases(CursorPool& pool, const SourceText& text, FileIndex& index);

// The qualified name an identifier or attribute chain stands for through the imports
// ("t.cuda.graph" -> "torch.cuda.graph"), or "" when its root is not an import. `shadowed`
// says whether a root name is bound locally (and so is not the import).
template <typename Shadowed>
std::string importedName(TSNode node, CursorPool& pool, const SourceText& text,
                         const ImportTable& imports, Shadowed&& shadowed);

// The method `name` of class `class_index` or of its bases in this file.
FunctionId findMethod(const FileIndex& index, std::int32_t class_index, std::string_view name);
// The facts about `self.<name>` in class `class_index` or its bases.
const AttributeFacts* findAttribute(const FileIndex& index, std::int32_t class_index,
                                    std::string_view name);

// ---- implementation of the template --------------------------------------------------------

// Components of an attribute chain, innermost first; false when the root is not an identifier
// or the chain is too long to be a real name.
bool attributeChain(TSNode node, std::vector<TSNode>& parts);

template <typename Shadowed>
std::string importedName(TSNode node, CursorPool& pool, const SourceText& text,
                         const ImportTable& imports, Shadowed&& shadowed) {
  (void)pool;
  const Grammar& g = Grammar::get();
  if (is(node, g.identifier)) {
    std::string_view name = text.of(node);
    if (shadowed(name)) return {};
    const std::string* target = imports.find(name);
    return target ? *target : std::string{};
  }
  if (!is(node, g.attribute)) return {};
  thread_local std::vector<TSNode> parts;
  parts.clear();
  if (!attributeChain(node, parts)) return {};
  std::string_view root = text.of(parts.back());
  if (shadowed(root)) return {};
  const std::string* target = imports.find(root);
  if (target == nullptr) return {};
  std::string out = *target;
  for (std::size_t i = parts.size() - 1; i-- > 0;) {
    out.push_back('.');
    out += text.of(parts[i]);
  }
  return out;
}

}  // namespace graphsafe::python
